package ctgls.rt;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The probe runtime that instrumented code calls (see "Probe API" in docs/protocol.md).
 *
 * <p>Loaded once by the worker's own class loader; every per-test class loader delegates
 * {@code ctgls.rt.*} to it, so all tests share these arrays and the worker resets them between
 * tests. Ids are global: {@code register} hands out a base per instrumented source file and the
 * instrumenter passes {@code base + localId}, so the hot path is one array index, no map lookup.
 *
 * <p>Only threads of the running test's thread group are recorded. Other threads (a leaked thread
 * of an earlier test, a common fork-join pool worker) run the original semantics untraced, so a
 * trace never claims coverage that its own test did not produce.
 */
public final class Probe {
    /** Comparison operators for the {@code cmp*} probes. */
    public static final int EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5;

    /** The constant k of the branch distance (Fraser and Arcuri, "Whole Test Suites", section III-C). */
    private static final double K = 1.0;
    /** Distance of the other outcome when no numeric measure exists (null, instanceof, NaN). */
    private static final double UNIT = 1.0;
    /** Distance for String.equals against a non-String argument. */
    private static final double FAR = 1.0e6;
    private static final double INF = Double.POSITIVE_INFINITY;

    private Probe() {}

    // ---------------------------------------------------------------- registry

    private static final Object LOCK = new Object();
    private static final HashMap<String, Integer> SLOT_BY_KEY = new HashMap<>();
    private static String[] slotKey = new String[16];
    private static int[] slotBase = new int[16];
    private static int[][] slotCounts = new int[16][];
    /**
     * Per slot, the package of the instrumented file's classes and the file's name as stack frames
     * give it ({@link StackTraceElement#getFileName}): how {@link #escaped} finds the file's frames.
     */
    private static String[] slotPackage = new String[16];
    private static String[] slotFile = new String[16];
    private static int slotCount;
    private static int nextBase;

    // ---------------------------------------------------------------- per-test trace

    private static double[] trueDist = filled(256);
    private static double[] falseDist = filled(256);
    private static int[] branchHits = new int[256];
    private static int[] lineHits = new int[256];
    private static int[] methodHits = new int[256];
    private static int[] loopHits = new int[256];
    private static final IntList touchedBranches = new IntList();
    private static final IntList touchedLines = new IntList();
    private static final IntList touchedMethods = new IntList();
    private static final IntList touchedLoops = new IntList();

    private static long loopIterations;
    private static long methodCalls;
    private static long instantiations;
    private static long statements;

    /** The enhanced for a {@code break} is leaving (see {@link #forBreak}), or -1. */
    private static int pendingBreak = -1;

    /** Distinct escape records kept per test; a test that raises more is not told apart further. */
    static final int MAX_ESCAPES = 64;
    /** The test's escape records ({@link #escaped}), in the order first seen; guarded by LOCK. */
    private static final ArrayList<Escape> escapes = new ArrayList<>();

    // ---------------------------------------------------------------- dynamic seeding

    /**
     * Strings the code under test compared its data with during the test (dynamic seeding: Rojas,
     * Fraser and Arcuri, "Seeding strategies in search-based unit test generation"; EvoSuite's
     * dynamic constant pool). The server adds them to a value pool, so that a value computed at
     * run time (a key built from fields, a name read from another object) can become an input.
     * Distinct (slot, value) pairs in first-seen order, at most {@link #MAX_SEEDS} per file and
     * test; the slot is the instrumented file whose code compared, so that the server can take
     * the seeds of the class under test's file only. Numbers are not seeded: the operands of the
     * numeric probes made a job's search depend on its other instrumented classes in a way not
     * yet understood (`other_instrumented_classes_...` in ctg's job tests), and their branch
     * distance guides the search to them already.
     */
    private static final LinkedHashSet<Object> seedStrings = new LinkedHashSet<>();
    private static final HashMap<Integer, Integer> seedStringCounts = new HashMap<>();
    private static final int MAX_SEEDS = 32;
    /** Longer strings are left out: they are rarely a value an input must equal. */
    private static final int MAX_SEED_LENGTH = 200;
    /** What {@link #escaped} learnt of the last throwable it saw (see {@link Escaping}). */
    private static volatile Escaping lastEscaping;

    private static volatile ThreadGroup group;
    private static volatile boolean expired;
    private static volatile boolean paused;

