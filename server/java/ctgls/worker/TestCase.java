package ctgls.worker;

import ctgls.rt.DeadlineExceeded;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
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

    private final List<Object> statements;
    private final ClassLoader loader;
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

    TestCase(List<Object> statements, ClassLoader loader, Observer observer, Set<String> projectClasses,
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
        Class<?>[] types = new Class<?>[statements.size()];
        int i = 0;
        try {
            for (; i < statements.size(); i++) {
                Map<String, Object> s = Json.obj(statements.get(i), "statement " + i);
                try {
                    values[i] = execute(s, i, types);
                } catch (InvocationTargetException e) {
                    thrown(i, e.getCause(), lastCallee);
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

    private void thrown(int i, Throwable t, Executable called) {
        failedAt = i;
        Throwable root = t;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof DeadlineExceeded || isThreadDeath(c)) {
                end = End.TIMEOUT;
                return;
            }
            if (c instanceof ExitGuard.ExitRequested) {
                end = End.SYSTEM_EXIT;
                exitStatus = ((ExitGuard.ExitRequested) c).status;
                return;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        if (root instanceof StackOverflowError) {
            end = End.STACK_OVERFLOW;
        } else if (root instanceof OutOfMemoryError) {
            values = null;
            end = End.OUT_OF_MEMORY;
        } else {
            end = End.EXCEPTION;
        }
        exception = describe(root, called);
    }

    Map<String, Object> describe(Throwable t, Executable called) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (t == null) {
            m.put("type", "unknown");
            return m;
        }
        m.put("type", t.getClass().getName());
        String msg;
        try {
            msg = t.getMessage();
        } catch (RuntimeException e) {
            msg = null;
        }
        if (msg != null && msg.length() > 1000) {
            msg = msg.substring(0, 1000);
        }
        m.put("message", msg);
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
        m.put("cause", t.getCause() == null || t.getCause() == t ? null : t.getCause().getClass().getName());
        return m;
    }

    /** The top stack frame inside the classes under test (all project classes when none given). */
    private Map<String, Object> frame(Throwable t) {
        StackTraceElement[] st;
        try {
            st = t.getStackTrace();
        } catch (RuntimeException e) {
            return null;
        }
        for (StackTraceElement e : st) {
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
            throws Invalid, InvocationTargetException {
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
                    return f.get(null);
                } catch (NoSuchFieldException | IllegalAccessException e) {
                    throw new Invalid("no enum constant " + t.getName() + "." + name);
                } catch (ExceptionInInitializerError e) {
                    throw new InvocationTargetException(e.getCause() == null ? e : e.getCause());
                }
            }
            case "new": {
                Class<?> c = type(Json.str(s, "class"));
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
                Class<?> c = type(Json.str(s, "class"));
                Class<?>[] params = params(s);
                String name = Json.str(s, "method");
                Method m = method(c, name, params);
                Object receiver = null;
                if (!Modifier.isStatic(m.getModifiers())) {
                    receiver = ref(s, "receiver");
                    if (receiver == null) {
                        throw new Invalid("call of " + name + " on a null receiver");
                    }
                }
                accessible(m);
                lastCallee = m;
                types[i] = m.getReturnType();
                try {
                    return m.invoke(receiver, args(s, params));
                } catch (IllegalAccessException e) {
                    throw new Invalid(e.toString());
                } catch (ExceptionInInitializerError e) {
                    throw new InvocationTargetException(e);
                }
            }
            case "getField":
            case "setField": {
                Class<?> c = type(Json.str(s, "class"));
                Field f;
                try {
                    f = field(c, Json.str(s, "field"));
                } catch (NoSuchFieldException e) {
                    throw new Invalid("no field " + c.getName() + "." + s.get("field"));
                }
                Object receiver = null;
                if (!Modifier.isStatic(f.getModifiers())) {
                    receiver = ref(s, "receiver");
                    if (receiver == null) {
                        throw new Invalid("field access on a null receiver");
                    }
                }
                accessible(f);
                try {
                    if (kind.equals("getField")) {
                        types[i] = f.getType();
                        return f.get(receiver);
                    }
                    if (Modifier.isFinal(f.getModifiers())) {
                        throw new Invalid("field " + f.getName() + " is final");
                    }
                    types[i] = void.class;
                    f.set(receiver, ref(s, "value"));
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
                Object a = ref(s, "array");
                if (a == null || !a.getClass().isArray()) {
                    throw new Invalid("not an array");
                }
                int index = (int) Json.num(s, "index", -1);
                if (index < 0 || index >= Array.getLength(a)) {
                    throw new Invalid("index " + index + " out of bounds");
                }
                if (kind.equals("getElement")) {
                    types[i] = a.getClass().getComponentType();
                    return Array.get(a, index);
                }
                types[i] = void.class;
                Array.set(a, index, ref(s, "value"));
                return null;
            }
            default:
                throw new Invalid("unknown statement kind '" + kind + "'");
        }
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
        try {
            return Types.load(name, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new Invalid("unknown type " + name);
        }
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

    private Object[] args(Map<String, Object> s, Class<?>[] params) throws Invalid {
        List<Object> refs = Json.arr(s.get("args"), "args");
        if (refs.size() != params.length) {
            throw new Invalid(params.length + " parameters but " + refs.size() + " arguments");
        }
        Object[] out = new Object[refs.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = value(refs.get(k));
            if (out[k] == null && params[k].isPrimitive()) {
                throw new Invalid("null argument for primitive parameter " + k);
            }
            if (out[k] != null && !Types.boxed(params[k]).isInstance(out[k]) && !params[k].isPrimitive()) {
                throw new Invalid("argument " + k + " of type " + out[k].getClass().getTypeName()
                        + " does not fit " + params[k].getTypeName());
            }
        }
        return out;
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
                return (char) ((Long) v).longValue();
            }
            if (t == double.class || t == Double.class) {
                return toDouble(v);
            }
            if (t == float.class || t == Float.class) {
                return (float) toDouble(v);
            }
            long n = ((Number) v).longValue();
            if (v instanceof Double && ((Double) v) != n) {
                throw new Invalid("integral value expected for " + t);
            }
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
