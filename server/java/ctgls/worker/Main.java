package ctgls.worker;

import ctgls.rt.Environment;
import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JVM worker: reads one JSON request per line and writes one JSON message per line
 * (docs/protocol.md). Requests are handled one at a time on the main thread.
 */
public final class Main {
    static final int PROTOCOL_VERSION = 1;

    private final OutputStream protoOut;
    private final Json.Out sendBuffer = new Json.Out();
    final Capture out = new Capture();
    final Capture err = new Capture();
    private final Compiler compiler = new Compiler();
    private final TestRunner runner;
    private boolean exitBlocking;

    private Main(OutputStream protoOut) {
        this.protoOut = protoOut;
        this.runner = new TestRunner(this);
    }

    public static void main(String[] args) throws Exception {
        int inFd = -1;
        int outFd = -1;
        boolean blockExit = true;
        for (int k = 0; k < args.length; k++) {
            if ("--in-fd".equals(args[k]) && k + 1 < args.length) {
                inFd = Integer.parseInt(args[++k]);
            } else if ("--out-fd".equals(args[k]) && k + 1 < args.length) {
                outFd = Integer.parseInt(args[++k]);
            } else if ("--no-exit-guard".equals(args[k])) {
                blockExit = false;
            }
        }
        // The protocol channel is private: the supervisor passes it as extra descriptors, so user
        // code printing to System.out, or even writing to FileDescriptor.out, cannot reach it.
        InputStream in = inFd >= 0 ? new FileInputStream(descriptor(inFd)) : new FileInputStream(FileDescriptor.in);
        OutputStream rawOut = outFd >= 0 ? new FileOutputStream(descriptor(outFd)) : new FileOutputStream(FileDescriptor.out);
        Main m = new Main(rawOut);
        // Before System.err is captured: a JDK warning about sun.misc.Unsafe belongs to the worker.
        TestThread.prepare();
        System.setOut(new Capture.Stream(m.out));
        System.setErr(new Capture.Stream(m.err));
        System.setIn(new ByteArrayInputStream(new byte[0]));
        // What a test writes beneath java.io.tmpdir is its own; beneath the working directory
        // (the scratch directory, also user.home) it would be the user's project when run there.
        Environment.configure(System.getProperty("java.io.tmpdir"), System.getProperty("user.dir"));
        if (blockExit) {
            m.exitBlocking = ExitGuard.install();
        }
        watchParent();
        m.loop(in);
    }

    /** A FileDescriptor for an inherited descriptor number; needs --add-opens java.base/java.io. */
    private static FileDescriptor descriptor(int fd) throws ReflectiveOperationException {
        FileDescriptor d = new FileDescriptor();
        Field f = FileDescriptor.class.getDeclaredField("fd");
        f.setAccessible(true);
        f.setInt(d, fd);
        return d;
    }

