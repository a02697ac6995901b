package ctgls.worker;

import ctgls.rt.Environment;
import ctgls.rt.DeadlineExceeded;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One test case: a sequence of statements interpreted by reflection in the test thread.
 *
 * <p>Statement {@code i} defines value {@code i} (void statements define null); arguments refer
 * to earlier values by index. Execution stops at the first statement that throws.
 */
final class TestCase implements Runnable {
    /** Why the statement sequence ended. */
    enum End { OK, EXCEPTION, INVALID, TIMEOUT, SYSTEM_EXIT, STACK_OVERFLOW, OUT_OF_MEMORY }

    /** A statement that cannot be executed as written (not an outcome of the code under test). */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    /**
     * An exception the statement itself throws, as the same Java statement would: a call or field
     * access on a null receiver, unboxing a null argument, an array index out of bounds.
     */
    static final class Thrown extends Exception {
        private static final long serialVersionUID = 1L;
        final Throwable exception;

        Thrown(Throwable exception) {
            super(null, null, false, false);
            this.exception = exception;
        }
    }

    private final List<Object> statements;
    private final Unit.TestLoader loader;
    private final Observer observer;
    private final Set<String> projectClasses;
    private final List<String> underTest;

    final List<Object> results = Collections.synchronizedList(new ArrayList<>());
    volatile End end = End.OK;
    volatile int failedAt = -1;
    volatile Map<String, Object> exception;
    volatile String message;
    volatile int exitStatus;
    private Object[] values;
    private Class<?>[] types;

    TestCase(List<Object> statements, Unit.TestLoader loader, Observer observer, Set<String> projectClasses,
            List<String> underTest) {
        this.statements = statements;
        this.loader = loader;
        this.observer = observer;
        this.projectClasses = projectClasses;
        this.underTest = underTest;
    }

    static boolean isThreadDeath(Throwable t) {
        return t != null && "java.lang.ThreadDeath".equals(t.getClass().getName());
    }

    @Override
    public void run() {
        values = new Object[statements.size()];
        types = new Class<?>[statements.size()];
        int i = 0;
        try {
            for (; i < statements.size(); i++) {
                Map<String, Object> s = Json.obj(statements.get(i), "statement " + i);
                try {
                    values[i] = execute(s, i, types);
                } catch (InvocationTargetException e) {
                    thrown(i, e.getCause(), lastCallee);
                    return;
                } catch (Thrown e) {
                    thrown(i, e.exception, null);
                    if (exception != null) {
                        exception.put("byStatement", true);
                    }
                    return;
                }
                Map<String, Object> r = new LinkedHashMap<>();
                if (types[i] == void.class) {
                    r.put("void", true);
                } else {
                    r.put("value", observer.summarize(values[i], types[i]));
                }
                results.add(r);
            }
        } catch (Invalid e) {
            end = End.INVALID;
            failedAt = i;
            message = e.getMessage();
        } catch (IllegalArgumentException e) {
            end = End.INVALID;
            failedAt = i;
            message = String.valueOf(e.getMessage());
        } catch (OutOfMemoryError e) {
            values = null;
            end = End.OUT_OF_MEMORY;
            failedAt = i;
        } catch (StackOverflowError e) {
            end = End.STACK_OVERFLOW;
            failedAt = i;
        } catch (DeadlineExceeded e) {
            end = End.TIMEOUT;
            failedAt = i;
        } catch (Throwable e) {
            if (isThreadDeath(e)) {
                end = End.TIMEOUT;
                failedAt = i;
            } else {
                // A throwable from an observed getter or worker code: treat like a thrown exception.
                thrown(i, e, null);
            }
        } finally {
            values = null;
        }
    }

    /** The constructor or method the current statement invokes, for the declared-exception check. */
    private Executable lastCallee;

    /**
     * How many causes of a thrown exception are looked at: user code can chain exceptions into a
     * cycle ({@code a.initCause(b)} with {@code b} caused by {@code a}), which has no end.
     */
    private static final int MAX_CAUSES = 32;

    /**
     * Set when the deadline's error or a {@code Thread.stop} arrived while the worker was calling
     * into a user exception object: the test ran out of time, whatever it threw before.
     */
    private boolean expiredInUserCode;