    /**
     * Registers one instrumented source file and returns its id base.
     *
     * <p>Idempotent per key: a class loaded again by the next test's class loader gets the same
     * base. A key should identify the instrumented text (e.g. {@code "p/A.java#<hash>"}); a key
     * registered again with other counts gets a fresh base.
     */
    public static int register(String key, int branches, int lines, int methods, int loops) {
        int size = Math.max(1, Math.max(Math.max(branches, lines), Math.max(methods, loops)));
        synchronized (LOCK) {
            Integer known = SLOT_BY_KEY.get(key);
            if (known != null) {
                int[] c = slotCounts[known];
                if (c[0] == branches && c[1] == lines && c[2] == methods && c[3] == loops) {
                    return slotBase[known];
                }
            }
            if (slotCount == slotKey.length) {
                slotKey = Arrays.copyOf(slotKey, slotCount * 2);
                slotBase = Arrays.copyOf(slotBase, slotCount * 2);
                slotCounts = Arrays.copyOf(slotCounts, slotCount * 2);
                slotPackage = Arrays.copyOf(slotPackage, slotCount * 2);
                slotFile = Arrays.copyOf(slotFile, slotCount * 2);
            }
            int base = nextBase;
            nextBase += size;
            slotKey[slotCount] = key;
            slotBase[slotCount] = base;
            slotCounts[slotCount] = new int[] {branches, lines, methods, loops};
            String path = key.lastIndexOf('#') < 0 ? key : key.substring(0, key.lastIndexOf('#'));
            slotFile[slotCount] = path.substring(path.lastIndexOf('/') + 1);
            slotPackage[slotCount] = callerPackage(path);
            SLOT_BY_KEY.put(key, slotCount);
            slotCount++;
            ensureCapacity(nextBase);
            return base;
        }
    }

    /**
     * The package of the class that called {@link #register}: the instrumenter's holder class,
     * a top-level class of the instrumented file. Its directory in {@code path} says the same
     * when the file lies where its package says, which javac does not require.
     */
    private static String callerPackage(String path) {
        try {
            Class<?> holder = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(
                    frames -> frames.skip(2).findFirst().map(StackWalker.StackFrame::getDeclaringClass).orElse(null));
            if (holder != null && holder != Probe.class) {
                return holder.getPackageName();
            }
        } catch (RuntimeException e) {
            // A security manager that refuses class references: the path tells the package.
        }
        int slash = path.lastIndexOf('/');
        return slash < 0 ? "" : path.substring(0, slash).replace('/', '.');
    }

    private static void ensureCapacity(int n) {
        if (n <= branchHits.length) {
            return;
        }
        int cap = Math.max(n, branchHits.length * 2);
        double[] t = Arrays.copyOf(trueDist, cap);
        double[] f = Arrays.copyOf(falseDist, cap);
        Arrays.fill(t, trueDist.length, cap, INF);
        Arrays.fill(f, falseDist.length, cap, INF);
        trueDist = t;
        falseDist = f;
        branchHits = Arrays.copyOf(branchHits, cap);
        lineHits = Arrays.copyOf(lineHits, cap);
        methodHits = Arrays.copyOf(methodHits, cap);
        loopHits = Arrays.copyOf(loopHits, cap);
    }

    private static double[] filled(int n) {
        double[] a = new double[n];
        Arrays.fill(a, INF);
        return a;
    }

    /**
     * Whether the calling thread belongs to the running test (or to a group the test made),
     * before its deadline: what {@link Environment} records. Unlike the probes it also holds while
     * the worker observes values, since the emitted assertions call the same getters.
     */
    static boolean inTest() {
        ThreadGroup g = group;
        if (g == null || expired) {
            return false;
        }
        ThreadGroup mine = Thread.currentThread().getThreadGroup();
        return mine == g || mine != null && g.parentOf(mine);
    }

    /**
     * The slot and line of the first of {@code frames} in an instrumented file, as
     * {@code slot << 32 | line}, or -1 when none is.
     */
    static long locate(StackTraceElement[] frames) {
        if (frames == null) {
            return -1;
        }
        synchronized (LOCK) {
            for (StackTraceElement f : frames) {
                String cls = f.getClassName();
                String file = f.getFileName();
                if (cls == null || file == null) {
                    continue;
                }
                for (int s = 0; s < slotCount; s++) {
                    if (file.equals(slotFile[s]) && Escaping.inPackage(cls, slotPackage[s])) {
                        return (long) s << 32 | (Math.max(f.getLineNumber(), 0) & 0xffffffffL);
                    }
                }
            }
        }
        return -1;
    }

    /** The key of slot {@code s} (the instrumented file's key). */
    static String slotKeyOf(int s) {
        synchronized (LOCK) {
            return s >= 0 && s < slotCount ? slotKey[s] : null;
        }
    }

    // ---------------------------------------------------------------- hot path

    /** True when the calling thread belongs to the running test; throws once the deadline passed. */
    /**
     * Whether the calling thread's probes are recorded, without the deadline's exception: what the
     * weak-mutation records of {@link Mutants} ask, whose callers must behave as the original code.
     */
    static boolean recordingQuietly() {
        ThreadGroup g = group;
        return g != null && Thread.currentThread().getThreadGroup() == g && !expired && !paused;
    }

    private static boolean recording() {
        ThreadGroup g = group;
        if (g == null || Thread.currentThread().getThreadGroup() != g) {
            return false;
        }
        if (expired) {
            throw new DeadlineExceeded();
        }
        return !paused;
    }

    private static void outcome(int id, boolean taken, double otherDistance) {
        if (branchHits[id]++ == 0) {
            touchedBranches.add(id);
        }
        if (taken) {
            trueDist[id] = 0.0;
            if (otherDistance < falseDist[id]) {
                falseDist[id] = otherDistance;
            }
        } else {
            falseDist[id] = 0.0;
            if (otherDistance < trueDist[id]) {
                trueDist[id] = otherDistance;
            }
        }
    }

