package ctgls.worker;

import java.security.Permission;

/**
 * Turns System.exit / Runtime.halt inside a test into an {@link ExitRequested} exception.
 *
 * <p>Installing a SecurityManager works on Java 11-17 (17 prints a deprecation warning, which
 * goes to the captured stderr). Java 18+ refuses it unless started with
 * -Djava.security.manager=allow and Java 24+ refuses it always: then install() returns false,
 * an exit really ends the worker and the supervisor reports the crash with its exit code.
 *
 * <p>Where it is installed it also notes every process a test starts ({@link #checkExec}), so
 * that the worker ends them after the test ({@link Processes}).
 */
final class ExitGuard extends SecurityManager {
    /** Set by the worker right before it ends itself on purpose. */
    static volatile boolean allowExit;
    /** Status of the last blocked exit attempt during the current test, or null. */
    static volatile Integer attempted;
    private static boolean installed;

    static final class ExitRequested extends SecurityException {
        private static final long serialVersionUID = 1L;
        final int status;

        ExitRequested(int status) {
            super("ctgls: System.exit(" + status + ") blocked");
            this.status = status;
        }
    }

    static boolean install() {
        try {
            System.setSecurityManager(new ExitGuard());
            installed = true;
        } catch (UnsupportedOperationException | SecurityException e) {
            installed = false;
        }
        return installed;
    }

    static boolean installed() {
        return installed;
    }

    /** Ends the worker process, bypassing the guard. */
    static void exitWorker(int status) {
        allowExit = true;
        Runtime.getRuntime().halt(status);
    }

    @Override
    public void checkExit(int status) {
        if (!allowExit) {
            attempted = status;
            throw new ExitRequested(status);
        }
    }

    /** Allows the exec and notes it. */
    @Override
    public void checkExec(String cmd) {
        Processes.execSeen = true;
    }

    @Override
    public void checkPermission(Permission perm) {
        if (!allowExit && "setSecurityManager".equals(perm.getName())) {
            throw new SecurityException("ctgls: replacing the security manager is not allowed");
        }
    }

    @Override
    public void checkPermission(Permission perm, Object context) {
        checkPermission(perm);
    }
}