    private void thrown(int i, Throwable t, Executable called) {
        failedAt = i;
        Throwable root = t;
        int depth = 0;
        for (Throwable c = t; c != null && depth < MAX_CAUSES; c = causeOf(c), depth++) {
            if (c instanceof DeadlineExceeded || isThreadDeath(c)) {
                end = End.TIMEOUT;
                return;
            }
            if (c instanceof ExitGuard.ExitRequested) {
                end = End.SYSTEM_EXIT;
                exitStatus = ((ExitGuard.ExitRequested) c).status;
                return;
            }
        }
        if (root instanceof StackOverflowError) {
            end = End.STACK_OVERFLOW;
        } else if (root instanceof OutOfMemoryError) {
            values = null;
            end = End.OUT_OF_MEMORY;
        } else {
            end = End.EXCEPTION;
            // The exception the test ends with may be a refusal of the sandbox: a test must not
            // assert it (docs/protocol.md, "Environment").
            Environment.refused(root);
        }
        exception = describe(root, called);
        if (expiredInUserCode) {
            end = End.TIMEOUT;
        }
    }

    Map<String, Object> describe(Throwable t, Executable called) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (t == null) {
            m.put("type", "unknown");
            return m;
        }
        m.put("type", t.getClass().getName());
        String msg = messageOf(t);
        if (msg != null && msg.length() > 1000) {
            msg = msg.substring(0, 1000);
        }
        m.put("message", msg == null ? null : Json.exactText(msg));
        boolean declared = false;
        if (called != null) {
            for (Class<?> d : called.getExceptionTypes()) {
                if (d.isInstance(t)) {
                    declared = true;
                }
            }
        }
        m.put("declared", declared);
        m.put("checked", !(t instanceof RuntimeException) && !(t instanceof Error));
        m.put("frame", frame(t));
        Throwable cause = causeOf(t);
        m.put("cause", cause == null ? null : cause.getClass().getName());
        m.put("byStatement", false);
        return m;
    }

    // A user exception may override getCause, getMessage and getStackTrace (Throwable's only
    // overridable methods the worker calls) with code that throws, loops or recurses: each call
    // is guarded, and what it threw stands for "unknown", never for the test's exception.

    /** The exception's cause; null when there is none, it is the exception, or getCause threw. */
    private Throwable causeOf(Throwable t) {
        try {
            Throwable c = t.getCause();
            return c == t ? null : c;
        } catch (Throwable e) {
            noteUserCodeFailure(e);
            return null;
        }
    }

    private String messageOf(Throwable t) {
        try {
            return t.getMessage();
        } catch (Throwable e) {
            noteUserCodeFailure(e);
            return null;
        }
    }

    private StackTraceElement[] stackOf(Throwable t) {
        try {
            StackTraceElement[] st = t.getStackTrace();
            return st == null ? new StackTraceElement[0] : st;
        } catch (Throwable e) {
            noteUserCodeFailure(e);
            return new StackTraceElement[0];
        }
    }

    private void noteUserCodeFailure(Throwable e) {
        if (e instanceof DeadlineExceeded || isThreadDeath(e)) {
            expiredInUserCode = true;
        }
    }

    /**
     * The top stack frame inside the classes under test (all project classes when none given), of
     * the exception or else of the first of its causes that has one: an
     * ExceptionInInitializerError is made after the failed {@code <clinit>} returned, so only its
     * cause's stack shows the line in the class under test.
     */
    private Map<String, Object> frame(Throwable t) {
        int depth = 0;
        for (Throwable c = t; c != null && depth < MAX_CAUSES; c = causeOf(c), depth++) {
            Map<String, Object> f = ownFrame(c);
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    private Map<String, Object> ownFrame(Throwable t) {
        for (StackTraceElement e : stackOf(t)) {
            if (e == null) {
                continue;
            }
            String cls = e.getClassName();
            if (!projectClasses.contains(cls) || !underTest(cls)) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("class", cls);
            m.put("method", e.getMethodName());
            m.put("file", e.getFileName());
            m.put("line", e.getLineNumber() < 0 ? null : (Object) (long) e.getLineNumber());
            return m;
        }
        return null;
    }

    private boolean underTest(String cls) {
        if (underTest.isEmpty()) {
            return true;
        }
        for (String u : underTest) {
            if (cls.equals(u) || cls.startsWith(u + "$")) {
                return true;
            }
        }
        return false;
    }

    private Object execute(Map<String, Object> s, int i, Class<?>[] types)
            throws Invalid, InvocationTargetException, Thrown {
        String kind = Json.str(s, "kind");
        lastCallee = null;
        switch (kind) {
            case "value": {
                Class<?> t = type(Json.str(s, "type"));
                types[i] = t;
                return literal(t, s.get("value"));
            }
            case "null": {
                Class<?> t = type(Json.str(s, "type"));
                if (t.isPrimitive()) {
                    throw new Invalid("null of primitive type " + t);
                }
                types[i] = t;
                return null;
            }
            case "enum": {
                Class<?> t = type(Json.str(s, "type"));
                if (!t.isEnum()) {
                    throw new Invalid(t.getName() + " is not an enum");
                }
                types[i] = t;
                String name = Json.str(s, "name");
                try {
                    Field f = t.getField(name);
                    if (!f.isEnumConstant()) {
                        throw new Invalid(name + " is not a constant of " + t.getName());
                    }
                    // A package-private or private enum: its constants are public fields of a class
                    // the worker cannot access without this.
                    accessible(f);
                    return f.get(null);
                } catch (NoSuchFieldException | IllegalAccessException e) {
                    throw new Invalid("no enum constant " + t.getName() + "." + name);
                } catch (ExceptionInInitializerError e) {
                    // As `E.C` in Java: the first access reports the failed initialisation itself
                    // (later ones throw NoClassDefFoundError, which passes through unchanged).
                    throw new InvocationTargetException(e);
                }
            }
            case "new": {
                Resolved r = constructor(s);
                Class<?> c = r.owner;
                Class<?>[] params = r.params;
                Constructor<?> k = (Constructor<?>) r.member;
                lastCallee = k;
                types[i] = c;
                try {
                    return k.newInstance(args(s, params));
                } catch (InstantiationException | IllegalAccessException e) {
                    throw new Invalid(e.toString());
                } catch (ExceptionInInitializerError e) {
                    throw new InvocationTargetException(e);
                }
            }
            case "call": {
                Resolved r = method(s);
                Class<?> c = r.owner;
                Class<?>[] params = r.params;
                Method m = (Method) r.member;
                String name = m.getName();
                Object receiver = null;
                boolean instance = !Modifier.isStatic(m.getModifiers());
                if (instance) {
                    receiver = ref(s, "receiver");
                    if (receiver != null && !m.getDeclaringClass().isInstance(receiver)) {
                        throw new Invalid("receiver of type " + receiver.getClass().getTypeName() + " has no method "
                                + name);
                    }
                }
                // Java evaluates the arguments before it finds the receiver null.
                Object[] args = args(s, params);
                if (instance && receiver == null) {
                    throw new Thrown(new NullPointerException("Cannot invoke \"" + c.getTypeName() + "." + name
                            + params(params) + "\" because " + nullRef(s.get("receiver"))));
                }
                lastCallee = m;
                types[i] = m.getReturnType();
                try {
                    return m.invoke(receiver, args);
                } catch (IllegalAccessException e) {
                    throw new Invalid(e.toString());
                } catch (ExceptionInInitializerError e) {
                    throw new InvocationTargetException(e);
                }
            }
            case "getField":
            case "setField": {
                Field f = (Field) field(s).member;
                boolean read = kind.equals("getField");
                if (!read && Modifier.isFinal(f.getModifiers())) {
                    throw new Invalid("field " + f.getName() + " is final");
                }
                Object receiver = null;
                boolean instance = !Modifier.isStatic(f.getModifiers());
                if (instance) {
                    receiver = ref(s, "receiver");
                    if (receiver != null && !f.getDeclaringClass().isInstance(receiver)) {
                        throw new Invalid("receiver of type " + receiver.getClass().getTypeName() + " has no field "
                                + f.getName());
                    }
                }
                Object value = read ? null : assignable(f.getType(), s.get("value"), "field " + f.getName());
                if (instance && receiver == null) {
                    throw new Thrown(new NullPointerException("Cannot " + (read ? "read" : "assign") + " field \""
                            + f.getName() + "\" because " + nullRef(s.get("receiver"))));
                }
                try {
                    if (read) {
                        types[i] = f.getType();
                        return f.get(receiver);
                    }
                    types[i] = void.class;
                    f.set(receiver, value);
                    return null;
                } catch (IllegalAccessException e) {
                    throw new Invalid(e.toString());
                } catch (ExceptionInInitializerError e) {
                    throw new InvocationTargetException(e);
                }
            }
            case "newArray": {
                Class<?> component = type(Json.str(s, "type"));
                long length = Json.num(s, "length", -1);
                if (length < 0 || length > 1_000_000) {
                    throw new Invalid("array length " + length);
                }
                Object a = Array.newInstance(component, (int) length);
                types[i] = a.getClass();
                return a;
            }
            case "setElement":
            case "getElement": {
                boolean load = kind.equals("getElement");
                Object a = ref(s, "array");
                Class<?> declared = types[index(s.get("array"))];
                Class<?> arrayType = a != null ? a.getClass() : declared;
                if (arrayType == null || !arrayType.isArray()) {
                    throw new Invalid("statement " + s.get("array") + " is not an array");
                }
                Object rawIndex = s.get("index");
                if (!(rawIndex instanceof Long)) {
                    throw new Invalid("array index " + rawIndex + " is not an integer");
                }
                long index = (Long) rawIndex;
                Class<?> component = arrayType.getComponentType();
                Object value = load ? null : assignable(component, s.get("value"), "an array element");
                if (a == null) {
                    String what = component.isPrimitive() ? component.getName() : "object";
                    throw new Thrown(new NullPointerException("Cannot " + (load ? "load from " : "store to ") + what
                            + " array because " + nullRef(s.get("array"))));
                }
                int length = Array.getLength(a);
                if (index < 0 || index >= length) {
                    throw new Thrown(new ArrayIndexOutOfBoundsException(
                            "Index " + index + " out of bounds for length " + length));
                }
                if (load) {
                    types[i] = component;
                    return Array.get(a, (int) index);
                }
                if (value != null && !component.isPrimitive() && !component.isInstance(value)) {
                    // The array's run-time component type is narrower than its declared one.
                    throw new Thrown(new ArrayStoreException(value.getClass().getName()));
                }
                types[i] = void.class;
                Array.set(a, (int) index, value);
                return null;
            }
            case "consoleInput": {
                InputEnvironment.console(Json.str(s, "text"));
                types[i] = void.class;
                return null;
            }
            case "systemProperty": {
                InputEnvironment.property(Json.str(s, "key"), Json.str(s, "value"));
                types[i] = void.class;
                return null;
            }
            case "inputFile": {
                Class<?> t = type(Json.str(s, "type"));
                types[i] = t;
                return InputEnvironment.file(Json.str(s, "name"), Json.optStr(s, "content"), t);
            }
            default:
                throw new Invalid("unknown statement kind '" + kind + "'");
        }
    }

    /**
     * A constructor, method or field a statement names, looked up once per class loader: a kept
     * loader serves many tests, and the lookups cost more than most calls.
     */
    private static final class Resolved {
        final Class<?> owner;
        final Class<?>[] params;
        final Member member;

        Resolved(Class<?> owner, Class<?>[] params, Member member) {
            this.owner = owner;
            this.params = params;
            this.member = member;
        }
    }

    private Resolved constructor(Map<String, Object> s) throws Invalid {
        String cls = Json.str(s, "class");
        List<Object> key = Arrays.asList("new", cls, s.get("params"));
        Resolved r = (Resolved) loader.resolved.get(key);
        if (r == null) {
            Class<?> c = type(cls);
            Class<?>[] params = params(s);
            Constructor<?> k;
            try {
                k = c.getDeclaredConstructor(params);
            } catch (NoSuchMethodException e) {
                throw new Invalid("no constructor " + c.getName() + params(params));
            }
            if (Modifier.isAbstract(c.getModifiers())) {
                throw new Invalid("cannot instantiate abstract " + c.getName());
            }
            accessible(k);
            r = new Resolved(c, params, k);
            loader.resolved.put(key, r);
        }
        return r;
    }

    private Resolved method(Map<String, Object> s) throws Invalid {
        String cls = Json.str(s, "class");
        String name = Json.str(s, "method");
        List<Object> key = Arrays.asList("call", cls, name, s.get("params"));
        Resolved r = (Resolved) loader.resolved.get(key);
        if (r == null) {
            Class<?> c = type(cls);
            Class<?>[] params = params(s);
            Method m = method(c, name, params);
            accessible(m);
            r = new Resolved(c, params, m);
            loader.resolved.put(key, r);
        }
        return r;
    }

    private Resolved field(Map<String, Object> s) throws Invalid {
        String cls = Json.str(s, "class");
        String name = Json.str(s, "field");
        List<Object> key = Arrays.asList("field", cls, name);
        Resolved r = (Resolved) loader.resolved.get(key);
        if (r == null) {
            Class<?> c = type(cls);
            Field f;
            try {
                f = field(c, name);
            } catch (NoSuchFieldException e) {
                throw new Invalid("no field " + c.getName() + "." + name);
            }
            if (f.isSynthetic()) {
                throw new Invalid("field " + f.getName() + " is synthetic (not in the source)");
            }
            accessible(f);
            r = new Resolved(c, null, f);
            loader.resolved.put(key, r);
        }
        return r;
    }

    private static void accessible(java.lang.reflect.AccessibleObject o) {
        try {
            o.setAccessible(true);
        } catch (RuntimeException e) {
            // JDK-internal member: public access is all there is.
        }
    }

    private static String params(Class<?>[] params) {
        StringBuilder b = new StringBuilder("(");
        for (int k = 0; k < params.length; k++) {
            if (k > 0) {
                b.append(", ");
            }
            b.append(params[k].getTypeName());
        }
        return b.append(')').toString();
    }

    private static Method method(Class<?> c, String name, Class<?>[] params) throws Invalid {
        try {
            return c.getMethod(name, params);
        } catch (NoSuchMethodException e) {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                try {
                    return k.getDeclaredMethod(name, params);
                } catch (NoSuchMethodException again) {
                    // keep looking in the superclass
                }
            }
            throw new Invalid("no method " + c.getName() + "." + name + params(params));
        } catch (LinkageError e) {
            throw new Invalid("cannot link " + c.getName() + ": " + e);
        }
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        try {
            return c.getField(name);
        } catch (NoSuchFieldException e) {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                try {
                    return k.getDeclaredField(name);
                } catch (NoSuchFieldException again) {
                    // keep looking in the superclass
                }
            }
            throw e;
        }
    }

    private Class<?> type(String name) throws Invalid {
        Class<?> c = (Class<?>) loader.resolved.get(name);
        if (c != null) {
            return c;
        }
        try {
            c = Types.load(name, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new Invalid("unknown type " + name);
        }
        loader.resolved.put(name, c);
        return c;
    }

    private Class<?>[] params(Map<String, Object> s) throws Invalid {
        List<Object> names = Json.arr(s.get("params"), "params");
        Class<?>[] out = new Class<?>[names.size()];
        for (int k = 0; k < out.length; k++) {
            if (!(names.get(k) instanceof String)) {
                throw new Invalid("params: expected type names");
            }
            out[k] = type((String) names.get(k));
        }
        return out;
    }

    private Object[] args(Map<String, Object> s, Class<?>[] params) throws Invalid, Thrown {
        List<Object> refs = Json.arr(s.get("args"), "args");
        if (refs.size() != params.length) {
            throw new Invalid(params.length + " parameters but " + refs.size() + " arguments");
        }
        Object[] out = new Object[refs.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = value(refs.get(k));
            if (out[k] != null && !Types.boxed(params[k]).isInstance(out[k]) && !params[k].isPrimitive()) {
                throw new Invalid("argument " + k + " of type " + out[k].getClass().getTypeName()
                        + " does not fit " + params[k].getTypeName());
            }
        }
        for (int k = 0; k < out.length; k++) {
            if (out[k] == null && params[k].isPrimitive()) {
                unboxNull(refs.get(k), params[k], "argument " + k);
            }
        }
        return out;
    }

    /**
     * The value statement {@code ref} gives to a place of type {@code target} (a field or an array
     * element): Invalid when Java would not compile it, NullPointerException when Java would
     * unbox null.
     */
    private Object assignable(Class<?> target, Object ref, String what) throws Invalid, Thrown {
        Object v = value(ref);
        if (v == null) {
            if (target.isPrimitive()) {
                unboxNull(ref, target, what);
            }
            return null;
        }
        if (!Types.boxed(target).isInstance(v) && !target.isPrimitive()) {
            throw new Invalid(what + " of type " + target.getTypeName() + " cannot hold a "
                    + v.getClass().getTypeName());
        }
        return v;
    }

    /** A null for a primitive place: Java compiles it only from a box, and then throws NPE. */
    private void unboxNull(Object ref, Class<?> primitive, String what) throws Invalid, Thrown {
        Class<?> declared = types[index(ref)];
        if (declared != null && !declared.isPrimitive() && Types.boxed(primitive) == declared) {
            throw new Thrown(new NullPointerException("Cannot unbox " + what + " because " + nullRef(ref)));
        }
        throw new Invalid("null for primitive " + what);
    }

    /** The end of a helpful NullPointerException message about statement {@code ref}. */
    private static String nullRef(Object ref) {
        return "the value of statement " + ref + " is null";
    }

    /** The statement index a reference names (checked by {@link #value}). */
    private int index(Object ref) throws Invalid {
        value(ref);
        return (int) (long) (Long) ref;
    }

    private Object ref(Map<String, Object> s, String key) throws Invalid {
        return value(s.get(key));
    }

    private Object value(Object ref) throws Invalid {
        if (!(ref instanceof Long)) {
            throw new Invalid("expected a statement index, got " + ref);
        }
        long k = (Long) ref;
        if (k < 0 || k >= values.length || k >= results.size()) {
            throw new Invalid("reference to statement " + k + " which is not an earlier statement");
        }
        return values[(int) k];
    }

    /**
     * The value of a literal statement: {@code Invalid} for a value javac would reject in that
     * type (an integer outside the type's range, a char outside one UTF-16 unit, a finite number
     * too large for a float), never a silently narrowed one.
     */
    private static Object literal(Class<?> t, Object v) throws Invalid {
        try {
            if (t == String.class) {
                if (!(v instanceof String)) {
                    throw new Invalid("String value expected");
                }
                return v;
            }
            if (t == boolean.class || t == Boolean.class) {
                return (Boolean) v;
            }
            if (t == char.class || t == Character.class) {
                if (v instanceof String && ((String) v).length() == 1) {
                    return ((String) v).charAt(0);
                }
                long code = (Long) v;
                checkRange(code, Character.MIN_VALUE, Character.MAX_VALUE, t);
                return (char) code;
            }
            if (t == double.class || t == Double.class) {
                return toDouble(v);
            }
            if (t == float.class || t == Float.class) {
                double d = toDouble(v);
                float f = (float) d;
                if (Float.isInfinite(f) && !Double.isInfinite(d)) {
                    throw new Invalid(v + " out of range for " + t.getTypeName());
                }
                return f;
            }
            // The parser makes a Double of an integer beyond the long range; longValue() would
            // clamp it to Long.MIN_VALUE or MAX_VALUE.
            if (v instanceof Double) {
                double d = (Double) v;
                if (d != Math.rint(d)) {
                    throw new Invalid("integral value expected for " + t.getTypeName());
                }
                if (!(d >= -0x1p63 && d < 0x1p63)) {
                    throw new Invalid(v + " out of range for " + t.getTypeName());
                }
            }
            long n = ((Number) v).longValue();
            if (t == long.class || t == Long.class) {
                return n;
            }
            if (t == int.class || t == Integer.class) {
                checkRange(n, Integer.MIN_VALUE, Integer.MAX_VALUE, t);
                return (int) n;
            }
            if (t == short.class || t == Short.class) {
                checkRange(n, Short.MIN_VALUE, Short.MAX_VALUE, t);
                return (short) n;
            }
            if (t == byte.class || t == Byte.class) {
                checkRange(n, Byte.MIN_VALUE, Byte.MAX_VALUE, t);
                return (byte) n;
            }
        } catch (ClassCastException | NullPointerException e) {
            throw new Invalid("bad literal " + v + " for " + t.getTypeName());
        }
        throw new Invalid("no literal of type " + t.getTypeName());
    }

    private static void checkRange(long n, long lo, long hi, Class<?> t) throws Invalid {
        if (n < lo || n > hi) {
            throw new Invalid(n + " out of range for " + t.getTypeName());
        }
    }

    private static double toDouble(Object v) {
        if (v instanceof String) {
            return Double.parseDouble((String) v);
        }
        return ((Number) v).doubleValue();
    }
}
