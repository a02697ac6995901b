package ctgls.worker;

import ctgls.rt.DeadlineExceeded;
import ctgls.rt.Probe;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Summaries of statement values that later become regression assertions: the value of primitives,
 * Strings and enums, null-ness and runtime type of objects and, when asked, the values of no-arg
 * getters and record component accessors: public ones, and the package-private and protected
 * ones declared in the test's package, which a test there can call too. Getters run in the test
 * thread with recording paused but the deadline active.
 */
final class Observer {
    private static final int MAX_STRING = 1000;
    private final boolean getters;
    private final int maxGetters;
    /** The emitted test's package; {@code null} observes public getters only. */
    private final String testPackage;
    /** The release the tests are compiled at: getters of JDK classes it lacks are not observed; 0: any. */
    private final int release;
    private final Map<Class<?>, Method[]> methods = new java.util.HashMap<>();

    Observer(boolean getters, int maxGetters, String testPackage, int release) {
        this.getters = getters;
        this.maxGetters = maxGetters;
        this.testPackage = testPackage;
        this.release = release;
    }

    /**
     * The no-arg getter candidates of {@code c}: its public methods and, with a test package, the
     * package-private and protected members declared in that package (JLS 6.6; a test is not a
     * subclass, so a protected member of another package is out).
     */
    private Method[] candidateMethods(Class<?> c) {
        Method[] cached = methods.get(c);
        if (cached != null) {
            return cached;
        }
        boolean inPackage = false;
        for (Class<?> k = c; testPackage != null && k != null; k = k.getSuperclass()) {
            inPackage |= Describer.packageOf(k).equals(testPackage);
        }
        Method[] all;
        if (!inPackage) {
            all = c.getMethods();
        } else {
            List<Method> keep = new ArrayList<>();
            for (Method x : Describer.memberMethods(c)) {
                if (Modifier.isPublic(x.getModifiers())
                        || Describer.packageOf(x.getDeclaringClass()).equals(testPackage)) {
                    keep.add(x);
                }
            }
            all = keep.toArray(new Method[0]);
        }
        methods.put(c, all);
        return all;
    }