    /**
     * Outcome and distance of {@code a op b}; the distance is the one to the outcome not taken:
     * for {@code a < b} false, the true-distance is {@code a - b + k}; for {@code a == b} false it
     * is {@code |a - b|}; a taken {@code ==} is {@code k} away from false.
     */
    private static boolean compare(int id, int op, double a, double b) {
        // With mutants compiled in, the operator comes from Mutants.ror, which marks it with the
        // id of its relational-operator mutants (see Mutants.ror).
        if (op > GE) {
            Mutants.relationalInfection(op, a, b);
            op &= Mutants.OPERATOR_BITS;
        }
        boolean r;
        double other;
        if (Double.isNaN(a) || Double.isNaN(b)) {
            r = op == NE;
            other = UNIT;
        } else {
            double d = a - b;
            switch (op) {
                case EQ: r = d == 0; other = r ? K : Math.abs(d); break;
                case NE: r = d != 0; other = r ? Math.abs(d) : K; break;
                case LT: r = d < 0; other = r ? -d : d + K; break;
                case LE: r = d <= 0; other = r ? -d + K : d; break;
                case GT: r = d > 0; other = r ? d : -d + K; break;
                case GE: r = d >= 0; other = r ? d + K : -d; break;
                default: throw new IllegalArgumentException("ctgls probe: unknown operator " + op);
            }
            if (Double.isInfinite(other) || Double.isNaN(other)) {
                other = Double.MAX_VALUE;
            }
        }
        if (recording()) {
            outcome(id, r, other);
        }
        return r;
    }

    /** {@code a op b} on ints (also byte, short, char by widening). Returns the outcome. */
    public static boolean cmpInt(int id, int op, int a, int b) {
        return compare(id, op, a, b);
    }

    /** {@code a op b} on longs. Distances are computed in double precision. */
    public static boolean cmpLong(int id, int op, long a, long b) {
        if (op > GE) {
            Mutants.relationalInfection(op, a, b);
            op &= Mutants.OPERATOR_BITS;
        }
        boolean exact;
        switch (op) {
            case EQ: exact = a == b; break;
            case NE: exact = a != b; break;
            case LT: exact = a < b; break;
            case LE: exact = a <= b; break;
            case GT: exact = a > b; break;
            case GE: exact = a >= b; break;
            default: throw new IllegalArgumentException("ctgls probe: unknown operator " + op);
        }
        // The double difference may round to zero for huge longs; the outcome stays exact.
        double d = (double) a - (double) b;
        double other;
        switch (op) {
            case EQ: other = exact ? K : Math.max(Math.abs(d), K); break;
            case NE: other = exact ? Math.max(Math.abs(d), K) : K; break;
            case LT: other = exact ? Math.max(-d, K) : d + K; break;
            case LE: other = exact ? -d + K : Math.max(d, K); break;
            case GT: other = exact ? Math.max(d, K) : -d + K; break;
            default: other = exact ? d + K : Math.max(-d, K); break;
        }
        if (recording()) {
            outcome(id, exact, other);
        }
        return exact;
    }

    /** {@code a op b} on doubles (and floats by widening); NaN operands give distance 1. */
    public static boolean cmpDouble(int id, int op, double a, double b) {
        return compare(id, op, a, b);
    }

    /**
     * {@code a op b} on floats: binary numeric promotion to float (JLS 5.6) rounds an int or long
     * operand to float, which comparing as doubles would not. NaN operands give distance 1.
     */
    public static boolean cmpFloat(int id, int op, float a, float b) {
        // The call already rounded the operands to float; widening them to double is exact.
        return compare(id, op, a, b);
    }

    /** {@code a == b} or {@code a != b} on booleans. */
    public static boolean cmpBool(int id, int op, boolean a, boolean b) {
        boolean r = op == NE ? a != b : a == b;
        if (recording()) {
            outcome(id, r, UNIT);
        }
        return r;
    }

    /** Reference comparison {@code a == b} (op EQ) or {@code a != b} (op NE), e.g. with null. */
    public static boolean cmpRef(int id, int op, Object a, Object b) {
        boolean r = op == NE ? a != b : a == b;
        if (recording()) {
            outcome(id, r, UNIT);
        }
        return r;
    }

    /** {@code a == null}. */
    public static boolean isNull(int id, Object a) {
        boolean r = a == null;
        if (recording()) {
            outcome(id, r, UNIT);
        }
        return r;
    }

    /** {@code a instanceof c} where {@code c} is the class literal of the tested type. */
    public static boolean instOf(int id, Object a, Class<?> c) {
        boolean r = c.isInstance(a);
        if (recording()) {
            outcome(id, r, UNIT);
        }
        return r;
    }

    /**
     * Records whether {@code value} is an instance of {@code c} and returns {@code value}, so the
     * original {@code instanceof} (with its pattern) still tests it:
     * {@code Probe.instOfOperand(base + 3, x, Foo.class) instanceof Foo f}. The operand is
     * evaluated once, its static type is kept, and the pattern's bindings keep their flow scope.
     */
    public static <T> T instOfOperand(int id, T value, Class<?> c) {
        if (recording()) {
            outcome(id, c.isInstance(value), UNIT);
        }
        return value;
    }

