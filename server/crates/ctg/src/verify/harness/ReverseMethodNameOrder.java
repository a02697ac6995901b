package ctgls.verify;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

/** Test methods by name, backwards: ctgls's second verification run. */
public final class ReverseMethodNameOrder implements MethodOrderer {
    @Override
    public void orderMethods(MethodOrdererContext context) {
        context.getMethodDescriptors().sort(MethodNameOrder.BY_NAME.reversed());
    }
}
