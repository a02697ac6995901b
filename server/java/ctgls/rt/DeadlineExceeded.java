package ctgls.rt;

/**
 * Thrown by {@link Probe} calls in the running test's threads once the test's deadline has passed.
 *
 * <p>It is an {@link Error} so that ordinary {@code catch (Exception e)} blocks in user code do not
 * swallow it; code that catches {@code Throwable} may, but then the next probe throws again.
 */
public final class DeadlineExceeded extends Error {
    private static final long serialVersionUID = 1L;

    public DeadlineExceeded() {
        super("ctgls: test deadline exceeded");
    }
}