    /**
     * {@code a.equals(b)} for a String receiver; throws NullPointerException for a null receiver
     * exactly like the original call. The true-distance is the edit distance.
     */
    public static boolean strEquals(int id, String a, Object b) {
        boolean r = a.equals(b);
        if (recording()) {
            double other;
            if (r) {
                other = K;
            } else if (b instanceof String) {
                seedString(id, a);
                seedString(id, (String) b);
                other = editDistance(a, (String) b);
            } else {
                other = FAR;
            }
            outcome(id, r, other);
        }
        return r;
    }

    /**
     * Records one branch per case constant of a switch on an int-like selector and returns the
     * selector unchanged: {@code switch (Probe.switchInt(base + 7, x, 1, 2, 5))}. Constant k is
     * branch {@code firstId + k}, taken when the selector equals {@code cases[k]}; branch
     * {@code firstId + cases.length} is "no constant matched" (the default label).
     */
    public static int switchInt(int firstId, int value, int... cases) {
        if (recording()) {
            double nearest = INF;
            for (int k = 0; k < cases.length; k++) {
                boolean r = value == cases[k];
                double d = r ? 0.0 : Math.abs((double) value - cases[k]);
                nearest = Math.min(nearest, d);
                outcome(firstId + k, r, r ? K : d);
            }
            noMatch(firstId + cases.length, nearest);
        }
        return value;
    }

    /**
     * Like {@link #switchInt} for a String selector; the distance to a case is the edit distance.
     * A null selector records nothing: the switch itself then throws NullPointerException.
     */
    public static String switchString(int firstId, String value, String... cases) {
        if (value != null && recording()) {
            double nearest = INF;
            for (int k = 0; k < cases.length; k++) {
                boolean r = value.equals(cases[k]);
                double d = r ? 0.0 : editDistance(value, cases[k]);
                nearest = Math.min(nearest, d);
                outcome(firstId + k, r, r ? K : d);
            }
            noMatch(firstId + cases.length, nearest);
        }
        return value;
    }

    /**
     * Like {@link #switchInt} for an enum selector, with the case constants given by name; every
     * miss is at distance 1. A null selector records nothing (the switch throws).
     */
    public static <E extends Enum<E>> E switchEnum(int firstId, E value, String... names) {
        if (value != null && recording()) {
            String name = value.name();
            boolean any = false;
            for (int k = 0; k < names.length; k++) {
                boolean r = name.equals(names[k]);
                any |= r;
                outcome(firstId + k, r, r ? K : UNIT);
            }
            noMatch(firstId + names.length, any ? 0.0 : UNIT);
        }
        return value;
    }

    /**
     * Returns {@code value} unchanged; a String is recorded as a dynamic seed of the file whose
     * ids include {@code id} (the instrumenter passes its holder's base). The instrumenter wraps
     * the receiver and argument of String comparisons that are no decision of their own
     * ({@code equalsIgnoreCase}, {@code startsWith}, {@code endsWith}, {@code contains},
     * {@code indexOf}, {@code matches}, ...): {@code Probe.seed(B, s).startsWith(Probe.seed(B, p))}.
     */
    public static <T> T seed(int id, T value) {
        if (value instanceof String && recording()) {
            seedString(id, (String) value);
        }
        return value;
    }

    private static void seedString(int id, String s) {
        if (s.length() > MAX_SEED_LENGTH) {
            return;
        }
        // Text that is not well-formed UTF-16 cannot travel as a JSON string, nor be a literal.
        for (int k = 0; k < s.length(); k++) {
            if (Character.isSurrogate(s.charAt(k))) {
                return;
            }
        }
        addSeed(seedStrings, id, s);
    }

    private static void addSeed(LinkedHashSet<Object> seeds, int id, Object v) {
        int slot = slotOf(id);
        synchronized (seeds) {
            // The bound is per file: another instrumented file's comparisons must not crowd out
            // the seeds of the class under test (a job's other classes leave its search alone).
            Integer n = seedStringCounts.get(slot);
            int count = n == null ? 0 : n;
            if (count < MAX_SEEDS && seeds.add(new AbstractMap.SimpleImmutableEntry<Integer, Object>(slot, v))) {
                seedStringCounts.put(slot, count + 1);
            }
        }
    }

    /** The "no case matched" branch of a switch; {@code nearest} is 0 when a case matched. */
    private static void noMatch(int id, double nearest) {
        boolean none = nearest != 0.0;
        outcome(id, none, none ? nearest : K);
    }

    /** Outcome-only fallback for any condition: the other outcome is at distance 1. */
    public static boolean branch(int id, boolean outcome) {
        if (recording()) {
            outcome(id, outcome, UNIT);
        }
        return outcome;
    }

    /**
     * A {@code break} is about to leave the enhanced for whose has-next branch is {@code id}, so
     * the next {@link #forExit} of that loop is not its has-next-false outcome.
     */
    public static void forBreak(int id) {
        if (recording()) {
            pendingBreak = id;
        }
    }

    /**
     * Control reached the statement after the enhanced for whose has-next branch is {@code id}:
     * records the has-next-false outcome unless a {@link #forBreak} of that loop got it there.
     */
    public static void forExit(int id) {
        if (recording()) {
            if (pendingBreak == id) {
                pendingBreak = -1;
            } else {
                outcome(id, false, UNIT);
            }
        }
    }

