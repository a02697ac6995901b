package ctgls.worker;

import ctgls.rt.Probe;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;

/**
 * Runs a batch of test cases, one at a time, each in a fresh class loader and its own thread
 * group, and streams one "test" event per test before the final reply.
 *
 * <p>Deadline escalation per test: the probes throw DeadlineExceeded once {@link Probe#expire} is
 * called at the deadline; after a grace period the thread is interrupted and, where the JDK still
 * has it (up to Java 19), stopped; a thread that survives all that makes the worker ask the
 * supervisor for a restart and end the batch early.
 */
final class TestRunner {
    private static final long GRACE_MS = 200;
    private final Main main;

    TestRunner(Main main) {
        this.main = main;
    }

    Map<String, Object> execute(Object requestId, Unit unit, Map<String, Object> req) {
        List<Object> tests = Json.arr(req.get("tests"), "tests");
        long timeoutMs = Math.max(1, Json.num(req, "timeoutMs", 1000));
        boolean observe = Json.bool(req, "observe", false);
        int maxGetters = (int) Json.num(req, "maxGetters", 16);
        int outputLimit = (int) Math.min(Integer.MAX_VALUE, Json.num(req, "outputLimit", 16 * 1024));
        long stackBytes = Json.num(req, "stackBytes", 0);
        List<String> underTest = new ArrayList<>();
        for (Object o : Json.arr(req.get("classesUnderTest"), "classesUnderTest")) {
            underTest.add(String.valueOf(o));
        }
        Set<String> project = new HashSet<>(unit.classNames);
        Observer observer = new Observer(observe, maxGetters);
        String restart = null;
        int executed = 0;
        for (int k = 0; k < tests.size(); k++) {
            Map<String, Object> test = Json.obj(tests.get(k), "test " + k);
            List<Object> statements = Json.arr(test.get("statements"), "statements");
            String[] restartOut = new String[1];
            Map<String, Object> result = runOne(unit, statements, observer, project, underTest, timeoutMs,
                    outputLimit, stackBytes, restartOut);
            result.put("index", (long) k);
            main.event(requestId, "test", result);
            executed++;
            if (restartOut[0] != null) {
                restart = restartOut[0];
                break;
            }
        }
        Map<String, Object> done = new LinkedHashMap<>();
        done.put("executed", (long) executed);
        done.put("restart", restart);
        return done;
    }