    Map<String, Object> summarize(Object v, Class<?> declared) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (v == null) {
            m.put("type", declared == null ? null : declared.getTypeName());
            m.put("null", true);
            return m;
        }
        Class<?> c = v.getClass();
        m.put("type", declared != null && declared.isPrimitive() ? declared.getTypeName() : c.getTypeName());
        m.put("null", false);
        simple(v, m);
        if (m.containsKey("value") || m.containsKey("enum")) {
            return m;
        }
        if (c.isArray()) {
            m.put("length", (long) Array.getLength(v));
            return m;
        }
        if (getters) {
            m.put("getters", getters(v));
        }
        return m;
    }

    private static void simple(Object v, Map<String, Object> m) {
        if (v instanceof String) {
            String s = (String) v;
            if (s.length() > MAX_STRING) {
                m.put("value", Json.exactText(s.substring(0, MAX_STRING)));
                m.put("truncated", true);
            } else {
                m.put("value", Json.exactText(s));
            }
        } else if (v instanceof Character) {
            m.put("value", Json.exactText(String.valueOf(v)));
        } else if (v instanceof Boolean || v instanceof Double || v instanceof Float) {
            m.put("value", v);
        } else if (v instanceof Number && v.getClass().getName().startsWith("java.lang.")) {
            m.put("value", ((Number) v).longValue());
        } else if (v instanceof Enum) {
            m.put("enum", ((Enum<?>) v).name());
        }
    }

    private List<Object> getters(Object v) {
        List<Method> candidates = new ArrayList<>();
        Set<String> accessors = recordAccessors(v.getClass());
        for (Method x : candidateMethods(v.getClass())) {
            if (x.getParameterCount() != 0 || Modifier.isStatic(x.getModifiers()) || x.isSynthetic()
                    || x.getDeclaringClass() == Object.class || !Types.isSimple(x.getReturnType())
                    || !(isGetterName(x.getName(), x.getReturnType()) || accessors.contains(x.getName()))
                    || changesReceiver(v, x) || !JdkApi.has(release, x)) {
                continue;
            }
            candidates.add(x);
        }
        candidates.sort(Comparator.comparing(Method::getName));
        List<Object> out = new ArrayList<>();
        Probe.pause(true);
        try {
            for (Method x : candidates) {
                if (out.size() >= maxGetters) {
                    break;
                }
                Map<String, Object> g = new LinkedHashMap<>();
                g.put("name", x.getName());
                try {
                    Method callable = accessible(x);
                    Object r = callable.invoke(v);
                    Map<String, Object> s = new LinkedHashMap<>();
                    if (r == null) {
                        s.put("null", true);
                    } else {
                        simple(r, s);
                    }
                    g.putAll(s);
                } catch (InvocationTargetException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof DeadlineExceeded || TestCase.isThreadDeath(cause)) {
                        throw (Error) cause;
                    }
                    g.put("threw", cause == null ? "unknown" : cause.getClass().getName());
                } catch (ReflectiveOperationException | RuntimeException e) {
                    continue;
                }
                out.add(g);
            }
        } finally {
            Probe.pause(false);
        }
        return out;
    }

    /**
     * JDK methods named like getters that change their receiver: a buffer's relative gets
     * ({@code ByteBuffer.getInt()} moves its position) and the atomics' read-modify-writes
     * ({@code getAndIncrement}). Observing them would change what the test's later statements
     * see, and a JUnit test that does not call them would then disagree with the worker.
     */
    private static boolean changesReceiver(Object v, Method x) {
        String n = x.getName();
        return v instanceof java.nio.Buffer && n.startsWith("get") || n.startsWith("getAnd");
    }

    /**
     * The names of a record's component accessors ({@code x()} of {@code record Point(int x)}),
     * which hold its state as getters hold a bean's. The worker is compiled for Java 11, so a
     * record is recognised by its superclass and its components are read through
     * {@code Class.getRecordComponents} by reflection; before Java 16 there are no records.
     */
    private static Set<String> recordAccessors(Class<?> c) {
        Class<?> parent = c.getSuperclass();
        if (parent == null || !"java.lang.Record".equals(parent.getName())) {
            return Collections.emptySet();
        }
        Set<String> names = new HashSet<>();
        try {
            Object components = Class.class.getMethod("getRecordComponents").invoke(c);
            if (components instanceof Object[]) {
                for (Object rc : (Object[]) components) {
                    Method accessor = (Method) rc.getClass().getMethod("getAccessor").invoke(rc);
                    names.add(accessor.getName());
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // Components that cannot be read: the getter names are still observed.
        }
        return names;
    }

    private static boolean isGetterName(String n, Class<?> ret) {
        if (n.length() > 3 && n.startsWith("get") && Character.isUpperCase(n.charAt(3))) {
            return true;
        }
        if (n.length() > 2 && n.startsWith("is") && Character.isUpperCase(n.charAt(2))) {
            return ret == boolean.class || ret == Boolean.class;
        }
        if (n.length() > 3 && n.startsWith("has") && Character.isUpperCase(n.charAt(3))) {
            return ret == boolean.class || ret == Boolean.class;
        }
        return Arrays.asList("size", "length", "isEmpty").contains(n);
    }

    /**
     * A package-private or protected method is made accessible; a public method of a non-public
     * class is too, or else invoked through a public supertype's declaration.
     */
    static Method accessible(Method m) {
        if (Modifier.isPublic(m.getDeclaringClass().getModifiers()) && Modifier.isPublic(m.getModifiers())) {
            return m;
        }
        try {
            m.setAccessible(true);
            return m;
        } catch (RuntimeException e) {
            // A JDK-internal class: look the method up on its public supertypes.
        }
        for (Class<?> s = m.getDeclaringClass(); s != null; s = s.getSuperclass()) {
            for (Class<?> t : superTypes(s)) {
                if (Modifier.isPublic(t.getModifiers())) {
                    try {
                        return t.getMethod(m.getName(), m.getParameterTypes());
                    } catch (NoSuchMethodException e) {
                        // keep looking
                    }
                }
            }
        }
        return m;
    }

    private static List<Class<?>> superTypes(Class<?> c) {
        List<Class<?>> out = new ArrayList<>();
        out.add(c);
        for (Class<?> i : c.getInterfaces()) {
            out.addAll(superTypes(i));
        }
        return out;
    }
}