    /** A line (statement) was reached; counts towards the covered-statements proxy. */
    public static void line(int id) {
        if (recording()) {
            if (lineHits[id]++ == 0) {
                touchedLines.add(id);
            }
            statements++;
        }
    }

    /** A method or constructor body was entered; checks the deadline. */
    public static void enter(int id) {
        if (recording()) {
            if (methodHits[id]++ == 0) {
                touchedMethods.add(id);
            }
            methodCalls++;
        }
    }

    /** One iteration of a loop body; checks the deadline. */
    public static void loop(int id) {
        if (recording()) {
            if (loopHits[id]++ == 0) {
                touchedLoops.add(id);
            }
            loopIterations++;
        }
    }

    /** Wraps an object or array creation expression and counts it: {@code Probe.alloc(new A())}. */
    public static <T> T alloc(T created) {
        if (recording()) {
            instantiations++;
        }
        return created;
    }

    /**
     * A catch clause of instrumented code was entered with {@code caught}: the clause's
     * "entered" outcome ({@link #branch}), and a refusal of the sandbox that the clause swallows
     * is seen ({@link Environment#refused}). Never throws but for the deadline, as
     * {@link #branch} does.
     */
    public static void caught(int id, Throwable caught) {
        if (recording()) {
            outcome(id, true, UNIT);
        }
        if (caught != null && group != null) {
            Environment.refused(caught);
        }
    }

    /** Deadline check alone, for places where no other probe fits. */
    public static void checkDeadline() {
        recording();
    }

    /**
     * {@code thrown} is leaving the body of method or constructor {@code id}: the instrumenter
     * wraps each body in {@code try { ... } catch (Throwable e) { Probe.escaped(id, e); throw e; }}.
     * Records, per test, the method, the exception's class and the line that raised it: the top
     * stack frame in the method's own file. The stack trace is read once per throwable, however
     * many bodies it leaves.
     *
     * <p>Never throws, so the rethrow that follows always rethrows {@code thrown}: the deadline is
     * not checked here, and a failure to record (a stack overflow, a full heap) loses the record
     * only. Nothing is recorded for the worker's own throwables (the deadline's
     * {@link DeadlineExceeded}, the {@code ThreadDeath} of a stopped thread, a blocked
     * {@code System.exit}, or an exception caused by one of them), after the deadline, or while
     * the worker observes values.
     */
    public static void escaped(int id, Throwable thrown) {
        ThreadGroup g = group;
        if (g == null || expired || paused || thrown == null || Thread.currentThread().getThreadGroup() != g) {
            return;
        }
        try {
            Escaping e = lastEscaping;
            if (e == null || e.thrown != thrown) {
                e = new Escaping(thrown);
                lastEscaping = e;
                if (!e.ours) {
                    Environment.refused(thrown);
                }
            }
            if (e.ours) {
                return;
            }
            int slot;
            int line;
            synchronized (LOCK) {
                slot = slotOf(id);
            }
            line = e.raisingLine(slot);
            synchronized (LOCK) {
                addEscape(id, e, line);
            }
        } catch (RuntimeException | VirtualMachineError failed) {
            // The record is lost; the exception that is escaping must not be.
        }
    }

    /** Counts one more escape of {@code e} from method {@code id}, in a new record if there is room. */
    private static void addEscape(int id, Escaping e, int line) {
        Escape known = findEscape(id, e.type, line);
        if (known != null) {
            known.count(1);
        } else if (escapes.size() < MAX_ESCAPES) {
            escapes.add(new Escape(id, e.type, e.supertypes(), line, 1));
        }
    }

    /** The test's record of {@code type} leaving method {@code id} from {@code line}, or null. */
    private static Escape findEscape(int id, String type, int line) {
        for (Escape x : escapes) {
            if (x.id == id && x.line == line && x.type.equals(type)) {
                return x;
            }
        }
        return null;
    }

    /** One escape record of a test: a throwable of {@code type} left method {@code id}. */
    private static final class Escape {
        final int id;
        final String type;
        /** The superclasses of {@code type}, nearest first, {@code java.lang.Throwable} last. */
        final String[] supertypes;
        /** The raising line, or 0 when no stack frame of the method's file was found. */
        final int line;
        int hits;

        Escape(int id, String type, String[] supertypes, int line, int hits) {
            this.id = id;
            this.type = type;
            this.supertypes = supertypes;
            this.line = line;
            this.hits = hits;
        }

        /** Adds {@code n} hits, saturating: a Java int is what the wire's readers expect. */
        void count(int n) {
            hits = hits > Integer.MAX_VALUE - n ? Integer.MAX_VALUE : hits + n;
        }
    }

    /**
     * One throwable as {@link #escaped} sees it: its class, whether it is the worker's own, and its
     * raising line per instrumented file, found from a stack trace read at most once. A throwable
     * leaving n nested bodies (a recursion, a helper and its callers) costs one stack trace.
     */
    private static final class Escaping {
        final Throwable thrown;
        final String type;
        final boolean ours;
        private StackTraceElement[] frames;
        private int slot = -1;
        private int line;

