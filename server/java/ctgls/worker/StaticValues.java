package ctgls.worker;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Static fields whose kind the class file leaves open ({@link StaticState.Verdict#valueChecked}):
 * decided from the value an initialised pristine copy of the class holds, and put back after
 * every test from that copy.
 *
 * <p>The pristine copy lives in the unit's template loader, which no test ever uses; its class
 * initialiser passed {@link StaticState}'s purity rule, so it computed exactly what the test
 * loader's copy computed when it was initialised. The value graph of the field is walked in the
 * pristine and the live copy side by side:
 * <ul>
 *   <li>values that cannot change are left alone: {@code null}, strings, boxes, and JDK values
 *       that are immutable ({@link #shareable});</li>
 *   <li>an array behind a final edge keeps its identity for ever, so its elements are copied back
 *       from the pristine array (primitives, shareable values, or project enum constants, which
 *       are mapped to the live loader's constants by name);</li>
 *   <li>an object of a project class behind a final edge keeps its identity too: its final
 *       instance fields are walked the same way, its non-final ones are set back when their
 *       pristine value is a primitive, a shareable value or an enum constant;</li>
 *   <li>a non-final static field is set back the same way;</li>
 *   <li>anything else (a JDK collection, an object of a non-final field, a JDK object with state)
 *       cannot be put back: the class is not reusable, and the reason says which value.</li>
 * </ul>
 * Why putting back is enough: after a test no code of it runs any more (the worker checks for
 * leaked threads and a busy common pool first), so the static fields are the only way a later
 * test reaches what this one touched, and every object reachable from them through final edges
 * is the one the class's initialiser made. Restored element by element and field by field, they
 * hold what a fresh initialisation would have put there. What a fresh copy would not share is
 * the objects' identity hash codes and monitors, which no test can rely on.
 */
final class StaticValues {
    /** Why a value cannot be put back. */
    static final class Unrestorable extends Exception {
        private static final long serialVersionUID = 1L;

        Unrestorable(String message) {
            super(message, null, false, false);
        }
    }

    /** One step of putting static state back after a test. */
    interface Restore {
        void apply() throws ReflectiveOperationException;
    }

    private final ClassLoader pristineLoader;
    private final ClassLoader liveLoader;
    private final List<Restore> out;
    private final Map<Object, Boolean> visited = new IdentityHashMap<>();

    /**
     * @param pristineLoader the template loader whose classes no test uses
     * @param liveLoader the test loader whose state is put back
     * @param out where the restoring steps go
     */
    StaticValues(ClassLoader pristineLoader, ClassLoader liveLoader, List<Restore> out) {
        this.pristineLoader = pristineLoader;
        this.liveLoader = liveLoader;
        this.out = out;
    }

    /** Plans putting static field {@code name} of {@code live} back to its value in {@code pristine}. */
    void staticField(Class<?> live, Class<?> pristine, String name)
            throws Unrestorable, ReflectiveOperationException {
        Field lf = live.getDeclaredField(name);
        Field pf = pristine.getDeclaredField(name);
        lf.setAccessible(true);
        pf.setAccessible(true);
        field(lf, pf, null, null, name);
    }

    private void field(Field lf, Field pf, Object liveHolder, Object pristineHolder, String path)
            throws Unrestorable, ReflectiveOperationException {
        Object p = pf.get(pristineHolder);
        if (Modifier.isFinal(lf.getModifiers())) {
            follow(p, lf.get(liveHolder), path);
            return;
        }
        // The test may have put anything here: set back a value equal to the pristine one.
        Object value;
        if (lf.getType().isPrimitive() || p == null || shareable(p)) {
            value = p;
        } else if (projectEnum(p)) {
            value = liveConstant((Enum<?>) p);
        } else {
            throw new Unrestorable(path + " is not final and holds a " + p.getClass().getName());
        }
        out.add(() -> lf.set(liveHolder, value));
    }

    /** The pristine value {@code p} behind a final edge, and the live object at the same place. */
    private void follow(Object p, Object live, String path) throws Unrestorable, ReflectiveOperationException {
        if (p == null || shareable(p) || p instanceof Class || visited.put(p, Boolean.TRUE) != null) {
            return; // a Class's own state is its static state, judged by its own verdict
        }
        Class<?> c = p.getClass();
        if (live == null || !sameClass(c, live.getClass())) {
            throw new Unrestorable(path + " differs between two initialisations");
        }
        if (c.isArray()) {
            array(p, live, path);
            return;
        }
        if (c.getClassLoader() != pristineLoader) {
            throw new Unrestorable(path + " holds a " + c.getName() + ", whose state cannot be put back");
        }
        Class<?> lk = live.getClass();
        for (Class<?> k = c; k != null; k = k.getSuperclass(), lk = lk.getSuperclass()) {
            if (k.getClassLoader() != pristineLoader) {
                if (k != Enum.class && !stateless(k)) {
                    throw new Unrestorable(path + " is a " + c.getName() + ", which inherits the state of "
                            + k.getName());
                }
                break;
            }
            for (Field pf : k.getDeclaredFields()) {
                if (Modifier.isStatic(pf.getModifiers())) {
                    continue;
                }
                Field lf = lk.getDeclaredField(pf.getName());
                pf.setAccessible(true);
                lf.setAccessible(true);
                field(lf, pf, live, p, path + "." + pf.getName());
            }
        }
    }

    /**
     * The same class in two loaders. A lambda's class is generated per loader under a name of
     * its own, so only the part up to {@code $$Lambda} is compared; its captured values are
     * walked like fields.
     */
    private static boolean sameClass(Class<?> pristine, Class<?> live) {
        String p = pristine.getName();
        String l = live.getName();
        // A lambda's hidden class has another name in every loader: Outer$$Lambda$<n>/0x<address>
        // up to Java 20, Outer$$Lambda/0x<address> since 21.
        int lambda = p.indexOf("$$Lambda");
        if (lambda < 0) {
            return p.equals(l);
        }
        return l.startsWith(p.substring(0, lambda + "$$Lambda".length()));
    }

    private void array(Object p, Object live, String path) throws Unrestorable {
        int n = Array.getLength(p);
        if (n != Array.getLength(live)) {
            throw new Unrestorable(path + " differs in length between two initialisations");
        }
        if (n == 0) {
            return; // nothing to change in an empty array
        }
        if (p.getClass().getComponentType().isPrimitive()) {
            out.add(() -> System.arraycopy(p, 0, live, 0, n));
            return;
        }
        Object[] elements = (Object[]) p;
        Object[] pristine = new Object[n];
        for (int k = 0; k < n; k++) {
            Object e = elements[k];
            if (e == null || shareable(e)) {
                pristine[k] = e;
            } else if (projectEnum(e)) {
                pristine[k] = liveConstant((Enum<?>) e);
            } else {
                throw new Unrestorable(path + "[" + k + "] holds a " + e.getClass().getName()
                        + ", whose state cannot be put back");
            }
        }
        out.add(() -> System.arraycopy(pristine, 0, live, 0, n));
    }

    private boolean projectEnum(Object v) {
        return v instanceof Enum && ((Enum<?>) v).getDeclaringClass().getClassLoader() == pristineLoader;
    }

    /** The live loader's constant of the same name as the pristine {@code e}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private Object liveConstant(Enum<?> e) throws Unrestorable {
        try {
            Class live = Class.forName(e.getDeclaringClass().getName(), true, liveLoader);
            return Enum.valueOf(live, e.name());
        } catch (ClassNotFoundException | LinkageError | IllegalArgumentException x) {
            throw new Unrestorable("the constant " + e.getDeclaringClass().getName() + "." + e.name()
                    + " cannot be found again (" + x + ")");
        }
    }

    /**
     * Immutable JDK value classes (by instance here; by declared type in {@link StaticState},
     * where a final field of one holds the same value for ever).
     */
    static final List<Class<?>> JDK_VALUE_CLASSES = Arrays.<Class<?>>asList(java.math.BigInteger.class,
            java.math.BigDecimal.class, java.math.MathContext.class, java.nio.charset.Charset.class,
            java.util.regex.Pattern.class, java.util.Locale.class, java.util.UUID.class);

    /**
     * A value no code can change and that both loaders can share, because its class is the
     * JDK's: strings, boxes, JDK enums, immutable JDK value classes, objects without instance
     * fields, and immutable collections of such values.
     */
    static boolean shareable(Object v) {
        if (v == null || v instanceof String || v instanceof Integer || v instanceof Long || v instanceof Short
                || v instanceof Byte || v instanceof Float || v instanceof Double || v instanceof Character
                || v instanceof Boolean) {
            return true;
        }
        Class<?> c = v.getClass();
        if (c.getClassLoader() != null || c.isArray()) {
            return false; // a project subclass of a JDK value class; arrays can always change
        }
        if (v instanceof Enum || v instanceof java.net.URI || c.getName().startsWith("java.time.")) {
            return true;
        }
        for (Class<?> k : JDK_VALUE_CLASSES) {
            if (k.isInstance(v)) {
                return true;
            }
        }
        if (v instanceof Class) {
            return ((Class<?>) v).getClassLoader() == null;
        }
        if (v instanceof Optional) {
            return shareable(((Optional<?>) v).orElse(null));
        }
        String name = c.getName();
        if (name.startsWith("java.util.Collections$Empty")) {
            return true;
        }
        if (name.startsWith("java.util.ImmutableCollections$")) {
            if (v instanceof Map) {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!shareable(e.getKey()) || !shareable(e.getValue())) {
                        return false;
                    }
                }
                return true;
            }
            if (v instanceof Collection) {
                for (Object e : (Collection<?>) v) {
                    if (!shareable(e)) {
                        return false;
                    }
                }
                return true;
            }
            return false;
        }
        return stateless(c);
    }

    /** A JDK class without instance fields, its superclasses included (e.g. a plain lock object). */
    private static boolean stateless(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    return false;
                }
            }
        }
        return true;
    }
}
