package ctgls.rt;

import java.util.HashMap;

/**
 * The runtime of mutant schemata (docs/instrumentation.md, "Mutants"): every mutant of an
 * instrumented file is compiled into it, off, behind a test of its id, so that running a mutant
 * costs an execution, not a compile (Untch, Offutt and Harrold, "Mutation Analysis Using Mutant
 * Schemata").
 *
 * <p>Ids are global like the probes': {@link #register} hands out a base per instrumented file
 * and the instrumenter passes {@code base + localId}. At most one mutant is active at a time,
 * chosen by the worker for a whole execute request ({@link #activate}); with none active every
 * method here returns its original value and so the code's original behaviour.
 *
 * <p>A site with several mutants (a replaced operator, a changed constant) passes the id of its
 * first one; the replacement chosen is the active id's offset from it, in an order the
 * instrumenter knows (its descriptions of the mutants follow the same order).
 */
public final class Mutants {
    /** Arithmetic operators for {@link #aorInt} and {@link #aorLong}. */
    public static final int ADD = 0, SUB = 1, MUL = 2, DIV = 3, REM = 4;

    private Mutants() {}

    private static final Object LOCK = new Object();
    private static final HashMap<String, Integer> BASE_BY_KEY = new HashMap<>();
    private static int nextBase;

    /** The global id of the active mutant, or -1 (none; no id is negative). */
    private static volatile int active = -1;
    /** The active mutant as the worker named it: file key and local id (guarded by LOCK). */
    private static String activeKey;
    private static int activeLocal = -1;

    /**
     * Registers the {@code count} mutants of one instrumented file (its probe key) and returns their
     * id base. Idempotent per key. If the worker activated a mutant of this file before its
     * classes were loaded, it becomes active now.
     */
    public static int register(String key, int count) {
        synchronized (LOCK) {
            Integer known = BASE_BY_KEY.get(key);
            int base;
            if (known != null) {
                base = known;
            } else {
                base = nextBase;
                nextBase += Math.max(1, count);
                BASE_BY_KEY.put(key, base);
            }
            if (key.equals(activeKey)) {
                active = base + activeLocal;
            }
            return base;
        }
    }

    /** Switches on mutant {@code local} of the file registered as {@code key} (worker only). */
    public static void activate(String key, int local) {
        synchronized (LOCK) {
            activeKey = key;
            activeLocal = local;
            Integer base = BASE_BY_KEY.get(key);
            active = base == null ? -1 : base + local;
        }
    }

    /** Switches every mutant off (worker only). */
    public static void deactivate() {
        synchronized (LOCK) {
            activeKey = null;
            activeLocal = -1;
            active = -1;
        }
    }

    /** Whether mutant {@code id} is active: a removed call runs {@code if (!on(id)) call();}. */
    public static boolean on(int id) {
        return active == id;
    }

    /** A condition, negated when mutant {@code id} is active. */
    public static boolean neg(int id, boolean condition) {
        return active == id ? !condition : condition;
    }

    /**
     * A comparison operator of {@link Probe} ({@code Probe.LT}, ...), or one of its four
     * replacements when mutant {@code first + k} (k = 0..3) is active: the other operators but
     * {@code op} and its negation (which is {@link #neg}'s mutant), in ascending order of code.
     */
    public static int ror(int first, int op) {
        int k = active - first;
        if (k < 0 || k > 3) {
            return op;
        }
        int negation;
        switch (op) {
            case Probe.EQ: negation = Probe.NE; break;
            case Probe.NE: negation = Probe.EQ; break;
            case Probe.LT: negation = Probe.GE; break;
            case Probe.LE: negation = Probe.GT; break;
            case Probe.GT: negation = Probe.LE; break;
            default: negation = Probe.LT; break;
        }
        for (int candidate = 0; candidate <= 5; candidate++) {
            if (candidate == op || candidate == negation) {
                continue;
            }
            if (k-- == 0) {
                return candidate;
            }
        }
        return op;
    }

    /** An int constant, or {@code c+1}, {@code c-1}, and (when {@code n == 3}) 0 for mutants {@code first + 0, 1, 2}. */
    public static int cstInt(int first, int n, int c) {
        int k = active - first;
        if (k < 0 || k >= n) {
            return c;
        }
        return k == 0 ? c + 1 : k == 1 ? c - 1 : 0;
    }

    /** Like {@link #cstInt} for a long constant. */
    public static long cstLong(int first, int n, long c) {
        int k = active - first;
        if (k < 0 || k >= n) {
            return c;
        }
        return k == 0 ? c + 1 : k == 1 ? c - 1 : 0;
    }

    /** The arithmetic replacement {@code k} of {@code op}: the other operators in ascending order. */
    private static int aor(int op, int k) {
        return k < op ? k : k + 1;
    }

    /** {@code a op b} on ints, or with one of the four other operators for mutants {@code first + 0..3}. */
    public static int aorInt(int first, int op, int a, int b) {
        int k = active - first;
        switch (k < 0 || k > 3 ? op : aor(op, k)) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV: return a / b;
            default: return a % b;
        }
    }

    /** Like {@link #aorInt} on longs. */
    public static long aorLong(int first, int op, long a, long b) {
        int k = active - first;
        switch (k < 0 || k > 3 ? op : aor(op, k)) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV: return a / b;
            default: return a % b;
        }
    }

    /** A returned boolean, negated by mutant {@code id}. */
    public static boolean retBool(int id, boolean v) {
        return active == id ? !v : v;
    }

    /** A returned int, replaced by 0 (by 1 when it is 0) by mutant {@code id}. */
    public static int retInt(int id, int v) {
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    public static long retLong(int id, long v) {
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    public static float retFloat(int id, float v) {
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    public static double retDouble(int id, double v) {
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    /** A returned String, replaced by the empty string (by null when it is empty) by mutant {@code id}. */
    public static String retString(int id, String v) {
        return active == id ? (v == null || !v.isEmpty() ? "" : null) : v;
    }

    /** A returned reference, replaced by null by mutant {@code id}. */
    public static <T> T retRef(int id, T v) {
        return active == id ? null : v;
    }
}