        Escaping(Throwable thrown) {
            this.thrown = thrown;
            this.type = thrown.getClass().getName();
            this.ours = ours(thrown);
        }

        /** Synchronized: the same throwable may leave bodies on two threads at once. */
        synchronized int raisingLine(int forSlot) {
            if (forSlot != slot) {
                if (frames == null) {
                    frames = thrown.getStackTrace();
                }
                line = topLine(frames, slotPackage[forSlot], slotFile[forSlot]);
                slot = forSlot;
            }
            return line;
        }

        String[] supertypes() {
            ArrayList<String> out = new ArrayList<>();
            for (Class<?> c = thrown.getClass().getSuperclass(); c != null && c != Object.class; c = c.getSuperclass()) {
                out.add(c.getName());
            }
            return out.toArray(new String[0]);
        }

        /** The line of the first frame of a class of {@code pkg} declared in file {@code file}; 0 if none. */
        private static int topLine(StackTraceElement[] frames, String pkg, String file) {
            for (StackTraceElement f : frames) {
                String cls = f.getClassName();
                if (file.equals(f.getFileName()) && cls != null && inPackage(cls, pkg)) {
                    return Math.max(f.getLineNumber(), 0);
                }
            }
            return 0;
        }

        private static boolean inPackage(String cls, String pkg) {
            if (pkg.isEmpty()) {
                return cls.indexOf('.') < 0;
            }
            return cls.length() > pkg.length() && cls.startsWith(pkg) && cls.charAt(pkg.length()) == '.'
                    && cls.indexOf('.', pkg.length() + 1) < 0;
        }

        /**
         * The deadline's error, a stopped thread's ThreadDeath, a blocked exit (the worker's
         * {@code ExitGuard}), or an exception caused by one: what the test did not raise itself.
         */
        private static boolean ours(Throwable t) {
            int depth = 0;
            for (Throwable c = t; c != null && depth < 32; c = c.getCause(), depth++) {
                String name = c.getClass().getName();
                if (c instanceof DeadlineExceeded || name.equals("java.lang.ThreadDeath")
                        || name.startsWith("ctgls.worker.")) {
                    return true;
                }
                if (c.getCause() == c) {
                    break;
                }
            }
            return false;
        }
    }

