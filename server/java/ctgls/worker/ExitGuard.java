package ctgls.worker;

import ctgls.rt.Environment;
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
 * that the worker ends them after the test ({@link Processes}), and tells
 * {@link Environment} every file the test writes or deletes, every connection, look-up and
 * listening socket, and every process: what it needs of its environment. The supervisor starts
 * Java 12-23 with {@code -Djava.security.manager=allow} so that it can be installed there.
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

    /** Allows the exec and notes it, for {@link Processes} and as a need of the environment. */
    @Override
    public void checkExec(String cmd) {
        Processes.execSeen = true;
        Environment.process(cmd);
    }

    // The checks below allow everything; they tell ctgls.rt.Environment what a test needs of
    // its environment, before the JDK tries it (and the sandbox perhaps refuses it). Each is
    // called by the JDK for java.io and NIO alike (FileOutputStream, RandomAccessFile,
    // File.createNewFile/mkdir/renameTo/delete, Files.newOutputStream/createDirectory/delete,
    // Socket.connect, InetAddress look-ups, ServerSocket.bind, ProcessBuilder.start).

    @Override
    public void checkWrite(String file) {
        Environment.file("writes", file);
    }

    @Override
    public void checkDelete(String file) {
        Environment.file("deletes", file);
    }

    @Override
    public void checkConnect(String host, int port) {
        Environment.connect(host, port);
    }

    @Override
    public void checkConnect(String host, int port, Object context) {
        Environment.connect(host, port);
    }

    @Override
    public void checkListen(int port) {
        Environment.listen(port);
    }

    @Override
    public void checkRead(String file) {
        // Reads are everywhere (class loading, the JDK's own files); a refused one is seen by
        // the exception it raises (Environment.refused).
    }

    @Override
    public void checkPermission(Permission perm) {
        if (!allowExit && "setSecurityManager".equals(perm.getName())) {
            throw new SecurityException("ctgls: replacing the security manager is not allowed");
        }
        if (perm instanceof java.net.URLPermission) {
            // java.net.http's client asks for a URLPermission rather than calling checkConnect.
            Environment.url(perm.getName());
        }
    }

    @Override
    public void checkPermission(Permission perm, Object context) {
        checkPermission(perm);
    }
}
