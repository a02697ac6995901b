package ctgls.rt;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.BindException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the running test needed of its environment: files written outside {@code java.io.tmpdir},
 * connections, listening sockets, processes started, and whatever the worker's sandbox refused.
 * A test that needs any of it is not offered as a test (docs/protocol.md, "Environment"): run
 * normally, it would write into the user's files, depend on the network or a program, or fail
 * where the sandbox had refused.
 *
 * <p>Two sources feed it, because neither sees everything:
 *
 * <ul>
 *   <li>Where the worker's security manager is installed (Java 11-23), its checks report every
 *       write, delete, connection, listen and process start of the test's threads before the JDK
 *       attempts it ({@link #file}, {@link #connect}, {@link #listen}, {@link #process}), whether
 *       it then succeeds, is refused or is swallowed by user code, and also operations that
 *       report a refusal by a return value only ({@code File.mkdir()} returning false). A write
 *       to a relative path is one too: it succeeds in the worker's scratch directory but would
 *       land in the user's project when the test runs there.
 *   <li>Everywhere, the exceptions the sandbox's refusals raise are recognised by their errno
 *       text ({@link #refused}): the exception a test ends with, every exception that leaves an
 *       instrumented body ({@link Probe#escaped}) and every exception an instrumented catch clause
 *       catches ({@link Probe#caught}), so a refusal that user code of the classes under test
 *       swallows is seen on Java 24+ as well.
 * </ul>
 *
 * What is missed without the security manager (Java 24+): refusals caught inside code that is
 * not instrumented (a library), refusals reported by a return value only, and writes to relative
 * paths, which the sandbox allows in the scratch directory. Reads are recorded only when refused
 * (an errno text), since the JDK and the tests read files all the time.
 */
public final class Environment {
    /** Distinct needs kept per test. */
    static final int MAX_NEEDS = 16;
    private static final Object LOCK = new Object();
    private static final ArrayList<Need> needs = new ArrayList<>();
    /** {@code java.io.tmpdir}, absolute and normalised: writes beneath it are fine. */
    private static volatile Path tmpdir;
    /** The worker's working directory and home (the scratch directory), for readable targets. */
    private static volatile Path scratch;
    /** Set while a hook records, so that what recording does is not recorded. */
    private static final ThreadLocal<boolean[]> busy = ThreadLocal.withInitial(() -> new boolean[1]);

    private Environment() {}

    /** Called once by the worker at start. */
    public static void configure(String tmp, String scratchDir) {
        tmpdir = normalised(tmp);
        scratch = normalised(scratchDir);
    }

    private static Path normalised(String p) {
        if (p == null) {
            return null;
        }
        try {
            return new File(p).toPath().toAbsolutePath().normalize();
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- observed operations

    /** The test writes or deletes ({@code action}) the file {@code path}, as the JDK was given it. */
    public static void file(String action, String path) {
        // An empty path names no file: the JDK fails on it (ENOENT) in every environment.
        if (path == null || path.isEmpty() || !Probe.inTest() || !enter()) {
            return;
        }
        try {
            File f = new File(path);
            Path p = f.toPath().toAbsolutePath().normalize();
            Path tmp = tmpdir;
            if (tmp != null && p.startsWith(tmp) || p.startsWith("/dev") || p.startsWith("/proc/self")) {
                return;
            }
            String target;
            Path home = scratch;
            if (!f.isAbsolute()) {
                target = path + " (relative to the working directory)";
            } else if (home != null && p.startsWith(home)) {
                target = "<working or home directory>/" + home.relativize(p);
            } else {
                target = p.toString();
            }
            add("file", action, target, false, null, new Throwable().getStackTrace());
        } catch (RuntimeException e) {
            // An invalid path: the JDK refuses it on its own, without the environment.
        } finally {
            leave();
        }
    }

    /** A connection ({@code port >= 0}) or a name look-up ({@code port == -1}). */
    public static void connect(String host, int port) {
        if (host == null || !Probe.inTest() || !enter()) {
            return;
        }
        try {
            if (port < 0) {
                // Looking up "localhost" or an address literal reads /etc/hosts at most.
                if (host.equals("localhost") || isAddressLiteral(host)) {
                    return;
                }
                add("network", "resolves", host, false, null, new Throwable().getStackTrace());
            } else {
                String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
                add("network", "connects to", h + ":" + port, false, null, new Throwable().getStackTrace());
            }
        } finally {
            leave();
        }
    }

    /** A socket listening on {@code port} (0: any free port). */
    public static void listen(int port) {
        if (!Probe.inTest() || !enter()) {
            return;
        }
        try {
            add("network", "listens on", port == 0 ? "a free port" : "port " + port, false, null,
                    new Throwable().getStackTrace());
        } finally {
            leave();
        }
    }

    /** A URL an HTTP client of the JDK ({@code java.net.http}) is about to open. */
    public static void url(String url) {
        if (url == null || !Probe.inTest() || !enter()) {
            return;
        }
        try {
            add("network", "connects to", url, false, null, new Throwable().getStackTrace());
        } finally {
            leave();
        }
    }

    /** A process about to start: {@code command} is the program as the test named it. */
    public static void process(String command) {
        if (command == null || !Probe.inTest() || !enter()) {
            return;
        }
        try {
            add("process", "starts", command, false, null, new Throwable().getStackTrace());
        } finally {
            leave();
        }
    }

    private static boolean isAddressLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int k = 0; k < host.length(); k++) {
            char c = host.charAt(k);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !host.isEmpty();
    }

    // ---------------------------------------------------------------- refusals by their errno text

    /** How many causes are looked at: user code can chain exceptions into a cycle. */
    private static final int MAX_CAUSES = 8;

    /**
     * Records {@code thrown}, or one of its causes, when it is what the sandbox's refusals raise:
     * EACCES, EPERM or EROFS on a file (Landlock), a name look-up or connection that found no
     * network (the private network namespace), a refused bind, a program that could not start.
     * Never throws: user exceptions may override {@code getCause} and {@code getMessage}, so
     * only JDK exception classes are asked for their message.
     */
    public static void refused(Throwable thrown) {
        if (thrown == null || !Probe.inTest() || !enter()) {
            return;
        }
        try {
            Throwable c = thrown;
            for (int depth = 0; c != null && depth < MAX_CAUSES; depth++) {
                if (c instanceof IOException && c.getClass().getClassLoader() == null) {
                    classify((IOException) c);
                }
                Throwable next = c.getCause();
                if (next == c) {
                    break;
                }
                c = next;
            }
        } catch (Throwable e) {
            // A user exception's getCause threw, or recording failed: the record is lost only.
        } finally {
            leave();
        }
    }

    private static void classify(IOException e) {
        String message = e.getMessage();
        String detail = e.getClass().getName() + (message == null ? "" : ": " + message);
        StackTraceElement[] frames = e.getStackTrace();
        if (e instanceof FileNotFoundException && message != null) {
            // "<path> (Permission denied)", as java.io's open0 reports an errno.
            int open = message.lastIndexOf(" (");
            if (open > 0 && message.endsWith(")") && isRefusal(message.substring(open + 2, message.length() - 1))) {
                add("file", fileAction(frames), message.substring(0, open), true, detail, frames);
            }
        } else if (e instanceof AccessDeniedException) {
            String file = ((AccessDeniedException) e).getFile();
            add("file", "accesses", file == null ? "a file" : file, true, detail, frames);
        } else if (e instanceof FileSystemException) {
            FileSystemException f = (FileSystemException) e;
            if (f.getReason() != null && isRefusal(f.getReason())) {
                add("file", "accesses", f.getFile() == null ? "a file" : f.getFile(), true, detail, frames);
            }
        } else if (e instanceof UnknownHostException) {
            String host = message == null ? "a host" : message.split(":", 2)[0];
            add("network", "resolves", host, true, detail, frames);
        } else if (e instanceof BindException || e instanceof SocketException && message != null && isNetworkRefusal(message)) {
            // Landlock's refusal of a TCP connect (EACCES) surfaces as a BindException too.
            if (jdkCalled(frames, "connect")) {
                add("network", "connects to", "a network address", true, detail, frames);
            } else {
                add("network", "listens on", "a port", true, detail, frames);
            }
        } else if (message != null && message.startsWith("Cannot run program \"")) {
            int end = message.indexOf('"', 20);
            add("process", "starts", end > 20 ? message.substring(20, end) : "a program", true, detail, frames);
        } else if (message != null && isRefusal(message)) {
            // File.createNewFile and File.createTempFile say only the errno, not the path.
            add("file", fileAction(frames), "a file (" + jdkCaller(frames) + ")", true, detail, frames);
        }
    }

    private static boolean isRefusal(String reason) {
        return reason.equals("Permission denied") || reason.equals("Operation not permitted")
                || reason.equals("Read-only file system");
    }

    private static boolean isNetworkRefusal(String message) {
        return message.contains("Network is unreachable") || message.contains("Permission denied")
                || message.contains("Operation not permitted") || message.contains("Network is down")
                || message.contains("Protocol family unavailable")
                || message.contains("Address family not supported")
                || message.contains("Cannot assign requested address");
    }

    /** What a java.io refusal was doing, from the JDK frames on top of its stack. */
    private static String fileAction(StackTraceElement[] frames) {
        for (StackTraceElement f : frames) {
            String c = f.getClassName();
            if (c.equals("java.io.FileOutputStream") || c.equals("java.io.File") && !f.getMethodName().startsWith("list")
                    || c.equals("java.io.UnixFileSystem") && f.getMethodName().startsWith("create")) {
                return "writes";
            }
            if (c.equals("java.io.FileInputStream")) {
                return "reads";
            }
            if (!c.startsWith("java.") && !c.startsWith("sun.") && !c.startsWith("jdk.")) {
                break;
            }
        }
        return "opens";
    }

    /** Whether a JDK frame on top of the stack, before the caller's own code, is a {@code method}. */
    private static boolean jdkCalled(StackTraceElement[] frames, String method) {
        for (StackTraceElement f : frames) {
            String c = f.getClassName();
            if (!c.startsWith("java.") && !c.startsWith("sun.") && !c.startsWith("jdk.")) {
                return false;
            }
            if (f.getMethodName().equals(method)) {
                return true;
            }
        }
        return false;
    }

    /** The last JDK method before the caller's own code, e.g. {@code java.io.File.createNewFile}. */
    private static String jdkCaller(StackTraceElement[] frames) {
        String last = "a JDK method";
        for (StackTraceElement f : frames) {
            String c = f.getClassName();
            if (!c.startsWith("java.") && !c.startsWith("sun.") && !c.startsWith("jdk.")) {
                break;
            }
            last = c + "." + f.getMethodName();
        }
        return last;
    }

    // ---------------------------------------------------------------- the test's records

    private static boolean enter() {
        boolean[] b = busy.get();
        if (b[0]) {
            return false;
        }
        b[0] = true;
        return true;
    }

    private static void leave() {
        busy.get()[0] = false;
    }

    private static void add(String kind, String action, String target, boolean refused, String detail,
            StackTraceElement[] frames) {
        long at = Probe.locate(frames);
        // A refusal whose exception does not name its target ("a network address", "a file")
        // is the refusal of the attempt the security manager saw with one, when it saw one.
        boolean unnamed = refused && target.startsWith("a ");
        synchronized (LOCK) {
            for (Need n : needs) {
                if (n.action.equals(action) && (n.target.equals(target) || unnamed && n.kind.equals(kind))) {
                    if (refused && !n.refused) {
                        n.refused = true;
                        n.detail = detail;
                    }
                    return;
                }
            }
            if (needs.size() < MAX_NEEDS) {
                needs.add(new Need(kind, action, target, refused, detail, at));
            }
        }
    }

    /** Forgets the previous test's records (called by {@link Probe#beginTest}). */
    static void clear() {
        synchronized (LOCK) {
            needs.clear();
        }
    }

    /** The running test's records as JSON-ready maps (docs/protocol.md, "Environment"). */
    public static List<Object> snapshot() {
        synchronized (LOCK) {
            List<Object> out = new ArrayList<>(needs.size());
            for (Need n : needs) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("kind", n.kind);
                m.put("action", n.action);
                m.put("target", n.target);
                m.put("refused", n.refused);
                m.put("detail", n.detail);
                String file = n.at < 0 ? null : Probe.slotKeyOf((int) (n.at >>> 32));
                m.put("file", file);
                m.put("line", file == null || (int) n.at <= 0 ? null : (Object) (long) (int) n.at);
                out.add(m);
            }
            return out;
        }
    }

    private static final class Need {
        final String kind;
        final String action;
        final String target;
        boolean refused;
        String detail;
        /** Slot and line of the top frame in an instrumented file ({@link Probe#locate}), or -1. */
        final long at;

        Need(String kind, String action, String target, boolean refused, String detail, long at) {
            this.kind = kind;
            this.action = action;
            this.target = target;
            this.refused = refused;
            this.detail = detail;
            this.at = at;
        }
    }
}