    private static double editDistance(String a, String b) {
        int n = a.length();
        int m = b.length();
        if (n > 256 || m > 256) {
            // Quadratic cost is not worth it for long strings: fall back to a cheap lower bound + 1.
            return Math.abs(n - m) + K;
        }
        int[] prev = new int[m + 1];
        int[] cur = new int[m + 1];
        for (int j = 0; j <= m; j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= n; i++) {
            cur[0] = i;
            char c = a.charAt(i - 1);
            for (int j = 1; j <= m; j++) {
                int cost = c == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return Math.max(prev[m], 1);
    }

    // ---------------------------------------------------------------- worker control
    // Called by the worker only; user code calling them would only spoil its own trace.

    /** Starts recording for the threads of {@code testGroup}; clears the previous test's trace. */
    public static void beginTest(ThreadGroup testGroup) {
        beginTest(testGroup, null);
    }

    /**
     * Like {@link #beginTest(ThreadGroup)}, for a test whose class loader initialised the classes
     * of {@code initialisedSlots} (slot indexes, from {@link #recordInitialisation}) before it
     * began: {@link #snapshot} adds their initialisers' recorded trace to every such slot the test
     * reaches, since in a fresh loader the test would have run those initialisers itself.
     */
    public static void beginTest(ThreadGroup testGroup, int[] initialisedSlots) {
        synchronized (LOCK) {
            replay = initialisedSlots;
            clear(touchedBranches, branchHits);
            for (int k = 0; k < touchedBranches.size; k++) {
                int id = touchedBranches.data[k];
                trueDist[id] = INF;
                falseDist[id] = INF;
            }
            touchedBranches.size = 0;
            clear(touchedLines, lineHits);
            touchedLines.size = 0;
            clear(touchedMethods, methodHits);
            touchedMethods.size = 0;
            clear(touchedLoops, loopHits);
            touchedLoops.size = 0;
            loopIterations = 0;
            methodCalls = 0;
            instantiations = 0;
            statements = 0;
            pendingBreak = -1;
            escapes.clear();
            Mutants.clearInfections();
            synchronized (seedStrings) {
                seedStrings.clear();
                seedStringCounts.clear();
            }
            Environment.clear();
            lastEscaping = null;
            paused = false;
            expired = false;
            group = testGroup;
        }
    }

    private static void clear(IntList touched, int[] hits) {
        for (int k = 0; k < touched.size; k++) {
            hits[touched.data[k]] = 0;
        }
    }

    /** Makes every further probe call of the test's threads throw {@link DeadlineExceeded}. */
    public static void expire() {
        expired = true;
    }

    /** Stops recording (probes still check the deadline) while the worker observes values. */
    public static void pause(boolean on) {
        paused = on;
    }

    /**
     * Runs {@code init} (a class initialisation in a copy no test uses) with the probes of the
     * calling thread's group recorded, and keeps what they record, per slot, for
     * {@link #snapshot} to replay. Returns the slots the initialisation reached. Only called
     * between tests: it clears the trace.
     */
    public static int[] recordInitialisation(Runnable init) {
        beginTest(Thread.currentThread().getThreadGroup(), null);
        try {
            init.run();
        } finally {
            endTest();
        }
        synchronized (LOCK) {
            IntList slots = new IntList();
            InitTrace proxiesGoTo = null;
            IntList escaped = new IntList();
            for (Escape e : escapes) {
                escaped.add(e.id);
            }
            for (IntList touched : new IntList[] {touchedBranches, touchedLines, touchedMethods, touchedLoops, escaped}) {
                for (int k = 0; k < touched.size; k++) {
                    int s = slotOf(touched.data[k]);
                    if (initTraces.length <= s) {
                        initTraces = Arrays.copyOf(initTraces, Math.max(s + 1, initTraces.length * 2));
                    }
                    if (initTraces[s] == null) {
                        initTraces[s] = new InitTrace();
                    }
                    if (proxiesGoTo == null) {
                        proxiesGoTo = initTraces[s];
                    }
                    boolean known = false;
                    for (int j = 0; j < slots.size; j++) {
                        known |= slots.data[j] == s;
                    }
                    if (!known) {
                        slots.add(s);
                    }
                }
            }
            for (int k = 0; k < touchedBranches.size; k++) {
                int id = touchedBranches.data[k];
                initTraces[slotOf(id)].branch(id, branchHits[id], trueDist[id], falseDist[id]);
            }
            for (int k = 0; k < touchedLines.size; k++) {
                int id = touchedLines.data[k];
                initTraces[slotOf(id)].lines.add(id, lineHits[id]);
            }
            for (int k = 0; k < touchedMethods.size; k++) {
                int id = touchedMethods.data[k];
                initTraces[slotOf(id)].methods.add(id, methodHits[id]);
            }
            for (int k = 0; k < touchedLoops.size; k++) {
                int id = touchedLoops.data[k];
                initTraces[slotOf(id)].loops.add(id, loopHits[id]);
            }
            for (Escape e : escapes) {
                initTraces[slotOf(e.id)].escapes.add(e);
            }
            if (proxiesGoTo != null) {
                proxiesGoTo.loopIterations += loopIterations;
                proxiesGoTo.methodCalls += methodCalls;
                proxiesGoTo.instantiations += instantiations;
                proxiesGoTo.statements += statements;
            }
            beginTest(null, null);
            return Arrays.copyOf(slots.data, slots.size);
        }
    }

    /** What class initialisers recorded in one slot ({@link #recordInitialisation}). */
    private static final class InitTrace {
        final IntList branchIds = new IntList();
        final IntList branchHits = new IntList();
        double[] trueDist = new double[8];
        double[] falseDist = new double[8];
        final Counts lines = new Counts();
        final Counts methods = new Counts();
        final Counts loops = new Counts();
        /** Exceptions that escaped the bodies of this slot's methods. */
        final ArrayList<Escape> escapes = new ArrayList<>();
        long loopIterations;
        long methodCalls;
        long instantiations;
        long statements;

        void branch(int id, int hits, double t, double f) {
            int k = branchIds.size;
            branchIds.add(id);
            branchHits.add(hits);
            if (k == trueDist.length) {
                trueDist = Arrays.copyOf(trueDist, k * 2);
                falseDist = Arrays.copyOf(falseDist, k * 2);
            }
            trueDist[k] = t;
            falseDist[k] = f;
        }
    }

    private static final class Counts {
        final IntList ids = new IntList();
        final IntList hits = new IntList();

        void add(int id, int n) {
            ids.add(id);
            hits.add(n);
        }

        void replay(int[] hitArray, IntList touched) {
            for (int k = 0; k < ids.size; k++) {
                int id = ids.data[k];
                if (hitArray[id] == 0) {
                    touched.add(id);
                }
                hitArray[id] += hits.data[k];
            }
        }
    }

    /** Per slot index, what its class initialisers recorded; null where nothing was. */
    private static InitTrace[] initTraces = new InitTrace[16];
    /** Slots initialised before the running test began ({@link #beginTest(ThreadGroup, int[])}). */
    private static int[] replay;

    /** Adds the recorded initialisation trace of every replayed slot the test reached. */
    private static void replayInitialisations() {
        int[] slots = replay;
        if (slots == null || slots.length == 0) {
            return;
        }
        boolean[] reached = new boolean[slotCount];
        for (IntList touched : new IntList[] {touchedBranches, touchedLines, touchedMethods, touchedLoops}) {
            for (int k = 0; k < touched.size; k++) {
                reached[slotOf(touched.data[k])] = true;
            }
        }
        for (int s : slots) {
            InitTrace t = s < initTraces.length ? initTraces[s] : null;
            if (t == null || s >= reached.length || !reached[s]) {
                continue;
            }
            for (int k = 0; k < t.branchIds.size; k++) {
                int id = t.branchIds.data[k];
                if (branchHits[id] == 0) {
                    touchedBranches.add(id);
                }
                branchHits[id] += t.branchHits.data[k];
                trueDist[id] = Math.min(trueDist[id], t.trueDist[k]);
                falseDist[id] = Math.min(falseDist[id], t.falseDist[k]);
            }
            t.lines.replay(lineHits, touchedLines);
            t.methods.replay(methodHits, touchedMethods);
            t.loops.replay(loopHits, touchedLoops);
            for (Escape e : t.escapes) {
                replayEscape(e);
            }
            loopIterations += t.loopIterations;
            methodCalls += t.methodCalls;
            instantiations += t.instantiations;
            statements += t.statements;
        }
        replay = null;
    }

    /** Adds a recorded initialiser's escape to the test's records, as if the test had raised it. */
    private static void replayEscape(Escape e) {
        Escape known = findEscape(e.id, e.type, e.line);
        if (known != null) {
            known.count(e.hits);
        } else if (escapes.size() < MAX_ESCAPES) {
            escapes.add(new Escape(e.id, e.type, e.supertypes, e.line, e.hits));
        }
    }

    /** Stops recording; probes of any thread become no-ops until the next {@link #beginTest}. */
    public static void endTest() {
        group = null;
        // The last throwable may hold the test's class loader, which must be free to go.
        lastEscaping = null;
        expired = false;
        paused = false;
    }

    /** The trace of the current test as JSON-ready maps and lists (see docs/protocol.md). */
    public static Map<String, Object> snapshot() {
        synchronized (LOCK) {
            replayInitialisations();
            Map<Integer, Map<String, Object>> bySlot = new LinkedHashMap<>();
            int[] b = touchedBranches.sorted();
            for (int id : b) {
                List<Object> row = new ArrayList<>(4);
                int s = slotOf(id);
                row.add((long) (id - slotBase[s]));
                row.add((long) branchHits[id]);
                row.add(trueDist[id]);
                row.add(falseDist[id]);
                list(bySlot, s, "branches").add(row);
            }
            counts(bySlot, touchedLines.sorted(), lineHits, "lines");
            counts(bySlot, touchedMethods.sorted(), methodHits, "methods");
            counts(bySlot, touchedLoops.sorted(), loopHits, "loops");
            ArrayList<Escape> sorted = new ArrayList<>(escapes);
            sorted.sort((x, y) -> x.id != y.id ? Integer.compare(x.id, y.id)
                    : !x.type.equals(y.type) ? x.type.compareTo(y.type) : Integer.compare(x.line, y.line));
            for (Escape e : sorted) {
                int s = slotOf(e.id);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("method", (long) (e.id - slotBase[s]));
                row.put("type", e.type);
                row.put("supertypes", new ArrayList<Object>(Arrays.asList((Object[]) e.supertypes)));
                row.put("line", e.line > 0 ? (Object) (long) e.line : null);
                row.put("hits", (long) e.hits);
                list(bySlot, s, "escapes").add(row);
            }
            List<Object> seeds = new ArrayList<>();
            synchronized (seedStrings) {
                seeds.addAll(seedStrings);
            }
            for (Object o : seeds) {
                Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
                list(bySlot, (Integer) e.getKey(), "seeds").add(e.getValue());
            }
            Mutants.eachInfection((key, local, distance) -> {
                Integer slot = SLOT_BY_KEY.get(key);
                if (slot != null) {
                    List<Object> row = new ArrayList<>(2);
                    row.add((long) local);
                    row.add(distance);
                    list(bySlot, slot, "mutants").add(row);
                }
            });
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("files", new ArrayList<Object>(bySlot.values()));
            Map<String, Object> proxies = new LinkedHashMap<>();
            proxies.put("loopIterations", loopIterations);
            proxies.put("methodCalls", methodCalls);
            proxies.put("instantiations", instantiations);
            proxies.put("statements", statements);
            out.put("proxies", proxies);
            return out;
        }
    }

    private static void counts(Map<Integer, Map<String, Object>> bySlot, int[] ids, int[] hits, String kind) {
        for (int id : ids) {
            int s = slotOf(id);
            List<Object> row = new ArrayList<>(2);
            row.add((long) (id - slotBase[s]));
            row.add((long) hits[id]);
            list(bySlot, s, kind).add(row);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<Integer, Map<String, Object>> bySlot, int slot, String kind) {
        Map<String, Object> m = bySlot.get(slot);
        if (m == null) {
            m = new LinkedHashMap<>();
            m.put("key", slotKey[slot]);
            m.put("branches", new ArrayList<Object>());
            m.put("lines", new ArrayList<Object>());
            m.put("methods", new ArrayList<Object>());
            m.put("loops", new ArrayList<Object>());
            m.put("escapes", new ArrayList<Object>());
            m.put("seeds", new ArrayList<Object>());
            m.put("mutants", new ArrayList<Object>());
            bySlot.put(slot, m);
        }
        return (List<Object>) m.get(kind);
    }

    /** The slot whose id range contains {@code id}; bases are ascending. */
    private static int slotOf(int id) {
        int lo = 0;
        int hi = slotCount - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (slotBase[mid] <= id) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static final class IntList {
        int[] data = new int[64];
        int size;

        void add(int v) {
            if (size == data.length) {
                data = Arrays.copyOf(data, size * 2);
            }
            data[size++] = v;
        }

        int[] sorted() {
            int[] a = Arrays.copyOf(data, size);
            Arrays.sort(a);
            return a;
        }
    }
}