    /** Ends the worker when the supervisor dies (the worker is re-parented), even mid-test. */
    private static void watchParent() {
        final long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                if (now != parent) {
                    ExitGuard.exitWorker(70);
                }
            }
        }, "ctgls-parent-watch");
        t.setDaemon(true);
        t.start();
    }

    private void loop(InputStream in) {
        Lines r = new Lines(in);
        while (true) {
            try {
                if (!r.next()) {
                    break;
                }
            } catch (IOException e) {
                break;
            }
            if (r.start == r.end) {
                continue;
            }
            Object id = null;
            try {
                Map<String, Object> req = Json.obj(Json.parse(r.buf, r.start, r.end), "request");
                id = req.get("id");
                String op = Json.str(req, "op");
                switch (op) {
                    case "hello":
                        reply(id, hello());
                        break;
                    case "compile":
                        reply(id, compiler.compile(req));
                        break;
                    case "saveCompileCache":
                        reply(id, compiler.saveCache(req));
                        break;
                    case "writeClasses":
                        reply(id, compiler.unit(Json.str(req, "unit")).writeClasses(Json.str(req, "dir")));
                        break;
                    case "describe":
                        reply(id, new Describer(compiler.unit(Json.str(req, "unit"))).describe(req));
                        break;
                    case "execute":
                        Map<String, Object> done = runner.execute(id, compiler.unit(Json.str(req, "unit")), req);
                        reply(id, done);
                        break;
                    case "shutdown":
                        reply(id, new LinkedHashMap<>());
                        ExitGuard.exitWorker(0);
                        break;
                    default:
                        fail(id, "badRequest", "unknown op '" + op + "'");
                }
            } catch (Compiler.UnknownUnit e) {
                fail(id, "unknownUnit", e.getMessage());
            } catch (IllegalArgumentException e) {
                fail(id, "badRequest", e.getMessage());
            } catch (OutOfMemoryError e) {
                // The heap may be too damaged to continue: tell the supervisor and leave.
                fail(id, "unhealthy", "OutOfMemoryError in the worker");
                ExitGuard.exitWorker(3);
            } catch (Throwable e) {
                fail(id, "internal", e.toString());
            }
        }
        ExitGuard.exitWorker(0);
    }

    private Map<String, Object> hello() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("protocol", (long) PROTOCOL_VERSION);
        m.put("java", System.getProperty("java.version"));
        m.put("javaFeature", (long) Runtime.version().feature());
        m.put("exitBlocking", exitBlocking);
        m.put("pid", ProcessHandle.current().pid());
        return m;
    }

    void reply(Object id, Map<String, Object> body) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("ok", Boolean.TRUE);
        m.putAll(body);
        send(m);
    }

    /**
     * The request channel's lines as UTF-8 bytes, without decoding them (the JSON parser reads
     * bytes): {@link #buf}{@code [start, end)} is the current line, without its terminator.
     */
    static final class Lines {
        private final InputStream in;
        byte[] buf = new byte[1 << 16];
        int start;
        int end;
        /** Where the next line starts and where the buffered bytes end. */
        private int next;
        private int filled;

        Lines(InputStream in) {
            this.in = in;
        }

        /** Moves to the next line; false at the end of the stream (a last unterminated line counts). */
        boolean next() throws IOException {
            int scanFrom = next;
            while (true) {
                for (int k = scanFrom; k < filled; k++) {
                    if (buf[k] == '\n') {
                        start = next;
                        end = k > start && buf[k - 1] == '\r' ? k - 1 : k;
                        next = k + 1;
                        return true;
                    }
                }
                scanFrom = filled;
                if (next > 0) {
                    // Keep the unfinished line at the front of the buffer.
                    System.arraycopy(buf, next, buf, 0, filled - next);
                    scanFrom -= next;
                    filled -= next;
                    next = 0;
                }
                if (filled == buf.length) {
                    buf = java.util.Arrays.copyOf(buf, buf.length * 2);
                }
                int n = in.read(buf, filled, buf.length - filled);
                if (n < 0) {
                    if (filled > next) {
                        start = next;
                        end = filled;
                        next = filled;
                        return true;
                    }
                    return false;
                }
                filled += n;
            }
        }
    }

    /** A streamed event belonging to request {@code id}, before its final reply. */
    void event(Object id, String kind, Map<String, Object> body) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("event", kind);
        m.putAll(body);
        send(m);
    }

    private void fail(Object id, String kind, String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("ok", Boolean.FALSE);
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("kind", kind);
        e.put("message", message == null ? "" : message);
        m.put("error", e);
        send(m);
    }

    private synchronized void send(Map<String, Object> m) {
        Json.Out b = sendBuffer;
        b.reset();
        Json.write(b, m);
        b.put('\n');
        try {
            // One write per message: a result must reach the supervisor before the next test
            // runs, since that test may end the process.
            protoOut.write(b.buf, 0, b.size);
            protoOut.flush();
        } catch (IOException e) {
            // The supervisor is gone.
            ExitGuard.exitWorker(71);
        }
    }
}
