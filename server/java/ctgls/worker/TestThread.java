package ctgls.worker;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The thread tests run in, with its own thread group. Starting and joining a thread per test
 * cost more than running a typical test, so one thread runs test after test while it stays
 * healthy (no deadline was missed), and {@link #renew} puts it back to the state of a new thread
 * after each test: no interrupt, its own name and priority, no uncaught-exception handler or
 * context class loader, and no thread-local values, so nothing a test (or the JDK or a library on
 * its behalf) kept in a ThreadLocal reaches the next test.
 *
 * <p>Clearing thread locals needs {@code sun.misc.Unsafe}; where it is missing or refused,
 * {@link #reusable()} is false and the runner starts a new thread for every test, as before.
 */
final class TestThread {
    private static final String NAME = "ctgls-test";
    private static final ThreadLocals LOCALS = ThreadLocals.load();

    final ThreadGroup group;
    private final Thread thread;
    final long stackBytes;
    private final int priority;
    private final int groupMaxPriority;

    // Guarded by this.
    private Runnable task;
    private ClassLoader contextLoader;
    private boolean done = true;
    private boolean retired;
    private boolean healthy = reusable();

    TestThread(long stackBytes) {
        this.stackBytes = stackBytes;
        group = new ThreadGroup(NAME);
        groupMaxPriority = group.getMaxPriority();
        thread = new Thread(group, this::loop, NAME, stackBytes);
        thread.setDaemon(true);
        priority = thread.getPriority();
        thread.start();
    }

    /** Whether a thread can be put back to a new thread's state and so serve more than one test. */
    static boolean reusable() {
        return LOCALS != null;
    }

    /** Loads what {@link #reusable()} needs early, so any JDK warning goes to the worker's own stderr. */
    static void prepare() {
        reusable();
    }

    boolean is(Thread t) {
        return t == thread;
    }

    /** Hands a task (a batch of tests) to the thread; {@link #await} tells when it is done. */
    synchronized void submit(Runnable r, ClassLoader loader) {
        task = r;
        contextLoader = loader;
        done = false;
        notifyAll();
    }

    /**
     * Waits up to {@code ms} for the current task; true when it finished (or the thread died,
     * e.g. a ThreadDeath that arrived after the test ended).
     */
    boolean await(long ms) {
        long until = System.nanoTime() + ms * 1_000_000L;
        synchronized (this) {
            while (!done) {
                long left = (until - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    break;
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return done || !thread.isAlive();
        }
    }

    /** The current task has neither finished nor ended the thread. */
    synchronized boolean running() {
        return !done && thread.isAlive();
    }

    void interrupt() {
        thread.interrupt();
    }

    void stop() {
        TestRunner.stop(thread);
    }

    /** Ends the thread after its current test; true when it is gone within {@code ms}. */
    boolean retire(long ms) {
        synchronized (this) {
            retired = true;
            notifyAll();
        }
        try {
            thread.join(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** False once the thread could not be put back to a new thread's state after a test. */
    synchronized boolean healthy() {
        return healthy;
    }

    private void loop() {
        while (true) {
            Runnable r;
            synchronized (this) {
                while (task == null && !retired) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // A late interrupt meant for the previous test.
                    }
                }
                if (retired) {
                    return;
                }
                r = task;
                task = null;
                Thread.currentThread().setContextClassLoader(contextLoader);
                contextLoader = null;
            }
            try {
                r.run();
            } catch (Throwable e) {
                // TestCase catches what the test throws; nothing here may end the thread silently.
            }
            r = null;
            synchronized (this) {
                done = true;
                notifyAll();
            }
        }
    }

    /**
     * Called by the task on this thread between tests: puts it back to the state of a new thread.
     * False when that is not possible; the thread must then run no further test.
     */
    boolean renew() {
        if (LOCALS == null) {
            synchronized (this) {
                healthy = false;
            }
            return false;
        }
        try {
            Thread t = Thread.currentThread();
            Thread.interrupted();
            if (!NAME.equals(t.getName())) {
                t.setName(NAME);
            }
            if (group.getMaxPriority() != groupMaxPriority) {
                group.setMaxPriority(groupMaxPriority);
            }
            if (t.getPriority() != priority) {
                t.setPriority(priority);
            }
            t.setUncaughtExceptionHandler(null);
            t.setContextClassLoader(null);
            LOCALS.clear(t);
            return true;
        } catch (Throwable e) {
            synchronized (this) {
                healthy = false;
            }
            return false;
        }
    }

    /**
     * Clears a thread's ThreadLocal and InheritableThreadLocal maps and its ThreadLocalRandom
     * probe (so ThreadLocalRandom seeds itself again, as in a new thread) through
     * {@code sun.misc.Unsafe}, found by reflection so the worker compiles without it.
     */
    private static final class ThreadLocals {
        private final Object unsafe;
        private final Method putObject;
        private final Method putInt;
        private final long locals;
        private final long inheritable;
        private final long randomProbe;

        private ThreadLocals(Object unsafe, Method putObject, Method putInt, long locals, long inheritable,
                long randomProbe) {
            this.unsafe = unsafe;
            this.putObject = putObject;
            this.putInt = putInt;
            this.locals = locals;
            this.inheritable = inheritable;
            this.randomProbe = randomProbe;
        }

        static ThreadLocals load() {
            try {
                Class<?> c = Class.forName("sun.misc.Unsafe");
                Field theUnsafe = c.getDeclaredField("theUnsafe");
                theUnsafe.setAccessible(true);
                Object u = theUnsafe.get(null);
                Method offset = c.getMethod("objectFieldOffset", Field.class);
                ThreadLocals l = new ThreadLocals(u, c.getMethod("putObject", Object.class, long.class, Object.class),
                        c.getMethod("putInt", Object.class, long.class, int.class),
                        (Long) offset.invoke(u, Thread.class.getDeclaredField("threadLocals")),
                        (Long) offset.invoke(u, Thread.class.getDeclaredField("inheritableThreadLocals")),
                        (Long) offset.invoke(u, Thread.class.getDeclaredField("threadLocalRandomProbe")));
                // Prove it works before relying on it.
                Thread probe = new Thread(() -> { });
                l.clear(probe);
                return l;
            } catch (Throwable e) {
                return null;
            }
        }

        void clear(Thread t) {
            try {
                putObject.invoke(unsafe, t, locals, null);
                putObject.invoke(unsafe, t, inheritable, null);
                putInt.invoke(unsafe, t, randomProbe, 0);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot clear thread locals", e);
            }
        }
    }
}
