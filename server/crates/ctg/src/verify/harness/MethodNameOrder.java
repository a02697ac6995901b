package ctgls.verify;

import java.util.Comparator;
import org.junit.jupiter.api.MethodDescriptor;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

/**
 * Test methods by name, for ctgls's first verification run. Selected through the configuration
 * parameter {@code junit.jupiter.testmethod.order.default}; never part of an emitted test.
 */
public final class MethodNameOrder implements MethodOrderer {
    static final Comparator<MethodDescriptor> BY_NAME =
            Comparator.comparing((MethodDescriptor d) -> d.getMethod().getName());

    @Override
    public void orderMethods(MethodOrdererContext context) {
        context.getMethodDescriptors().sort(BY_NAME);
    }
}
