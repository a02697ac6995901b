package ctgls.worker;

import java.lang.reflect.Array;

/** Type names on the wire: Class.getTypeName() form ("int", "p.A$B", "java.lang.String[][]"). */
final class Types {
    private Types() {}

    static Class<?> load(String name, ClassLoader loader) throws ClassNotFoundException {
        if (name.endsWith("[]")) {
            Class<?> component = load(name.substring(0, name.length() - 2), loader);
            return Array.newInstance(component, 0).getClass();
        }
        switch (name) {
            case "boolean": return boolean.class;
            case "byte": return byte.class;
            case "short": return short.class;
            case "char": return char.class;
            case "int": return int.class;
            case "long": return long.class;
            case "float": return float.class;
            case "double": return double.class;
            case "void": return void.class;
            case "String": return String.class;
            default: return Class.forName(name, false, loader);
        }
    }

    static Class<?> boxed(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        if (c == int.class) return Integer.class;
        if (c == long.class) return Long.class;
        if (c == boolean.class) return Boolean.class;
        if (c == double.class) return Double.class;
        if (c == float.class) return Float.class;
        if (c == char.class) return Character.class;
        if (c == short.class) return Short.class;
        if (c == byte.class) return Byte.class;
        return Void.class;
    }

    /** Primitives, their boxes, String and enums: values that can be written into an assertion. */
    static boolean isSimple(Class<?> c) {
        Class<?> b = boxed(c);
        return b == String.class || Number.class.isAssignableFrom(b) && b.getName().startsWith("java.lang.")
                || b == Boolean.class || b == Character.class || c.isEnum();
    }
}
