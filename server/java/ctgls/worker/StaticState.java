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
 *       final) calls or on values whose class is known exactly, lambdas, probes, and calls of a
 *       short list of JDK methods without side effects, dependence on mutable global state or
 *       calls of user code through their arguments ({@link InitJdk}); only code the
 *       initialisation can reach counts ({@link InitScan}, an abstract interpretation);</li>
 *   <li>that code has no recursion and is small; a reachable loop ({@link Verdict#loops}) leaves
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
    static final int MAX_INIT_CODE = 64 * 1024;

    static final Set<String> BOXES = new HashSet<>(Arrays.asList(
            "java/lang/Integer", "java/lang/Long", "java/lang/Short", "java/lang/Byte", "java/lang/Character",
            "java/lang/Boolean", "java/lang/Float", "java/lang/Double"));

    private final Map<String, byte[]> classes;
    final ClassLoader libraries;
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

    boolean isProject(String internalName) {
        return classes.containsKey(internalName.replace('/', '.'));
    }

    ClassFile parsed(String internalName) {
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

    static String dotted(String internalName) {
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
    static final class Reject extends Exception {
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
            InitScan scan = new InitScan(this, name);
            scan.initialiser(cf, clinit);
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
    static boolean jdkValueType(String d) {
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
    void dependency(String from, String to) throws Reject {
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

    static boolean isPrimitive(String d) {
        return d.length() == 1 && "ZBCSIJFD".indexOf(d.charAt(0)) >= 0;
    }

    static String typeName(String d) {
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

    boolean immutableType(String d) {
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
}
