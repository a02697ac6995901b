package ctgls.worker;

import ctgls.rt.Environment;
import ctgls.rt.Mutants;
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
 * Runs a batch of test cases, one at a time, each in the test thread group and a class loader
 * that no earlier test can have left state in, and streams one "test" event per test before the
 * final reply.
 *
 * <p>The test thread ({@link TestThread}) runs the whole batch: it prepares each test, runs its
 * statements, reports it and goes on, so a test costs no hand-over between threads. The main
 * thread only watches the deadlines: it sleeps until the running test's deadline and looks again.
 * The class loader ({@link Loaders}) is reused from test to test when that cannot be observed;
 * JDK-wide state is put back after every test ({@link JdkState}).
 *
 * <p>Deadline escalation per test: the probes throw DeadlineExceeded once {@link Probe#expire} is
 * called at the deadline; after a grace period the main thread takes the test over (the test
 * thread will report nothing more), interrupts the test thread and, where the JDK still has it (up
 * to Java 19), stops it, and reports the test itself; a thread that survives all that makes the
 * worker ask the supervisor for a restart and end the batch early. A thread that missed a deadline
 * never runs another test: the rest of the batch goes on in a new one.
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
        Batch b = new Batch(requestId, unit, req);
        // Threads that started between batches are not a test's doing.
        knownThreads = threadsOutside(thread == null ? null : thread.group);
        while (b.next < b.tests.size() && b.restart == null && b.failure == null) {
            TestThread tt = thread(b.stackBytes);
            b.start(tt);
            tt.submit(b, null);
            watch(b, tt);
            if (b.state != Batch.DONE) {
                // The thread missed a deadline or could not be renewed: the rest runs in a new one.
                boolean gone = tt.retire(GRACE_MS);
                thread = null;
                if (!gone && b.restart == null) {
                    b.restart = "test thread could not be stopped after its deadline";
                }
            }
        }
        if (b.failure != null) {
            throw new IllegalStateException("worker failure in the test thread: " + b.failure, b.failure);
        }
        Map<String, Object> done = new LinkedHashMap<>();
        done.put("executed", (long) b.executed);
        done.put("restart", b.restart);
        return done;
    }

    /** The thread for the next tests: the current one when it can serve more. */
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

    /**
     * The main thread's part: sleeps until the running test's deadline, escalates when a test
     * misses it, and returns when the test thread finished the batch or handed it back.
     */
    private void watch(Batch b, TestThread tt) {
        synchronized (b) {
            while (b.state != Batch.DONE && b.state != Batch.HANDED_BACK) {
                if (b.state != Batch.RUNNING) {
                    b.await(b.timeoutMs * 1_000_000L);
                    continue;
                }
                long left = b.deadline - System.nanoTime();
                if (left > 0) {
                    b.await(left);
                    continue;
                }
                // The running test missed its deadline: make the probes throw.
                int k = b.current;
                b.timedOut = true;
                Probe.expire();
                long until = System.nanoTime() + GRACE_MS * 1_000_000L;
                while (b.state == Batch.RUNNING && b.current == k && System.nanoTime() < until) {
                    b.await(until - System.nanoTime());
                }
                if (b.state == Batch.RUNNING && b.current == k) {
                    // Still running: take the test over; the test thread reports nothing more.
                    b.state = Batch.TAKEN_OVER;
                    break;
                }
                // It ended within the grace period and reports itself, then hands the batch back.
            }
        }
        if (b.state == Batch.TAKEN_OVER) {
            tt.interrupt();
            tt.stop();
            tt.await(GRACE_MS);
            b.finish(b.running, true);
            b.state = Batch.HANDED_BACK;
        }
    }

    /** One execute request: its options, its tests, and where the test thread is in them. */
    private final class Batch implements Runnable {
        static final int IDLE = 0;
        static final int RUNNING = 1;
        static final int REPORTING = 2;
        static final int HANDED_BACK = 3;
        static final int DONE = 4;
        static final int TAKEN_OVER = 5;

        final Object requestId;
        final Unit unit;
        final List<Object> tests;
        final long timeoutMs;
        final int outputLimit;
        final long stackBytes;
        final boolean freshLoaders;
        /** The mutant switched on for every test (docs/protocol.md, "execute"), or null. */
        final String mutantKey;
        final int mutantId;
        final List<String> underTest = new ArrayList<>();
        final Set<String> project;
        final Observer observer;
        private JdkState jdk;
        private TestThread tt;

        // Guarded by this.
        int state = IDLE;
        int current = -1;
        long deadline;
        boolean timedOut;
        /** The index of the next test to run. */
        int next;
        int executed;
        String restart;
        Throwable failure;
        /** The test the main thread took over, with what the test thread had set up. */
        Running running;

        Batch(Object requestId, Unit unit, Map<String, Object> req) {
            this.requestId = requestId;
            this.unit = unit;
            tests = Json.arr(req.get("tests"), "tests");
            timeoutMs = Math.max(1, Json.num(req, "timeoutMs", 1000));
            boolean observe = Json.bool(req, "observe", false);
            int maxGetters = (int) Json.num(req, "maxGetters", 16);
            outputLimit = (int) Math.min(Integer.MAX_VALUE, Json.num(req, "outputLimit", 16 * 1024));
            stackBytes = Json.num(req, "stackBytes", 0);
            Object mutant = req.get("mutant");
            if (mutant != null) {
                Map<String, Object> m = Json.obj(mutant, "mutant");
                mutantKey = String.valueOf(m.get("key"));
                mutantId = (int) Json.num(m, "id", -1);
            } else {
                mutantKey = null;
                mutantId = -1;
            }
            // A mutant's static state must not reach the original's tests, nor the reverse.
            freshLoaders = mutantKey != null || Json.bool(req, "freshLoaders", false);
            for (Object o : Json.arr(req.get("classesUnderTest"), "classesUnderTest")) {
                underTest.add(String.valueOf(o));
            }
            project = new HashSet<>(unit.classNames);
            Object testPackage = req.get("testPackage");
            observer = new Observer(observe, maxGetters, testPackage instanceof String ? (String) testPackage : null,
                    (int) Json.num(req, "release", 0));
            for (int k = 0; k < tests.size(); k++) {
                Json.arr(Json.obj(tests.get(k), "test " + k).get("statements"), "statements");
            }
        }

        synchronized void start(TestThread thread) {
            tt = thread;
            state = IDLE;
            timedOut = false;
        }

        /** Waits on this batch for up to {@code nanos} (the main thread, holding the lock). */
        void await(long nanos) {
            long ms = Math.max(1, (nanos + 999_999L) / 1_000_000L);
            try {
                wait(ms);
            } catch (InterruptedException e) {
                // Only user code would interrupt the main thread; the deadlines still hold.
            }
        }

        @Override
        public void run() {
            try {
                if (jdk == null) {
                    jdk = JdkState.save();
                }
                while (true) {
                    Running r;
                    synchronized (this) {
                        if (next >= tests.size()) {
                            state = DONE;
                            notifyAll();
                            return;
                        }
                        r = prepare(next);
                        current = next;
                        deadline = System.nanoTime() + timeoutMs * 1_000_000L;
                        state = RUNNING;
                    }
                    r.start = System.nanoTime();
                    Probe.beginTest(tt.group, r.initialisedSlots);
                    r.test.run();
                    boolean late;
                    synchronized (this) {
                        if (state == TAKEN_OVER) {
                            return; // the main thread reports this test
                        }
                        state = REPORTING;
                        late = timedOut;
                    }
                    finish(r, late);
                    boolean renewed = tt.renew();
                    synchronized (this) {
                        if (restart != null) {
                            state = DONE;
                            notifyAll();
                            return;
                        }
                        if (late || !renewed) {
                            state = HANDED_BACK;
                            notifyAll();
                            return;
                        }
                        state = IDLE;
                    }
                }
            } catch (Throwable e) {
                synchronized (this) {
                    if (state != TAKEN_OVER) {
                        failure = e;
                        state = DONE;
                        notifyAll();
                    }
                }
            }
        }

        /** Sets test {@code k} up on the test thread. */
        private Running prepare(int k) {
            Map<String, Object> test = Json.obj(tests.get(k), "test " + k);
            List<Object> statements = Json.arr(test.get("statements"), "statements");
            Running r = new Running();
            r.index = k;
            r.reused = !freshLoaders && unit.loaders.hasKept();
            r.initialisedSlots = r.reused ? unit.loaders.initialisedSlots() : null;
            r.loader = unit.loaders.acquire(freshLoaders);
            if (mutantKey != null) {
                Mutants.activate(mutantKey, mutantId);
            } else {
                Mutants.deactivate();
            }
            r.test = new TestCase(statements, r.loader, observer, project, underTest);
            Thread.currentThread().setContextClassLoader(r.loader);
            main.out.reset(outputLimit);
            main.err.reset(outputLimit);
            ExitGuard.attempted = null;
            running = r;
            return r;
        }

        /**
         * Reports test {@code r}: on the test thread after the test, or on the main thread when it
         * took the test over. {@code late}: the test missed its deadline.
         */
        void finish(Running r, boolean late) {
            long micros = (System.nanoTime() - r.start) / 1000;
            // The test may have interrupted its thread; the waits below must still wait.
            Thread.interrupted();
            Map<String, Object> trace = Probe.snapshot();
            // Before anything below records a class initialisation, which clears the records.
            List<Object> environment = Environment.snapshot();
            Probe.endTest();
            Mutants.deactivate();
            boolean stuck = state == TAKEN_OVER && tt.running();
            int leaked = stopLeakedThreads(tt);
            // After its threads are stopped, so none of them starts another.
            boolean lastOfBatch = r.index == tests.size() - 1;
            int processesKilled = Processes.mayHaveStarted(lastOfBatch) ? Processes.killDescendants() : 0;
            if (jdk == null) {
                jdk = JdkState.save();
            }
            jdk.restore();
            InputEnvironment.endTest();
            TestCase tc = r.test;
            TestCase.End end = tc.end;
            if (late && (end == TestCase.End.OK || end == TestCase.End.TIMEOUT || stuck)) {
                end = TestCase.End.TIMEOUT;
            }
            String dropped = null;
            String outsider;
            if (freshLoaders) {
                unit.loaders.drop();
            } else if (end != TestCase.End.OK && end != TestCase.End.EXCEPTION && end != TestCase.End.INVALID) {
                unit.loaders.drop();
                dropped = "the test ended with " + statusName(end);
            } else if (late || leaked > 0) {
                unit.loaders.drop();
                dropped = "a thread of the test outlived it";
            } else if ((outsider = startedOutsideGroup(tt)) != null) {
                // Such a thread escapes the leaked-thread check and could touch the classes later.
                unit.loaders.drop();
                dropped = "a thread outside the test's thread group started during the test (" + outsider + ")";
            } else if (!commonPoolIdle()) {
                unit.loaders.drop();
                dropped = "a task of the test may still run in the common ForkJoinPool";
            } else {
                dropped = unit.loaders.release(r.loader);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("status", statusName(end));
            m.put("failedAt", end == TestCase.End.OK ? null : (Object) (long) Math.max(0, tc.failedAt));
            synchronized (tc.results) {
                m.put("statements", new ArrayList<Object>(tc.results));
            }
            m.put("exception", end == TestCase.End.OK ? null : tc.exception);
            m.put("message", tc.message);
            m.put("exitStatus", end == TestCase.End.SYSTEM_EXIT ? (Object) (long) tc.exitStatus : null);
            m.put("exitAttempted", ExitGuard.attempted == null ? null : (Object) (long) ExitGuard.attempted);
            m.put("trace", trace);
            m.put("environment", environment);
            m.put("stdout", main.out.text());
            m.put("stderr", main.err.text());
            m.put("outputTruncated", main.out.truncated() || main.err.truncated());
            m.put("durationMicros", micros);
            m.put("leakedThreads", (long) leaked);
            m.put("processesKilled", (long) processesKilled);
            m.put("freshLoader", !r.reused);
            m.put("loaderDropped", dropped);
            m.put("index", (long) r.index);
            String why = null;
            if (stuck) {
                why = "test thread could not be stopped after its deadline";
            } else if (leaked > 0) {
                why = leaked + " thread(s) started by a test could not be stopped";
            } else if (end == TestCase.End.OUT_OF_MEMORY && !heapRecovered()) {
                why = "heap still nearly full after OutOfMemoryError";
            } else {
                String runaway = Loaders.runawayInitialiser();
                if (runaway != null) {
                    why = "the thread " + runaway + " loops and this JDK cannot stop it";
                }
            }
            main.event(requestId, "test", m);
            synchronized (this) {
                executed++;
                next = r.index + 1;
                if (why != null) {
                    restart = why;
                }
            }
        }
    }

    /** A test in progress: set up by the test thread, reported by whichever thread finishes it. */
    private static final class Running {
        int index;
        boolean reused;
        /** Probe slots whose classes the reused loader initialised before the test. */
        int[] initialisedSlots;
        TestLoader loader;
        TestCase test;
        long start;
    }

    /**
     * The name of a live thread outside the test's group that appeared since the last test, or
     * null (a test can start one in another group, and the JDK starts some on a test's behalf,
     * e.g. common pool workers). Threads that are still alive are remembered, so each counts once.
     */
    private String startedOutsideGroup(TestThread tt) {
        Set<Thread> now = threadsOutside(tt.group);
        String appeared = null;
        for (Thread t : now) {
            if (!knownThreads.contains(t)) {
                appeared = "\"" + t.getName() + "\"";
                break;
            }
        }
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
            if ((testGroup == null || g == null || !testGroup.parentOf(g)) && !Loaders.initialiser(all[k])) {
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

    /**
     * Interrupts and stops the live threads of the test group other than the test thread itself;
     * returns how many survive.
     */
    private static int stopLeakedThreads(TestThread tt) {
        ThreadGroup group = tt.group;
        Thread[] threads = new Thread[group.activeCount() + 16];
        int n = group.enumerate(threads, true);
        List<Thread> live = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            if (!tt.is(threads[k]) && threads[k] != Thread.currentThread() && threads[k].isAlive()) {
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
