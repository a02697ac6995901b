package ctgls.verify;

import java.util.Comparator;
import org.junit.jupiter.api.MethodDescriptor;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

/**
 * Test methods in the seeded random order of {@link TestOrder} (seed {@link TestOrder#seed}),
 * for ctgls's perturbed verification runs. Selected through the configuration parameter
 * {@code junit.jupiter.testmethod.order.default}; never part of an emitted test.
 */
public final class ShuffledMethodOrder implements MethodOrderer {
    @Override
    public void orderMethods(MethodOrdererContext context) {
        Comparator<String> order = TestOrder.of("shuffle:" + TestOrder.seed);
        context.getMethodDescriptors()
                .sort(Comparator.comparing((MethodDescriptor d) -> d.getMethod().getName(), order));
    }
}
