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
        // A removed call changes the state (or the output) whenever it would have run.
        infect(id, 0.0);
        return active == id;
    }

    /** A condition, negated when mutant {@code id} is active. */
    public static boolean neg(int id, boolean condition) {
        // A negated condition differs from the original whenever it is evaluated.
        infect(id, 0.0);
        return active == id ? !condition : condition;
    }

    /**
     * A comparison operator of {@link Probe} ({@code Probe.LT}, ...), or one of its four
     * replacements when mutant {@code first + k} (k = 0..3) is active: the other operators but
     * {@code op} and its negation (which is {@link #neg}'s mutant), in ascending order of code.
     * The result is marked with {@code first} ({@link #mark}): the comparison probe that takes
     * it ({@code Probe.cmpInt(id, Mutants.ror(first, Probe.LT), a, b)}) unmarks it and records
     * the four mutants' infection distances from its operands.
     */
    public static int ror(int first, int op) {
        return mark(first, rorOperator(first, op));
    }

    /** {@link #ror}'s operator, unmarked. */
    private static int rorOperator(int first, int op) {
        int k = active - first;
        return k < 0 || k > 3 ? op : replacement(op, k);
    }

    /** An int constant, or {@code c+1}, {@code c-1}, and (when {@code n == 3}) 0 for mutants {@code first + 0, 1, 2}. */
    public static int cstInt(int first, int n, int c) {
        // c+1, c-1 and 0 (only for c outside -1..1) all differ from c.
        infectAll(first, n, 0.0);
        int k = active - first;
        if (k < 0 || k >= n) {
            return c;
        }
        return k == 0 ? c + 1 : k == 1 ? c - 1 : 0;
    }

    /** Like {@link #cstInt} for a long constant. */
    public static long cstLong(int first, int n, long c) {
        infectAll(first, n, 0.0);
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
        if (weakRecording()) {
            long original = arithmetic(op, a, b);
            for (int k = 0; k < 4; k++) {
                int o = aor(op, k);
                // A division by zero throws where the original returned: a difference.
                boolean differs = (o == DIV || o == REM) && b == 0 || arithmetic(o, a, b) != original;
                record(first + k, differs ? 0.0 : 1.0);
            }
        }
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
        if (weakRecording()) {
            long original = arithmeticLong(op, a, b);
            for (int k = 0; k < 4; k++) {
                int o = aor(op, k);
                boolean differs = (o == DIV || o == REM) && b == 0 || arithmeticLong(o, a, b) != original;
                record(first + k, differs ? 0.0 : 1.0);
            }
        }
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
        infect(id, 0.0);
        return active == id ? !v : v;
    }

    /** A returned int, replaced by 0 (by 1 when it is 0) by mutant {@code id}. */
    public static int retInt(int id, int v) {
        // The replacement (0, or 1 for 0) always differs.
        infect(id, 0.0);
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    public static long retLong(int id, long v) {
        infect(id, 0.0);
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    public static float retFloat(int id, float v) {
        infect(id, 0.0);
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    public static double retDouble(int id, double v) {
        infect(id, 0.0);
        return active == id ? (v == 0 ? 1 : 0) : v;
    }

    /** A returned String, replaced by the empty string (by null when it is empty) by mutant {@code id}. */
    public static String retString(int id, String v) {
        // "" for a non-empty or null string, null for "": always another value.
        infect(id, 0.0);
        return active == id ? (v == null || !v.isEmpty() ? "" : null) : v;
    }

    /** A returned reference, replaced by null by mutant {@code id}. */
    public static <T> T retRef(int id, T v) {
        // Infected only when the value was not null already.
        infect(id, v == null ? 1.0 : 0.0);
        return active == id ? null : v;
    }

    // ------------------------------------------------------------ weak mutation

    /*
     * Weak mutation (Fraser and Arcuri, "Achieving Scalable Mutation-based Generation of Whole
     * Test Suites", section 3.2): a test weakly kills a mutant when it reaches the mutated code
     * and the mutated expression's value differs from the original's there (infection). With no
     * mutant active, every helper above computes the original and each of its mutants' values in
     * the same execution and records, per mutant, the distance to infection: 0 when infected,
     * else how far the operands are from making the two differ (EvoSuite's per-operator
     * infection distances). A mutant id is recorded once per test with its minimum distance; the
     * probe trace reports them per file ({@link Probe#snapshot}, "mutants").
     */

    /** The low bits of a marked operator ({@link #mark}) hold {@code Probe}'s operator code. */
    static final int OPERATOR_BITS = 7;

    /** The distance of a strict boundary, as {@link Probe}'s branch distance counts it. */
    private static final double K = 1.0;

    private static double[] infection = filled(64);
    private static int[] touched = new int[64];
    private static int touchedCount;

    private static double[] filled(int n) {
        double[] a = new double[n];
        java.util.Arrays.fill(a, Double.POSITIVE_INFINITY);
        return a;
    }

    /**
     * {@code op} (a {@link Probe} operator) marked with the first id of its relational-operator
     * mutants, so that the comparison probe that receives it can record their infection
     * distances from its operands: {@code op | (first + 1) << 3}. Ids are never negative, so a
     * marked operator is larger than every operator code.
     */
    private static int mark(int first, int op) {
        return op | (first + 1) << 3;
    }

    /** Whether infections are recorded: in a test's thread, with no mutant active. */
    private static boolean weakRecording() {
        return active == -1 && Probe.recordingQuietly();
    }

    /** Records infection {@code distance} for mutant {@code id} when recording. */
    private static void infect(int id, double distance) {
        if (weakRecording()) {
            record(id, distance);
        }
    }

    private static void infectAll(int first, int n, double distance) {
        if (weakRecording()) {
            for (int k = 0; k < n; k++) {
                record(first + k, distance);
            }
        }
    }

    private static void record(int id, double distance) {
        if (id < 0) {
            return;
        }
        if (id >= infection.length) {
            synchronized (LOCK) {
                int cap = Math.max(id + 1, infection.length * 2);
                double[] grown = java.util.Arrays.copyOf(infection, cap);
                java.util.Arrays.fill(grown, infection.length, cap, Double.POSITIVE_INFINITY);
                infection = grown;
            }
        }
        double[] d = infection;
        if (d[id] == Double.POSITIVE_INFINITY) {
            if (touchedCount == touched.length) {
                touched = java.util.Arrays.copyOf(touched, touchedCount * 2);
            }
            touched[touchedCount++] = id;
        }
        if (distance < d[id]) {
            d[id] = distance;
        }
    }

    /**
     * The relational-operator mutants of a comparison whose probe received the marked operator
     * {@code marked} and the operands {@code a} and {@code b}: per replacement, the distance to
     * operands for which the original and the replaced operator disagree (see
     * {@link #relationalDistance}).
     */
    static void relationalInfection(int marked, double a, double b) {
        if (!weakRecording()) {
            return;
        }
        int first = (marked >>> 3) - 1;
        int op = marked & OPERATOR_BITS;
        for (int k = 0; k < 4; k++) {
            int replacement = replacement(op, k);
            double distance;
            if (Double.isNaN(a) || Double.isNaN(b)) {
                // Every comparison with NaN is false but !=: the two differ now or not at all.
                distance = (op == Probe.NE) != (replacement == Probe.NE) ? 0.0 : K;
            } else {
                int sign = a < b ? -1 : a > b ? 1 : 0;
                distance = relationalDistance(op, replacement, sign, Math.abs(a - b));
            }
            record(first + k, distance);
        }
    }

    /** Like {@link #relationalInfection} for longs, whose sign is taken exactly. */
    static void relationalInfection(int marked, long a, long b) {
        if (!weakRecording()) {
            return;
        }
        int first = (marked >>> 3) - 1;
        int op = marked & OPERATOR_BITS;
        int sign = Long.compare(a, b);
        double magnitude = Math.max(Math.abs((double) a - (double) b), sign == 0 ? 0 : K);
        for (int k = 0; k < 4; k++) {
            record(first + k, relationalDistance(op, replacement(op, k), sign, magnitude));
        }
    }

    /** {@link #ror}'s replacement {@code k} of {@code op}, unmarked. */
    private static int replacement(int op, int k) {
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

    /** The outcome of operator {@code op} when {@code a - b} has sign {@code sign}. */
    static boolean holds(int op, int sign) {
        switch (op) {
            case Probe.EQ: return sign == 0;
            case Probe.NE: return sign != 0;
            case Probe.LT: return sign < 0;
            case Probe.LE: return sign <= 0;
            case Probe.GT: return sign > 0;
            default: return sign >= 0;
        }
    }

    /**
     * The infection distance of replacing comparison {@code op} by {@code replacement} when
     * {@code a - b} has sign {@code sign} and magnitude {@code magnitude}: 0 when the two
     * operators disagree on these operands, else the branch distance (Fraser and Arcuri, "Whole
     * Test Suites", III-C, with its constant k) to the nearest difference of the operands
     * where they disagree: below zero, zero, or above zero. This is EvoSuite's case-by-case table
     * of {@code ReplaceComparisonOperator} in one rule ({@code <} against {@code <=}: |a - b|;
     * {@code <} against {@code >}: 1 when equal, else 0).
     */
    static double relationalDistance(int op, int replacement, int sign, double magnitude) {
        double best = Double.POSITIVE_INFINITY;
        for (int region = -1; region <= 1; region++) {
            if (holds(op, region) == holds(replacement, region)) {
                continue;
            }
            double distance;
            if (region == sign) {
                distance = 0.0;
            } else if (region == 0) {
                distance = magnitude;
            } else if (sign == 0) {
                distance = K;
            } else {
                // The sign must flip: through zero and one step beyond.
                distance = magnitude + K;
            }
            best = Math.min(best, distance);
        }
        if (Double.isInfinite(best) || Double.isNaN(best)) {
            return Double.MAX_VALUE;
        }
        return best;
    }

    private static long arithmetic(int op, int a, int b) {
        switch (op) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV: return b == 0 ? 0 : a / b;
            default: return b == 0 ? 0 : a % b;
        }
    }

    private static long arithmeticLong(int op, long a, long b) {
        switch (op) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV: return b == 0 ? 0 : a / b;
            default: return b == 0 ? 0 : a % b;
        }
    }

    /** Forgets the running test's infections (the worker's {@link Probe#beginTest}). */
    static void clearInfections() {
        double[] d = infection;
        for (int k = 0; k < touchedCount; k++) {
            d[touched[k]] = Double.POSITIVE_INFINITY;
        }
        touchedCount = 0;
    }

    /** What {@link #eachInfection} hands each recorded mutant. */
    interface InfectionSink {
        void accept(String key, int local, double distance);
    }

    /** The running test's infections, by file key and local id, in ascending global id. */
    static void eachInfection(InfectionSink sink) {
        int[] ids = java.util.Arrays.copyOf(touched, touchedCount);
        java.util.Arrays.sort(ids);
        synchronized (LOCK) {
            for (int id : ids) {
                String key = null;
                int base = -1;
                for (java.util.Map.Entry<String, Integer> e : BASE_BY_KEY.entrySet()) {
                    int b = e.getValue();
                    if (b <= id && b > base) {
                        base = b;
                        key = e.getKey();
                    }
                }
                if (key != null) {
                    sink.accept(key, id - base, infection[id]);
                }
            }
        }
    }
}
