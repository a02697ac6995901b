package ctgls.worker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The JDK code a static initialiser may run ({@link InitScan}): objects it may create and
 * methods it may call, because they have no side effects outside the objects the initialiser
 * made, read no mutable global state (default locale, system properties, time, random numbers)
 * and call no user code.
 *
 * <p>A JDK method that calls {@code toString}, {@code equals}, {@code hashCode} or
 * {@code compareTo} on an argument (one of type {@code Object} or {@code CharSequence}, say)
 * runs user code unless the argument is {@link #inert}: the call is allowed only when every
 * argument is.
 */
final class InitJdk {
    private InitJdk() {}

    /**
     * Collections an initialiser may create and use while they are its own (a receiver it
     * created): their methods touch only the collection and, through {@code equals} and
     * {@code hashCode}, the inert elements that alone may be put in. One kept in a static field
     * is judged as a value ({@link StaticValues}), which rejects it.
     */
    private static final Set<String> OWN_COLLECTIONS = new HashSet<>(Arrays.asList(
            "java/util/ArrayList", "java/util/HashSet", "java/util/LinkedHashSet", "java/util/HashMap",
            "java/util/LinkedHashMap"));

    private static final Set<String> COLLECTION_METHODS = new HashSet<>(Arrays.asList(
            "add", "put", "get", "contains", "containsKey", "containsValue", "remove", "size", "isEmpty", "clear",
            "toString", "hashCode", "equals", "indexOf"));

    /**
     * A value whose {@code toString}, {@code equals}, {@code hashCode} and {@code compareTo} run
     * no user code and read no global state: null, a String, a box, or an array of such values
     * or of primitives. (Boxes and String are final, so a value typed so is exactly that; a
     * {@code String[]} holds only strings.)
     */
    static boolean inert(InitValue v) {
        if (v.kind != InitValue.REF) {
            return v.kind != InitValue.TOP;
        }
        if (v.nullness == InitValue.NULL) {
            return true;
        }
        String d = v.type;
        if (d == null) {
            return false;
        }
        while (d.startsWith("[")) {
            d = d.substring(1);
        }
        return StaticState.isPrimitive(d)
                || d.startsWith("L") && inertClass(d.substring(1, d.length() - 1));
    }

    private static boolean inertClass(String t) {
        return t.equals("java/lang/String") || StaticState.BOXES.contains(t);
    }

    /** The JDK objects an initialiser may create. */
    static boolean creatable(String type) {
        return type.equals("java/lang/StringBuilder") || type.equals("java/lang/StringBuffer")
                || type.equals("java/lang/String") || StaticState.BOXES.contains(type) || type.equals("java/lang/Object")
                || type.equals("java/math/BigInteger") || type.equals("java/math/BigDecimal")
                || type.equals("java/math/MathContext") || jdkThrowable(type) || OWN_COLLECTIONS.contains(type);
    }

    /** An exception or error class of {@code java.lang}, which an initialiser may make and throw. */
    static boolean jdkThrowable(String type) {
        return type.startsWith("java/lang/") && type.indexOf('/', 10) < 0
                && (type.endsWith("Exception") || type.endsWith("Error"));
    }

    /**
     * Whether an initialiser may call JDK method {@code owner.name descriptor} (resolved to
     * {@code owner}) on {@code receiver} (null for a static call) with {@code args} (one value
     * per slot).
     */
    static boolean call(String owner, String name, String descriptor, InitValue receiver,
            List<InitValue> args) {
        // No user code through the arguments: primitives, strings, primitive arrays, or inert values.
        boolean safeParams = true;
        int slot = 0;
        for (String p : parameters(descriptor)) {
            boolean typed = StaticState.isPrimitive(p) || p.equals("Ljava/lang/String;")
                    || p.startsWith("[") && StaticState.isPrimitive(p.substring(1));
            if (!typed && !inert(args.get(slot))) {
                safeParams = false;
            }
            slot += p.equals("J") || p.equals("D") ? 2 : 1;
        }
        if (jdkThrowable(owner)) {
            return name.equals("<init>") && safeParams;
        }
        if (OWN_COLLECTIONS.contains(owner)) {
            // Not toArray(T[]), which writes into an array that may not be the initialiser's.
            return (name.equals("<init>") && (descriptor.equals("()V") || descriptor.equals("(I)V"))
                    || receiver != null && receiver.fresh && receiver.exact && COLLECTION_METHODS.contains(name))
                    && safeParams;
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
            case "java/lang/System":
                // Read once when the JVM starts; setting the property later does not change it.
                return name.equals("lineSeparator");
            case "java/util/Objects":
                // Only functions of the arguments (not the Supplier overloads, which run user code).
                if (name.equals("requireNonNull") && !descriptor.contains("Supplier")) {
                    return true; // does not look into the value
                }
                return safeParams && (name.equals("toString") || name.equals("equals") || name.equals("hashCode")
                        || name.equals("isNull") || name.equals("nonNull") || name.equals("requireNonNullElse"));
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
                // fill, copyOf, sort, toString and friends on the initialiser's own arrays.
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
                if (StaticState.BOXES.contains(owner)) {
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
}
