package ctgls.worker;

import ctgls.rt.Probe;
import ctgls.worker.Unit.TestLoader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;

/**
 * Runs a batch of test cases, one at a time, each in its thread group and a class loader that no
 * earlier test can have left state in, and streams one "test" event per test before the final
 * reply.
 *
 * <p>The thread ({@link TestThread}) and the class loader ({@link Loaders}) are reused from test to
 * test when that cannot be observed; JDK-wide state is put back after every test ({@link JdkState}).
 *
 * <p>Deadline escalation per test: the probes throw DeadlineExceeded once {@link Probe#expire} is
 * called at the deadline; after a grace period the thread is interrupted and, where the JDK still
 * has it (up to Java 19), stopped; a thread that survives all that makes the worker ask the
 * supervisor for a restart and end the batch early. A thread that missed a deadline is never
 * reused.
 */
final class TestRunner {
    private static final long GRACE_MS = 200;
    private final Main main;
    private TestThread thread;
    /** Live threads outside the test group after the previous test (see {@link #startedOutsideGroup}). */
    private Set<Thread> knownThreads = new HashSet<>();

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
        boolean freshLoaders = Json.bool(req, "freshLoaders", false);
        List<String> underTest = new ArrayList<>();
        for (Object o : Json.arr(req.get("classesUnderTest"), "classesUnderTest")) {
            underTest.add(String.valueOf(o));
        }
        Set<String> project = new HashSet<>(unit.classNames);
        Observer observer = new Observer(observe, maxGetters);
        JdkState jdk = JdkState.save();
        // Threads that started between batches are not a test's doing.
        knownThreads = threadsOutside(thread == null ? null : thread.group);
        String restart = null;
        int executed = 0;
        for (int k = 0; k < tests.size(); k++) {
            Map<String, Object> test = Json.obj(tests.get(k), "test " + k);
            List<Object> statements = Json.arr(test.get("statements"), "statements");
            String[] restartOut = new String[1];
            Map<String, Object> result = runOne(unit, statements, observer, project, underTest, timeoutMs,
                    outputLimit, stackBytes, freshLoaders, jdk, restartOut);
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

    /** The thread for the next test: the current one when it can serve another test. */
    private TestThread thread(long stackBytes) {
        if (thread != null && (thread.stackBytes != stackBytes || !thread.healthy())) {
            thread.retire(GRACE_MS);
            thread = null;
        }
        if (thread == null) {
            thread = new TestThread(stackBytes);
        }
        return thread;
    }

    private Map<String, Object> runOne(Unit unit, List<Object> statements, Observer observer, Set<String> project,
            List<String> underTest, long timeoutMs, int outputLimit, long stackBytes, boolean freshLoaders,
            JdkState jdk, String[] restart) {
        boolean reused = !freshLoaders && unit.loaders.hasKept();
        TestLoader loader = unit.loaders.acquire(freshLoaders);
        TestCase tc = new TestCase(statements, loader, observer, project, underTest);
        TestThread tt = thread(stackBytes);
        main.out.reset(outputLimit);
        main.err.reset(outputLimit);
        ExitGuard.attempted = null;

        long start = System.nanoTime();
        Probe.beginTest(tt.group);
        tt.submit(tc, loader);
        boolean timedOut = false;
        boolean finished = tt.await(timeoutMs);
        if (!finished) {
            timedOut = true;
            Probe.expire();
            finished = tt.await(GRACE_MS);
        }
        if (!finished) {
            tt.interrupt();
            tt.stop();
            finished = tt.await(GRACE_MS);
        }
        long micros = (System.nanoTime() - start) / 1000;
        Map<String, Object> trace = Probe.snapshot();
        Probe.endTest();

        int leaked = stopLeakedThreads(tt);
        boolean testThreadAlive = !finished;
        if (timedOut || !tt.healthy()) {
            // A thread that missed its deadline may have swallowed a ThreadDeath: never reuse it.
            testThreadAlive |= !tt.retire(GRACE_MS);
            thread = null;
        }
        jdk.restore();

        Map<String, Object> r = new LinkedHashMap<>();
        TestCase.End end = tc.end;
        if (timedOut && (end == TestCase.End.OK || end == TestCase.End.TIMEOUT || testThreadAlive)) {
            end = TestCase.End.TIMEOUT;
        }
        String dropped = null;
        if (freshLoaders) {
            unit.loaders.drop();
        } else if (end != TestCase.End.OK && end != TestCase.End.EXCEPTION && end != TestCase.End.INVALID) {
            unit.loaders.drop();
            dropped = "the test ended with " + statusName(end);
        } else if (timedOut || testThreadAlive || leaked > 0) {
            unit.loaders.drop();
            dropped = "a thread of the test outlived it";
        } else if (startedOutsideGroup(tt)) {
            // Such a thread escapes the leaked-thread check and could touch the classes later.
            unit.loaders.drop();
            dropped = "a thread outside the test's thread group started during the test";
        } else if (!commonPoolIdle()) {
            unit.loaders.drop();
            dropped = "a task of the test may still run in the common ForkJoinPool";
        } else {
            dropped = unit.loaders.release(loader);
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
        r.put("freshLoader", !reused);
        r.put("loaderDropped", dropped);

        if (testThreadAlive) {
            restart[0] = "test thread could not be stopped after its deadline";
        } else if (leaked > 0) {
            restart[0] = leaked + " thread(s) started by a test could not be stopped";
        } else if (end == TestCase.End.OUT_OF_MEMORY && !heapRecovered()) {
            restart[0] = "heap still nearly full after OutOfMemoryError";
        }
        return r;
    }

    /**
     * Whether a live thread outside the test's group appeared since the last test (a test can
     * start one in another group, and the JDK starts some on a test's behalf, e.g. common pool
     * workers). Threads that are still alive are remembered, so each counts once.
     */
    private boolean startedOutsideGroup(TestThread tt) {
        Set<Thread> now = threadsOutside(tt.group);
        boolean appeared = !knownThreads.containsAll(now);
        knownThreads = now;
        return appeared;
    }

    /** The live threads of the JVM outside {@code testGroup}. */
    private static Set<Thread> threadsOutside(ThreadGroup testGroup) {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] all = new Thread[root.activeCount() + 16];
        int n = root.enumerate(all, true);
        Set<Thread> out = new HashSet<>();
        for (int k = 0; k < n; k++) {
            ThreadGroup g = all[k].getThreadGroup();
            if (testGroup == null || g == null || !testGroup.parentOf(g)) {
                out.add(all[k]);
            }
        }
        return out;
    }

    /** No task of the common pool runs or waits (one a test submitted could touch its classes). */
    private static boolean commonPoolIdle() {
        ForkJoinPool pool = ForkJoinPool.commonPool();
        return pool.isQuiescent() && !pool.hasQueuedSubmissions();
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
    private static int stopLeakedThreads(TestThread tt) {
        ThreadGroup group = tt.group;
        Thread[] threads = new Thread[group.activeCount() + 16];
        int n = group.enumerate(threads, true);
        List<Thread> live = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            if (!tt.is(threads[k]) && threads[k].isAlive()) {
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
    static void stop(Thread t) {
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