    private Map<String, Object> runOne(Unit unit, List<Object> statements, Observer observer, Set<String> project,
            List<String> underTest, long timeoutMs, int outputLimit, long stackBytes, String[] restart) {
        Properties savedProperties = (Properties) System.getProperties().clone();
        Locale savedLocale = Locale.getDefault();
        TimeZone savedZone = TimeZone.getDefault();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        InputStream savedIn = System.in;
        Thread.UncaughtExceptionHandler savedHandler = Thread.getDefaultUncaughtExceptionHandler();

        ClassLoader loader = unit.newLoader();
        TestCase tc = new TestCase(statements, loader, observer, project, underTest);
        ThreadGroup group = new ThreadGroup("ctgls-test");
        Thread t = new Thread(group, tc, "ctgls-test", stackBytes);
        t.setDaemon(true);
        t.setContextClassLoader(loader);
        main.out.reset(outputLimit);
        main.err.reset(outputLimit);
        ExitGuard.attempted = null;

        long start = System.nanoTime();
        Probe.beginTest(group);
        t.start();
        boolean timedOut = false;
        join(t, timeoutMs);
        if (t.isAlive()) {
            timedOut = true;
            Probe.expire();
            join(t, GRACE_MS);
        }
        if (t.isAlive()) {
            t.interrupt();
            stop(t);
            join(t, GRACE_MS);
        }
        long micros = (System.nanoTime() - start) / 1000;
        Map<String, Object> trace = Probe.snapshot();
        Probe.endTest();

        int leaked = stopLeakedThreads(group, t);
        boolean testThreadAlive = t.isAlive();

        // Static state of the JDK that tests commonly touch is put back for the next test.
        System.setProperties(savedProperties);
        Locale.setDefault(savedLocale);
        TimeZone.setDefault(savedZone);
        System.setOut(savedOut);
        System.setErr(savedErr);
        System.setIn(savedIn);
        Thread.setDefaultUncaughtExceptionHandler(savedHandler);

        Map<String, Object> r = new LinkedHashMap<>();
        TestCase.End end = tc.end;
        if (timedOut && (end == TestCase.End.OK || end == TestCase.End.TIMEOUT || testThreadAlive)) {
            end = TestCase.End.TIMEOUT;
        }
        r.put("status", statusName(end));
        r.put("failedAt", end == TestCase.End.OK ? null : (Object) (long) Math.max(0, tc.failedAt));
        synchronized (tc.results) {
            r.put("statements", new ArrayList<Object>(tc.results));
        }
        r.put("exception", end == TestCase.End.OK ? null : tc.exception);
        r.put("message", tc.message);
        r.put("exitStatus", end == TestCase.End.SYSTEM_EXIT ? (Object) (long) tc.exitStatus : null);
        r.put("exitAttempted", ExitGuard.attempted == null ? null : (Object) (long) ExitGuard.attempted);
        r.put("trace", trace);
        r.put("stdout", main.out.text());
        r.put("stderr", main.err.text());
        r.put("outputTruncated", main.out.truncated() || main.err.truncated());
        r.put("durationMicros", micros);
        r.put("leakedThreads", (long) leaked);

        if (testThreadAlive) {
            restart[0] = "test thread could not be stopped after its deadline";
        } else if (leaked > 0) {
            restart[0] = leaked + " thread(s) started by a test could not be stopped";
        } else if (end == TestCase.End.OUT_OF_MEMORY && !heapRecovered()) {
            restart[0] = "heap still nearly full after OutOfMemoryError";
        }
        return r;
    }

    private static String statusName(TestCase.End end) {
        switch (end) {
            case OK: return "ok";
            case EXCEPTION: return "exception";
            case INVALID: return "invalid";
            case TIMEOUT: return "timeout";
            case SYSTEM_EXIT: return "systemExit";
            case STACK_OVERFLOW: return "stackOverflow";
            default: return "outOfMemory";
        }
    }

    /** Interrupts and stops the other live threads of the test's group; returns how many survive. */
    private static int stopLeakedThreads(ThreadGroup group, Thread testThread) {
        Thread[] threads = new Thread[group.activeCount() + 16];
        int n = group.enumerate(threads, true);
        List<Thread> live = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            if (threads[k] != testThread && threads[k].isAlive()) {
                live.add(threads[k]);
            }
        }
        if (live.isEmpty()) {
            return 0;
        }
        for (Thread x : live) {
            x.interrupt();
        }
        long until = System.nanoTime() + GRACE_MS * 1_000_000;
        for (Thread x : live) {
            join(x, Math.max(1, (until - System.nanoTime()) / 1_000_000));
        }
        int alive = 0;
        for (Thread x : live) {
            if (x.isAlive()) {
                stop(x);
            }
        }
        until = System.nanoTime() + GRACE_MS * 1_000_000;
        for (Thread x : live) {
            join(x, Math.max(1, (until - System.nanoTime()) / 1_000_000));
            if (x.isAlive()) {
                alive++;
            }
        }
        return alive;
    }

    private static void join(Thread t, long ms) {
        try {
            t.join(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Thread.stop where the running JDK still implements it (it throws from Java 20 on). */
    private static void stop(Thread t) {
        try {
            Thread.class.getMethod("stop").invoke(t);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // Not available: the caller falls back to asking for a restart.
        }
    }

    private static boolean heapRecovered() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        return used < rt.maxMemory() * 0.7;
    }
}
