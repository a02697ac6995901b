package ctgls.worker;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The static-state rule: which project classes may stay loaded from one test to the next
 * (docs/protocol.md, "Isolation", has the rule and its soundness argument).
 *
 * <p>A class is <em>reusable</em> when a fresh copy of it, initialised again, could not behave
 * differently from the copy an earlier test used, once its static state is put back:
 * <ol>
 *   <li>every static field is final and of an immutable kind (primitive, String, a box, or a
 *       project enum, record or final class whose instance fields are all final and of
 *       immutable kinds), or non-final and primitive (<em>resettable</em>: the worker puts it back
 *       to its value right after initialisation after every test), or one of javac's synthetic
 *       {@code $VALUES} / {@code $SwitchMap$...} arrays, which only javac's own code touches, or
 *       of any other type but a known mutable JDK one (<em>value-checked</em>: {@link StaticValues}
 *       decides from the values of an initialised copy whether it can be put back);</li>
 *   <li>its static initialiser, with every project method and constructor it calls, is pure:
 *       constants, locals, arithmetic, objects and arrays it creates itself, reads of final static
 *       fields (of other classes only of immutable kinds), writes of its own static fields, calls
 *       of project code that obeys the same rule through exact (static, special, private or
 *       final) calls, lambdas, probes, and calls of a short list of JDK methods without side
 *       effects or dependence on mutable global state ({@link #jdkCall});</li>
 *   <li>that code has no recursion and is small; a loop ({@link Verdict#loops}) leaves
 *       termination to be witnessed on a pristine copy before the worker initialises the class
 *       outside a test ({@link Loaders});</li>
 *   <li>the project classes its initialisation touches (including its supertypes) are reusable,
 *       and none of them needs this class to be initialised first (no cycle, so the order in which
 *       tests touch them cannot change the values);</li>
 *   <li>it does not declare {@code finalize()}, which would run during a later test.</li>
 * </ol>
 * Verdicts depend only on the unit's class bytes, so they are computed once per unit.
 */
final class StaticState {
    /** The verdict for one class: reusable or not, and why not. */
    static final class Verdict {
        final boolean reusable;
        /** Why the class is not reusable (null when it is). */
        final String reason;
        /** Non-final primitive static fields, put back to their initial values after every test. */
        final List<String> resettable;
        /**
         * Static fields whose kind the class file cannot settle (a final array, a field of an
         * interface type, a non-final String): {@link StaticValues} decides them from the values
         * an initialised copy of the class holds, and plans how to put them back.
         */
        final List<String> valueChecked;
        /**
         * Its initialisation (or one it triggers) has a loop, so the class file does not prove
         * that it terminates: the worker first initialises a pristine copy under a deadline
         * ({@link Loaders}), and only then the test's copy, which then computes the same values
         * in the same steps.
         */
        final boolean loops;

        Verdict(boolean reusable, String reason, List<String> resettable, List<String> valueChecked, boolean loops) {
            this.reusable = reusable;
            this.reason = reason;
            this.resettable = resettable;
            this.valueChecked = valueChecked;
            this.loops = loops;
        }
    }

    /** Upper bound on the bytecode an initialiser may run, counted over every call path. */
    private static final int MAX_INIT_CODE = 64 * 1024;

    private static final Set<String> BOXES = new HashSet<>(Arrays.asList(
            "java/lang/Integer", "java/lang/Long", "java/lang/Short", "java/lang/Byte", "java/lang/Character",
            "java/lang/Boolean", "java/lang/Float", "java/lang/Double"));

    private final Map<String, byte[]> classes;
    private final ClassLoader libraries;
    private final Map<String, ClassFile> parsed = new HashMap<>();
    private final Map<String, Verdict> verdicts = new HashMap<>();
    private final Set<String> inProgress = new HashSet<>();
    private final Map<String, Boolean> immutable = new HashMap<>();
    /** Classes whose initialisation triggers one that {@link Verdict#loops}. */
    private final Set<String> loopingDependencies = new HashSet<>();

    /**
     * @param classes the unit's class bytes by binary name
     * @param libraries the unit's library loader (for fields of library and JDK classes)
     */
    StaticState(Map<String, byte[]> classes, ClassLoader libraries) {
        this.classes = classes;
        this.libraries = libraries;
    }

    /** The verdict for a project class given by binary name ({@code com.acme.A$B}). */
    synchronized Verdict verdict(String binaryName) {
        return verdictOf(binaryName.replace('.', '/'));
    }

    private boolean isProject(String internalName) {
        return classes.containsKey(internalName.replace('/', '.'));
    }

    private ClassFile parsed(String internalName) {
        ClassFile cf = parsed.get(internalName);
        if (cf == null) {
            byte[] b = classes.get(internalName.replace('/', '.'));
            if (b == null) {
                return null;
            }
            cf = ClassFile.parse(b);
            parsed.put(internalName, cf);
        }
        return cf;
    }

    private static String dotted(String internalName) {
        return internalName.replace('/', '.');
    }

    private Verdict verdictOf(String name) {
        Verdict v = verdicts.get(name);
        if (v != null) {
            return v;
        }
        if (!inProgress.add(name)) {
            return no(dotted(name) + ": its initialisation depends on itself through other classes");
        }
        try {
            v = decide(name);
        } catch (Reject r) {
            v = no(dotted(name) + ": " + r.getMessage());
        } catch (IllegalArgumentException e) {
            v = no(dotted(name) + ": unreadable class file (" + e.getMessage() + ")");
        } finally {
            inProgress.remove(name);
        }
        verdicts.put(name, v);
        return v;
    }

    private static Verdict no(String reason) {
        return new Verdict(false, reason, java.util.Collections.<String>emptyList(),
                java.util.Collections.<String>emptyList(), false);
    }

    /** Why a class or its initialiser is not provably free of static state. */
    private static final class Reject extends Exception {
        private static final long serialVersionUID = 1L;

        Reject(String message) {
            super(message, null, false, false);
        }
    }

    private Verdict decide(String name) throws Reject {
        ClassFile cf = parsed(name);
        if (cf == null) {
            throw new Reject("not a project class");
        }
        List<String> resettable = new ArrayList<>();
        List<String> valueChecked = new ArrayList<>();
        ownState(cf, resettable, valueChecked);
        // Initialising a class initialises its superclass first; supertypes are part of its state.
        supertypes(name, cf);
        ClassFile.Member clinit = cf.method("<clinit>", "()V");
        boolean loops = false;
        if (clinit != null) {
            InitScan scan = new InitScan(name);
            scan.method(cf, clinit);
            loops = scan.loops;
        }
        return new Verdict(true, null, resettable, valueChecked, loops || loopingDependencies.contains(name));
    }

    /**
     * Rules 1 and 5 for the class itself, as far as the class file tells: collects its resettable
     * fields and the fields left to {@link StaticValues}.
     */
    private void ownState(ClassFile cf, List<String> resettable, List<String> valueChecked) throws Reject {
        if (cf.method("finalize", "()V") != null) {
            throw new Reject("declares finalize(), which runs during a later test");
        }
        for (ClassFile.Member f : cf.fields) {
            if (!f.is(ClassFile.ACC_STATIC)) {
                continue;
            }
            if (f.is(ClassFile.ACC_SYNTHETIC) && f.is(ClassFile.ACC_FINAL) && f.descriptor.startsWith("[")
                    && (f.name.equals("$VALUES") || f.name.startsWith("$SwitchMap$"))) {
                continue;
            }
            if (f.is(ClassFile.ACC_FINAL) && immutableType(f.descriptor)) {
                continue;
            }
            if (!f.is(ClassFile.ACC_FINAL) && isPrimitive(f.descriptor)) {
                resettable.add(f.name);
            } else if (mutableJdkType(f.descriptor)) {
                throw new Reject((f.is(ClassFile.ACC_FINAL) ? "static final field " : "non-final static field ")
                        + f.name + " holds a mutable kind of value (" + typeName(f.descriptor) + ")");
            } else {
                valueChecked.add(f.name);
            }
        }
    }

    /**
     * JDK types whose values are mutable containers or carry hidden state (collections, random
     * generators, thread locals, atomics, builders): rejected from the class file alone, with a
     * clearer reason than the initialiser scan would give.
     */
    private static boolean mutableJdkType(String d) {
        if (!d.startsWith("L") || !d.endsWith(";")) {
            return false;
        }
        String t = d.substring(1, d.length() - 1);
        return MUTABLE_JDK.contains(t) || t.startsWith("java/util/concurrent/") || t.startsWith("java/lang/ref/");
    }

    /**
     * Immutable JDK value types: a final field of one holds the same value for ever (a project
     * subclass of one with state of its own is caught when its holder's values are checked).
     */
    private static boolean jdkValueType(String d) {
        if (!d.startsWith("L") || !d.endsWith(";")) {
            return false;
        }
        String t = d.substring(1, d.length() - 1);
        if (t.startsWith("java/time/") && t.indexOf('/', 10) < 0) {
            return true;
        }
        for (Class<?> k : StaticValues.JDK_VALUE_CLASSES) {
            if (k.getName().equals(dotted(t))) {
                return true;
            }
        }
        return false;
    }

    private static final Set<String> MUTABLE_JDK = new HashSet<>(Arrays.asList(
            "java/util/Collection", "java/util/List", "java/util/Set", "java/util/Map", "java/util/Queue",
            "java/util/Deque", "java/util/SortedMap", "java/util/SortedSet", "java/util/NavigableMap",
            "java/util/NavigableSet", "java/util/ArrayList", "java/util/LinkedList", "java/util/HashMap",
            "java/util/LinkedHashMap", "java/util/TreeMap", "java/util/HashSet", "java/util/LinkedHashSet",
            "java/util/TreeSet", "java/util/Vector", "java/util/Stack", "java/util/Hashtable",
            "java/util/Properties", "java/util/IdentityHashMap", "java/util/WeakHashMap", "java/util/EnumMap",
            "java/util/EnumSet", "java/util/ArrayDeque", "java/util/PriorityQueue", "java/util/BitSet",
            "java/util/Random", "java/util/Iterator", "java/util/ListIterator", "java/lang/ThreadLocal",
            "java/lang/InheritableThreadLocal", "java/lang/StringBuilder", "java/lang/StringBuffer",
            "java/lang/Thread", "java/lang/ThreadGroup"));

    private void supertypes(String from, ClassFile cf) throws Reject {
        if (cf.superName != null) {
            dependency(from, cf.superName);
        }
        for (String i : cf.interfaces) {
            dependency(from, i);
        }
    }

    /**
     * The initialisation of {@code from} may initialise {@code to}: {@code to} must be reusable,
     * and must not need {@code from} initialised first. A class without a static initialiser runs
     * no code of its own when initialised, only its supertypes' initialisers, so it cannot make an
     * order of initialisation observable: only its own fields and its supertypes are checked.
     */
    private void dependency(String from, String to) throws Reject {
        if (to.equals(from) || !isProject(to)) {
            return;
        }
        ClassFile cf = parsed(to);
        if (cf.method("<clinit>", "()V") == null && !inProgress.contains(to)) {
            try {
                ownState(cf, new ArrayList<String>(), new ArrayList<String>());
            } catch (Reject r) {
                throw new Reject("its initialisation uses " + dotted(to) + ", which " + r.getMessage());
            }
            supertypes(from, cf);
            return;
        }
        Verdict v = verdictOf(to);
        if (!v.reusable) {
            throw new Reject("its initialisation uses " + dotted(to) + ", which is not reusable (" + v.reason + ")");
        }
        if (v.loops) {
            loopingDependencies.add(from);
        }
    }

    // ------------------------------------------------------------------ immutable kinds

    private static boolean isPrimitive(String d) {
        return d.length() == 1 && "ZBCSIJFD".indexOf(d.charAt(0)) >= 0;
    }

    private static String typeName(String d) {
        int dims = 0;
        while (d.startsWith("[")) {
            dims++;
            d = d.substring(1);
        }
        String base;
        switch (d) {
            case "Z": base = "boolean"; break;
            case "B": base = "byte"; break;
            case "C": base = "char"; break;
            case "S": base = "short"; break;
            case "I": base = "int"; break;
            case "J": base = "long"; break;
            case "F": base = "float"; break;
            case "D": base = "double"; break;
            default: base = d.startsWith("L") && d.endsWith(";") ? dotted(d.substring(1, d.length() - 1)) : d;
        }
        StringBuilder b = new StringBuilder(base);
        for (int k = 0; k < dims; k++) {
            b.append("[]");
        }
        return b.toString();
    }

    private boolean immutableType(String d) {
        if (isPrimitive(d)) {
            return true;
        }
        if (!d.startsWith("L") || !d.endsWith(";")) {
            return false; // arrays are always mutable
        }
        String t = d.substring(1, d.length() - 1);
        if (t.equals("java/lang/String") || BOXES.contains(t)) {
            return true;
        }
        return isProject(t) && immutableClass(t);
    }

    /**
     * A project enum, record or final class whose instances cannot change: every instance field,
     * inherited ones included, is final and of an immutable kind. For an enum, the bodies of its
     * constants (subclasses) count too. Cycles count as immutable (the check is coinductive).
     */
    private boolean immutableClass(String t) {
        Boolean known = immutable.get(t);
        if (known != null) {
            return known;
        }
        immutable.put(t, Boolean.TRUE);
        boolean result = computeImmutable(t);
        immutable.put(t, result);
        return result;
    }

    private boolean computeImmutable(String t) {
        ClassFile cf = parsed(t);
        if (cf == null || cf.is(ClassFile.ACC_INTERFACE)) {
            return false;
        }
        List<String> shapes = new ArrayList<>();
        shapes.add(t);
        if (cf.is(ClassFile.ACC_ENUM)) {
            String prefix = dotted(t) + "$";
            for (String other : classes.keySet()) {
                if (other.startsWith(prefix)) {
                    ClassFile body = parsed(other.replace('.', '/'));
                    if (body != null && t.equals(body.superName)) {
                        shapes.add(body.name);
                    }
                }
            }
        } else if (!cf.is(ClassFile.ACC_FINAL)) {
            return false;
        }
        for (String s : shapes) {
            for (String k = s; k != null; ) {
                ClassFile c = parsed(k);
                if (c == null) {
                    if (!k.equals("java/lang/Object") && !k.equals("java/lang/Enum") && !k.equals("java/lang/Record")) {
                        return false;
                    }
                    break;
                }
                for (ClassFile.Member f : c.fields) {
                    if (f.is(ClassFile.ACC_STATIC)) {
                        continue;
                    }
                    if (!f.is(ClassFile.ACC_FINAL) || !immutableType(f.descriptor)) {
                        return false;
                    }
                }
                k = c.superName;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ initialiser scan

    /** Checks the code a class's initialisation runs, following project calls. */
    private final class InitScan {
        private final String root;
        private final Set<String> onPath = new HashSet<>();
        private int budget = MAX_INIT_CODE;
        /** A backward jump or handler was seen: termination is not proved by the scan. */
        boolean loops;

        InitScan(String root) {
            this.root = root;
        }

        void method(ClassFile owner, ClassFile.Member m) throws Reject {
            String key = owner.name + "." + m.name + m.descriptor;
            if (m.code == null) {
                throw new Reject("its initialisation calls " + dotted(key) + ", which has no code");
            }
            if (!onPath.add(key)) {
                throw new Reject("its initialisation is recursive (" + dotted(key) + ")");
            }
            budget -= m.code.length;
            if (budget < 0) {
                throw new Reject("its initialisation is too large to check");
            }
            for (int[] h : m.handlers) {
                if (h[2] <= h[0]) {
                    loops = true; // an exception handler before its range
                }
            }
            code(owner, m.code);
            onPath.remove(key);
        }

        private void code(ClassFile cf, byte[] c) throws Reject {
            int pc = 0;
            while (pc < c.length) {
                int op = c[pc] & 0xff;
                int len;
                if (op <= 0x0f || (op >= 0x1a && op <= 0x35) || (op >= 0x3b && op <= 0x83)
                        || (op >= 0x85 && op <= 0x98) || (op >= 0xac && op <= 0xb1) || op == 0xbe || op == 0xbf
                        || op == 0xc2 || op == 0xc3) {
                    len = 1; // constants, loads, stores, array access, stack, arithmetic, returns, throw, monitors
                } else if (op == 0x10 || (op >= 0x15 && op <= 0x19) || (op >= 0x36 && op <= 0x3a) || op == 0xbc) {
                    len = 2;
                } else if (op == 0x11 || op == 0x84) {
                    len = 3;
                } else if (op == 0x12 || op == 0x13 || op == 0x14) {
                    int index = op == 0x12 ? c[pc + 1] & 0xff : u2(c, pc + 1);
                    constant(cf, index);
                    len = op == 0x12 ? 2 : 3;
                } else if ((op >= 0x99 && op <= 0xa7) || op == 0xc6 || op == 0xc7) {
                    forward((short) u2(c, pc + 1));
                    len = 3;
                } else if (op == 0xc8) {
                    forward(u4(c, pc + 1));
                    len = 5;
                } else if (op == 0xaa || op == 0xab) {
                    len = switchLength(c, pc, op == 0xaa);
                } else if (op == 0xb2 || op == 0xb3) {
                    staticField(cf.ref(u2(c, pc + 1)), op == 0xb3);
                    len = 3;
                } else if (op == 0xb4 || op == 0xb5) {
                    len = 3; // instance fields of objects: only objects this code created or immutable ones
                } else if (op == 0xb6 || op == 0xb7 || op == 0xb8) {
                    invoke(cf.ref(u2(c, pc + 1)), op);
                    len = 3;
                } else if (op == 0xba) {
                    invokeDynamic(cf.invokeDynamic(u2(c, pc + 1)));
                    len = 5;
                } else if (op == 0xbb) {
                    create(cf.className(u2(c, pc + 1)));
                    len = 3;
                } else if (op == 0xbd || op == 0xc0 || op == 0xc1) {
                    len = 3; // anewarray, checkcast, instanceof load a class but do not initialise it
                } else if (op == 0xc5) {
                    len = 4;
                } else if (op == 0xc4) {
                    int inner = c[pc + 1] & 0xff;
                    len = inner == 0x84 ? 6 : 4;
                } else {
                    throw new Reject("its initialisation uses opcode 0x" + Integer.toHexString(op)
                            + " (interface call, subroutine or unknown)");
                }
                pc += len;
            }
        }

        /** A jump by {@code offset} bytes; a backward one makes a loop. */
        private void forward(int offset) {
            if (offset <= 0) {
                loops = true;
            }
        }

        private int switchLength(byte[] c, int pc, boolean table) throws Reject {
            int p = (pc + 4) & ~3;
            forward(u4(c, p));
            if (table) {
                int low = u4(c, p + 4);
                int high = u4(c, p + 8);
                int n = high - low + 1;
                for (int k = 0; k < n; k++) {
                    forward(u4(c, p + 12 + 4 * k));
                }
                return p + 12 + 4 * n - pc;
            }
            int n = u4(c, p + 4);
            for (int k = 0; k < n; k++) {
                forward(u4(c, p + 12 + 8 * k));
            }
            return p + 8 + 8 * n - pc;
        }

        private void constant(ClassFile cf, int index) throws Reject {
            int tag = cf.tag(index);
            if (tag == ClassFile.CONSTANT_METHOD_HANDLE || tag == ClassFile.CONSTANT_METHOD_TYPE
                    || tag == ClassFile.CONSTANT_DYNAMIC) {
                throw new Reject("its initialisation loads a method handle or dynamic constant");
            }
        }

        private void staticField(ClassFile.Ref r, boolean write) throws Reject {
            String declaring = declaringProjectField(r.owner, r.name);
            if (declaring != null) {
                if (declaring.equals(root)) {
                    return; // its own fields, being initialised
                }
                if (write) {
                    throw new Reject("its initialisation writes " + dotted(declaring) + "." + r.name);
                }
                ClassFile.Member f = parsed(declaring).field(r.name);
                if (!f.is(ClassFile.ACC_FINAL)) {
                    throw new Reject("its initialisation reads the non-final field " + dotted(declaring) + "."
                            + r.name + ", which a test may have changed");
                }
                if (!immutableType(f.descriptor) && !jdkValueType(f.descriptor) && !f.is(ClassFile.ACC_SYNTHETIC)) {
                    // The worker puts such values back after a test, but it may initialise this
                    // class before it has (Loaders.settle), and then it would read what the test left.
                    throw new Reject("its initialisation reads " + dotted(declaring) + "." + r.name
                            + ", whose contents a test may have changed");
                }
                dependency(root, declaring);
                return;
            }
            if (write) {
                throw new Reject("its initialisation writes " + dotted(r.owner) + "." + r.name);
            }
            if (!finalLibraryField(r.owner, r.name)) {
                throw new Reject("its initialisation reads " + dotted(r.owner) + "." + r.name
                        + ", which is not a final field");
            }
        }

        /** The project class that declares static field {@code name} as seen from {@code owner}, or null. */
        private String declaringProjectField(String owner, String name) {
            ClassFile cf = parsed(owner);
            if (cf == null) {
                return null;
            }
            if (cf.field(name) != null) {
                return owner;
            }
            for (String i : cf.interfaces) {
                String d = declaringProjectField(i, name);
                if (d != null) {
                    return d;
                }
            }
            return cf.superName == null ? null : declaringProjectField(cf.superName, name);
        }

        private boolean finalLibraryField(String owner, String name) {
            try {
                for (Class<?> k = Class.forName(dotted(owner), false, libraries); k != null; k = k.getSuperclass()) {
                    for (Field f : k.getDeclaredFields()) {
                        if (f.getName().equals(name)) {
                            return Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers());
                        }
                    }
                }
            } catch (ClassNotFoundException | LinkageError | SecurityException e) {
                return false;
            }
            return false;
        }

        private void create(String type) throws Reject {
            if (isProject(type)) {
                dependency(root, type);
                return;
            }
            if (!type.equals("java/lang/StringBuilder") && !type.equals("java/lang/StringBuffer")
                    && !type.equals("java/lang/String") && !BOXES.contains(type) && !type.equals("java/lang/Object")
                    && !type.equals("java/math/BigInteger") && !type.equals("java/math/BigDecimal")
                    && !type.equals("java/math/MathContext") && !jdkThrowable(type)) {
                throw new Reject("its initialisation creates a " + dotted(type));
            }
        }

        private void invoke(ClassFile.Ref r, int op) throws Reject {
            if (r.owner.startsWith("[")) {
                if (r.name.equals("clone")) {
                    return; // values() of an enum
                }
                throw new Reject("its initialisation calls " + r.name + " on an array");
            }
            if (r.owner.equals("ctgls/rt/Probe")) {
                // register is idempotent per key; the other probes only record, and the worker
                // replays what an initialiser recorded for every test that would have run it
                // (Loaders, Probe.recordInitialisation).
                return;
            }
            if (r.owner.equals("ctgls/rt/Mutants")) {
                // register is idempotent per key, the rest are functions of their arguments and
                // the active mutant, which is none but in a mutated request, whose tests each get
                // a fresh loader.
                return;
            }
            // Resolve through the project superclasses; the first JDK or library class ends the walk.
            for (String k = r.owner; k != null; ) {
                ClassFile cf = parsed(k);
                if (cf == null) {
                    if (!jdkCall(k, r.name, r.descriptor)) {
                        throw new Reject("its initialisation calls " + dotted(k) + "." + r.name + r.descriptor);
                    }
                    return;
                }
                ClassFile.Member m = cf.method(r.name, r.descriptor);
                if (m != null) {
                    boolean exact = op != 0xb6 || m.is(ClassFile.ACC_PRIVATE) || m.is(ClassFile.ACC_FINAL)
                            || cf.is(ClassFile.ACC_FINAL) || m.is(ClassFile.ACC_STATIC);
                    if (!exact) {
                        throw new Reject("its initialisation makes a virtual call of " + dotted(k) + "." + r.name);
                    }
                    if (op == 0xb8 || op == 0xb7) {
                        dependency(root, k);
                    }
                    method(cf, m);
                    return;
                }
                k = cf.superName;
            }
            throw new Reject("its initialisation calls an unresolvable " + r.name);
        }

        private void invokeDynamic(ClassFile.Ref r) throws Reject {
            if (r.owner.equals("java/lang/invoke/LambdaMetafactory")) {
                // Makes an object of a generated class holding the captured values; the lambda's
                // body only runs when it is called (through an interface call, which this scan
                // rejects). The captured values are checked as values (StaticValues).
                return;
            }
            if (!r.owner.equals("java/lang/invoke/StringConcatFactory")) {
                throw new Reject("its initialisation uses invokedynamic (" + dotted(r.owner) + "." + r.name + ")");
            }
            // Concatenation converts its operands with toString(): only of values without user code.
            for (String p : parameters(r.descriptor)) {
                if (!isPrimitive(p) && !p.equals("Ljava/lang/String;")
                        && !(p.startsWith("L") && BOXES.contains(p.substring(1, p.length() - 1)))) {
                    throw new Reject("its initialisation concatenates a " + typeName(p));
                }
            }
        }
    }

    /** An exception or error class of {@code java.lang}, which an initialiser may make and throw. */
    private static boolean jdkThrowable(String type) {
        return type.startsWith("java/lang/") && type.indexOf('/', 10) < 0
                && (type.endsWith("Exception") || type.endsWith("Error"));
    }

    /**
     * JDK methods an initialiser may call: they have no side effects outside the objects the
     * initialiser made, read no mutable global state (default locale, system properties, time,
     * random numbers) and call no user code (so no Object or CharSequence parameters).
     */
    static boolean jdkCall(String owner, String name, String descriptor) {
        boolean safeParams = true;
        for (String p : parameters(descriptor)) {
            if (!isPrimitive(p) && !p.equals("Ljava/lang/String;") && !(p.startsWith("[") && isPrimitive(p.substring(1)))) {
                safeParams = false;
            }
        }
        if (jdkThrowable(owner)) {
            return name.equals("<init>") && safeParams;
        }
        switch (owner) {
            case "java/lang/Object":
            case "java/lang/Number":
            case "java/io/InputStream":
            case "java/io/OutputStream":
                // Constructors of JDK base classes without state of their own.
                return name.equals("<init>") && descriptor.equals("()V");
            case "java/lang/Enum":
                return name.equals("<init>") || name.equals("ordinal") || name.equals("name");
            case "java/lang/Record":
                return name.equals("<init>");
            case "java/lang/Class":
                return name.equals("desiredAssertionStatus") || name.equals("getName");
            case "java/util/Objects":
                return name.equals("requireNonNull") && (descriptor.equals("(Ljava/lang/Object;)Ljava/lang/Object;")
                        || descriptor.equals("(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/Object;"));
            case "java/lang/String":
                if (name.equals("format") || name.equals("formatted") || name.equals("toLowerCase")
                        || name.equals("toUpperCase")) {
                    return false; // the default locale
                }
                return safeParams || name.equals("equals") && descriptor.equals("(Ljava/lang/Object;)Z");
            case "java/lang/StringBuilder":
            case "java/lang/StringBuffer":
                return safeParams;
            case "java/lang/Math":
            case "java/lang/StrictMath":
                return safeParams && !name.equals("random");
            case "java/util/Arrays":
                // fill, copyOf, sort and friends on the initialiser's own primitive arrays.
                return safeParams;
            case "java/math/BigInteger":
            case "java/math/BigDecimal":
            case "java/math/MathContext":
                // Immutable numbers (BigInteger(int, Random) takes a Random, so is not safe).
                return safeParams || name.equals("equals") && descriptor.equals("(Ljava/lang/Object;)Z")
                        || (name.equals("add") || name.equals("subtract") || name.equals("multiply")
                                || name.equals("divide") || name.equals("pow") || name.equals("shiftLeft")
                                || name.equals("negate") || name.equals("setScale") || name.equals("compareTo"))
                                && !descriptor.contains("Ljava/lang/Object;");
            case "java/nio/charset/Charset":
                // A charset by name: the JDK's providers, the same answer whenever it is asked.
                return name.equals("forName") && descriptor.equals("(Ljava/lang/String;)Ljava/nio/charset/Charset;")
                        || name.equals("name") && descriptor.equals("()Ljava/lang/String;");
            case "java/util/regex/Pattern":
                return (name.equals("compile") || name.equals("quote")) && safeParams;
            default:
                if (BOXES.contains(owner)) {
                    if (name.equals("getInteger") || name.equals("getLong") || name.equals("getBoolean")) {
                        return false; // system properties
                    }
                    return safeParams || name.equals("equals") && descriptor.equals("(Ljava/lang/Object;)Z");
                }
                return false;
        }
    }

    /** Parameter descriptors of a method descriptor. */
    static List<String> parameters(String descriptor) {
        List<String> out = new ArrayList<>();
        int p = 1;
        while (p < descriptor.length() && descriptor.charAt(p) != ')') {
            int start = p;
            while (descriptor.charAt(p) == '[') {
                p++;
            }
            if (descriptor.charAt(p) == 'L') {
                p = descriptor.indexOf(';', p);
            }
            p++;
            out.add(descriptor.substring(start, p));
        }
        return out;
    }

    private static int u2(byte[] c, int p) {
        return ((c[p] & 0xff) << 8) | (c[p + 1] & 0xff);
    }

    private static int u4(byte[] c, int p) {
        return ((c[p] & 0xff) << 24) | ((c[p + 1] & 0xff) << 16) | ((c[p + 2] & 0xff) << 8) | (c[p + 3] & 0xff);
    }
}
