package ctgls.worker;

import ctgls.rt.Probe;
import ctgls.worker.Unit.TestLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which class loader the next test of a unit runs in: the loader of the previous test when the
 * static-state rule ({@link StaticState}) says no state can have survived in it, else a fresh one.
 *
 * <p>After a test that ended cleanly, {@link #release} checks every project class the loader
 * defined so far. If all are reusable it initialises them (their initialisers are pure, so doing
 * it now rather than when a later test first touches them cannot be observed, and a failed
 * initialisation is found here rather than turned into a NoClassDefFoundError for the next test),
 * puts their static state back to what it was right after initialisation (non-final primitive
 * fields, and the values {@link StaticValues} plans for), and keeps the loader. Used by the
 * worker's main thread only.
 */
final class Loaders {
    private final Unit unit;
    private StaticState rule;
    /** The loader the next test may use; null when it must get a fresh one. */
    private TestLoader kept;
    /** How many classes of {@link #kept} were checked and initialised. */
    private int settled;
    /**
     * Steps that put the resettable and value-checked static state of {@link #kept} back
     * ({@link StaticValues}).
     */
    private final List<StaticValues.Restore> restores = new ArrayList<>();
    /** Pristine copies of the project classes, which no test uses ({@link StaticValues}). */
    private TestLoader template;
    /** Probe slots each class's pristine initialisation recorded ({@link #pristineInit}). */
    private final Map<String, int[]> initSlots = new HashMap<>();
    /** The union of {@link #initSlots} over the classes settled in {@link #kept}. */
    private final Set<Integer> keptSlots = new HashSet<>();
    private static final long INITIALISATION_DEADLINE_MS = 1000;
    /**
     * The threads the worker started to initialise pristine copies: the worker's own, never a
     * test's doing (TestRunner does not count them as threads a test started). Weak, so a thread
     * that ended is forgotten.
     */
    private static final Set<Thread> initialisers =
            java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

    Loaders(Unit unit) {
        this.unit = unit;
    }

    /** True when {@link #acquire} will hand out the kept loader. */
    boolean hasKept() {
        return kept != null;
    }

    /** The loader for the next test: the kept one unless {@code fresh} or none is kept. */
    TestLoader acquire(boolean fresh) {
        if (fresh || kept == null) {
            drop();
            return unit.newLoader();
        }
        TestLoader l = kept;
        kept = null;
        return l;
    }

    /** Forgets the kept loader. */
    void drop() {
        kept = null;
        settled = 0;
        restores.clear();
        keptSlots.clear();
    }

    /**
     * Decides, after a test that ended cleanly (no timeout, no leaked thread, no busy common pool),
     * whether {@code loader} may serve the next test. Returns null when it is kept, else why not.
     */
    String release(TestLoader loader) {
        String reason = settle(loader);
        if (reason == null) {
            kept = loader;
        } else {
            drop();
        }
        return reason;
    }

    private String settle(TestLoader loader) {
        if (loader.assertionStatusChanged()) {
            return "the test changed the assertion status of its class loader";
        }
        if (rule == null) {
            rule = new StaticState(unit.classes, unit.libraries());
        }
        while (true) {
            List<Class<?>> fresh = loader.definedSince(settled);
            if (fresh.isEmpty()) {
                break;
            }
            for (Class<?> c : fresh) {
                StaticState.Verdict v = rule.verdict(c.getName());
                if (!v.reusable) {
                    return v.reason;
                }
            }
            for (Class<?> c : fresh) {
                String stuck = pristineInit(c.getName(), rule.verdict(c.getName()).loops);
                if (stuck != null) {
                    return stuck;
                }
                try {
                    Class.forName(c.getName(), true, loader);
                } catch (Throwable e) {
                    return c.getName() + ": its initialisation failed (" + e + ")";
                }
                for (int slot : initSlots.get(c.getName())) {
                    keptSlots.add(slot);
                }
                StaticState.Verdict v = rule.verdict(c.getName());
                List<String> state = new ArrayList<>(v.resettable);
                state.addAll(v.valueChecked);
                if (!state.isEmpty()) {
                    String why = planRestores(loader, c, state);
                    if (why != null) {
                        return why;
                    }
                }
            }
            settled += fresh.size();
        }
        for (StaticValues.Restore r : restores) {
            try {
                r.apply();
            } catch (Throwable e) {
                return "static state cannot be put back (" + e + ")";
            }
        }
        return null;
    }

    /**
     * Plans putting the resettable and value-checked static fields of {@code live} back from the
     * template's initialised copy (a resettable primitive is set back to the pristine value);
     * returns why not when one of them cannot be.
     */
    private String planRestores(TestLoader loader, Class<?> live, List<String> fields) {
        Class<?> pristine;
        try {
            pristine = Class.forName(live.getName(), true, template());
        } catch (Throwable e) {
            return live.getName() + ": its initialisation failed in a second copy (" + e + ")";
        }
        StaticValues values = new StaticValues(template(), loader, restores);
        for (String name : fields) {
            try {
                values.staticField(live, pristine, name);
            } catch (StaticValues.Unrestorable e) {
                return live.getName() + ": static field " + e.getMessage();
            } catch (Throwable e) {
                return live.getName() + "." + name + ": cannot be put back (" + e + ")";
            }
        }
        return null;
    }

    /**
     * Initialises the template's (pristine) copy of a class before the worker initialises the
     * test's copy outside any test, recording what its probes record (Probe.recordInitialisation)
     * so that the trace of every later test that reaches the class includes its initialiser, as
     * it would in a fresh loader. An initialisation that may loop runs on a thread of its own
     * under a deadline: it is pure, so if it ends once it ends every time, with the same values.
     * Returns why not when it does not end in time.
     */
    private String pristineInit(String name, boolean loops) {
        if (initSlots.containsKey(name)) {
            return null;
        }
        TestLoader pristine = template();
        int[][] slots = new int[1][];
        Runnable init = () -> slots[0] = Probe.recordInitialisation(() -> {
            try {
                Class.forName(name, true, pristine);
            } catch (Throwable e) {
                // The test's copy fails the same way, and settle reports it.
            }
        });
        if (!loops) {
            init.run();
        } else {
            // Outside the test thread group: a thread that cannot be stopped must never record into
            // a later test's trace (probes record only the running test's group).
            ThreadGroup testGroup = Thread.currentThread().getThreadGroup();
            ThreadGroup outside = testGroup.getParent() != null ? testGroup.getParent() : testGroup;
            Thread t = new Thread(outside, init, "ctgls-initialise-" + name);
            t.setDaemon(true);
            initialisers.add(t);
            t.start();
            join(t, INITIALISATION_DEADLINE_MS);
            if (t.isAlive()) {
                TestRunner.stop(t);
                // A stopped thread still ends its recording (Probe.endTest): let it, before the
                // next test begins one.
                join(t, 200);
                // Its classes may be stuck half-initialised: values needed later come from a new copy.
                template = null;
                return name + ": its initialisation loops and did not end within " + INITIALISATION_DEADLINE_MS
                        + " ms";
            }
        }
        initSlots.put(name, slots[0] == null ? new int[0] : slots[0]);
        return null;
    }

    /** Whether {@code t} is a thread the worker started to initialise a pristine copy. */
    static boolean initialiser(Thread t) {
        return initialisers.contains(t);
    }

    /**
     * The name of an initialiser thread that is still alive after the worker gave up on it:
     * where the JDK cannot stop a thread (Java 20 on), a looping initialiser would keep a core
     * busy for as long as the worker lives, so the worker asks for a restart.
     */
    static String runawayInitialiser() {
        synchronized (initialisers) {
            for (Thread t : initialisers) {
                if (t.isAlive()) {
                    return t.getName();
                }
            }
        }
        return null;
    }

    private static void join(Thread t, long ms) {
        try {
            t.join(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Probe slots of the classes initialised in the kept loader, whose initialisers a test that
     * reuses the loader does not run again (Probe.beginTest replays them).
     */
    int[] initialisedSlots() {
        int[] out = new int[keptSlots.size()];
        int k = 0;
        for (int s : keptSlots) {
            out[k++] = s;
        }
        return out;
    }

    private TestLoader template() {
        if (template == null) {
            template = unit.newLoader();
        }
        return template;
    }
}
