package ctgls.worker;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The test cluster by reflection: the members of the requested classes a class of another
 * top-level class could ever use (every one but the private ones) and, to a bounded
 * depth, of the types those members mention: their raw types, and the project types their
 * generic forms name (type arguments, bounds, generic array components) and the project
 * interfaces a class implements. Classes are loaded without initialisation, so no user code runs
 * here. Whether a test can reach a member depends on the test's package, which the client
 * knows: the worker reports each member's modifiers and declaring class, each class's package
 * and effective access, and leaves the decision to it (docs/protocol.md, "describe").
 */
final class Describer {
    private static final Set<String> LEAVES = new HashSet<>(Arrays.asList(
            "java.lang.Object", "java.lang.String", "java.lang.Class", "java.lang.Enum", "java.lang.Record",
            "java.lang.Boolean", "java.lang.Byte", "java.lang.Short", "java.lang.Character", "java.lang.Integer",
            "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.lang.Number", "java.lang.Void",
            "java.lang.CharSequence", "java.lang.Comparable"));

    private final Unit unit;
    private final ClassLoader loader;
    private List<Class<?>> projectClasses;
    /** The Java release the tests are compiled at: JDK members it lacks are left out; 0: the running JDK's. */
    private int release;

    Describer(Unit unit) {
        this.unit = unit;
        this.loader = unit.newLoader();
    }

    Map<String, Object> describe(Map<String, Object> req) {
        int maxDepth = (int) Json.num(req, "depth", 1);
        release = (int) Json.num(req, "release", 0);
        ArrayDeque<Object[]> queue = new ArrayDeque<>();
        Set<String> seen = new HashSet<>();
        List<Object> out = new ArrayList<>();
        List<Object> missing = new ArrayList<>();
        for (Object o : Json.arr(req.get("classes"), "classes")) {
            if (!(o instanceof String)) {
                throw new IllegalArgumentException("classes: expected strings");
            }
            // Asked for by name or not, a probe holder is never part of the answer.
            if (!isProbeHolder((String) o) && seen.add((String) o)) {
                queue.add(new Object[] {o, 0});
            }
        }
        while (!queue.isEmpty()) {
            Object[] item = queue.poll();
            String name = (String) item[0];
            int depth = (Integer) item[1];
            Class<?> c;
            try {
                c = Types.load(name, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                m.put("message", e.toString());
                missing.add(m);
                continue;
            }
            if (!JdkApi.hasClass(release, c)) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                m.put("message", "not in the API of Java " + release);
                missing.add(m);
                continue;
            }
            Set<Class<?>> mentioned = new HashSet<>();
            try {
                out.add(describeClass(c, mentioned));
            } catch (RuntimeException | LinkageError e) {
                // A class whose members cannot be resolved in a way the guards below did not
                // foresee: one class missing, not the whole request failed.
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                m.put("message", e.toString());
                missing.add(m);
                continue;
            }
            if (depth < maxDepth) {
                for (Class<?> t : mentioned) {
                    while (t.isArray()) {
                        t = t.getComponentType();
                    }
                    if (t.isPrimitive() || LEAVES.contains(t.getName()) || isProbeHolder(t.getName())) {
                        continue;
                    }
                    if (seen.add(t.getName())) {
                        queue.add(new Object[] {t.getName(), depth + 1});
                    }
                }
            }
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("classes", out);
        res.put("missing", missing);
        return res;
    }

    private Map<String, Object> describeClass(Class<?> c, Set<Class<?>> mentioned) {
        Set<TypeVariable<?>> variables = new HashSet<>();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", c.getName());
        m.put("kind", kind(c));
        m.put("modifiers", modifiers(c.getModifiers() & ~Modifier.INTERFACE));
        m.put("project", unit.classes.containsKey(c.getName()));
        m.put("public", Modifier.isPublic(c.getModifiers()));
        m.put("package", packageOf(c));
        m.put("access", access(c));
        m.put("abstract", Modifier.isAbstract(c.getModifiers()));
        m.put("innerClass", c.isMemberClass() && !Modifier.isStatic(c.getModifiers()));
        m.put("declaringClass", c.getDeclaringClass() == null ? null : c.getDeclaringClass().getName());
        m.put("superclass", c.getSuperclass() == null ? null : c.getSuperclass().getName());
        m.put("genericSuperclass", safe(() -> c.getGenericSuperclass() == null ? null : c.getGenericSuperclass().getTypeName()));
        List<Object> interfaces = new ArrayList<>();
        for (Class<?> i : c.getInterfaces()) {
            interfaces.add(i.getName());
            mentionProjectType(i, mentioned);
        }
        m.put("interfaces", interfaces);
        m.put("genericInterfaces", genericInterfaces(c, interfaces));
        List<Object> tps = new ArrayList<>();
        for (TypeVariable<?> tv : c.getTypeParameters()) {
            tps.add(typeVariable(tv));
            mentionGeneric(new Type[] {tv}, mentioned, variables);
        }
        m.put("typeParameters", tps);
        if (c.getSuperclass() != null) {
            mentioned.add(c.getSuperclass());
        }
        mentionGeneric(() -> new Type[] {c.getGenericSuperclass()}, mentioned, variables);
        mentionGeneric(c::getGenericInterfaces, mentioned, variables);

        List<Object> ctors = new ArrayList<>();
        Constructor<?>[] cs;
        try {
            cs = c.getDeclaredConstructors();
        } catch (LinkageError e) {
            // A constructor mentions a class missing at run time (an optional dependency):
            // reflection lists all constructors or none, so none.
            cs = new Constructor<?>[0];
        }
        Arrays.sort(cs, Comparator.comparing(Constructor::toString));
        boolean instantiable = !Modifier.isAbstract(c.getModifiers()) && !c.isInterface() && !c.isEnum();
        if (instantiable) {
            for (Constructor<?> k : cs) {
                if (!k.isSynthetic() && !Modifier.isPrivate(k.getModifiers()) && JdkApi.has(release, k)) {
                    ctors.add(executable(k, mentioned, variables));
                }
            }
        }
        m.put("constructors", ctors);

        List<Object> methods = new ArrayList<>();
        Method[] ms = memberMethods(c);
        Arrays.sort(ms, Comparator.comparing(Method::getName).thenComparing(Method::toString));
        for (Method x : ms) {
            if (x.isBridge() || x.isSynthetic() || x.getDeclaringClass() == Object.class
                    || !JdkApi.has(release, x)) {
                continue;
            }
            Map<String, Object> e = executable(x, mentioned, variables);
            e.put("name", x.getName());
            e.put("declaringClass", x.getDeclaringClass().getName());
            e.put("static", Modifier.isStatic(x.getModifiers()));
            e.put("returnType", x.getReturnType().getTypeName());
            e.put("genericReturnType", safe(() -> x.getGenericReturnType().getTypeName()));
            e.put("factory", Modifier.isStatic(x.getModifiers()) && c.isAssignableFrom(x.getReturnType()));
            mentioned.add(x.getReturnType());
            mentionGeneric(() -> new Type[] {x.getGenericReturnType()}, mentioned, variables);
            methods.add(e);
        }
        m.put("methods", methods);

        List<Object> fields = new ArrayList<>();
        List<Object> constants = new ArrayList<>();
        Field[] fs = memberFields(c);
        Arrays.sort(fs, Comparator.comparing(Field::getName));
        Field[] constantFields;
        try {
            constantFields = c.isEnum() ? c.getDeclaredFields() : c.getFields();
        } catch (LinkageError e) {
            constantFields = new Field[0];
        }
        for (Field f : constantFields) {
            if (f.isEnumConstant()) {
                constants.add(f.getName());
            }
        }
        for (Field f : fs) {
            if (f.isSynthetic() || f.isEnumConstant() || !JdkApi.has(release, f)) {
                continue;
            }
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", f.getName());
            e.put("declaringClass", f.getDeclaringClass().getName());
            e.put("type", f.getType().getTypeName());
            e.put("genericType", safe(() -> f.getGenericType().getTypeName()));
            e.put("static", Modifier.isStatic(f.getModifiers()));
            e.put("final", Modifier.isFinal(f.getModifiers()));
            e.put("modifiers", modifiers(f.getModifiers()));
            mentioned.add(f.getType());
            mentionGeneric(() -> new Type[] {f.getGenericType()}, mentioned, variables);
            fields.add(e);
        }
        m.put("fields", fields);
        m.put("enumConstants", constants);
        m.put("recordComponents", recordComponents(c));
        m.put("permittedSubclasses", permitted(c));

        List<Object> subs = new ArrayList<>();
        for (Class<?> p : projectClasses()) {
            if (p != c && c.isAssignableFrom(p) && !"private".equals(access(p))) {
                subs.add(p.getName());
            }
        }
        m.put("subclasses", subs);
        return m;
    }

    /**
     * The methods that are members of {@code c} (JLS 8.2, 8.4.8) and not private: the public
     * ones as {@link Class#getMethods} lists them, and the protected and package-private ones
     * declared by {@code c} or inherited from a superclass. A package-private method is
     * inherited only along a chain of classes of its own package; a method a nearer class
     * declares with the same signature overrides or hides the farther one.
     */
    static Method[] memberMethods(Class<?> c) {
        List<Method> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        try {
            for (Method x : c.getMethods()) {
                out.add(x);
                seen.add(signature(x));
            }
        } catch (LinkageError e) {
            // A public method mentions a class missing at run time: reflection lists none.
        }
        boolean samePackage = true;
        String pkg = packageOf(c);
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            samePackage &= packageOf(k).equals(pkg);
            Method[] declared;
            try {
                declared = k.getDeclaredMethods();
            } catch (LinkageError e) {
                continue;
            }
            Arrays.sort(declared, Comparator.comparing(Method::toString));
            for (Method x : declared) {
                int mod = x.getModifiers();
                if (x.isBridge() || x.isSynthetic() || Modifier.isPublic(mod) || Modifier.isPrivate(mod)) {
                    continue;
                }
                boolean member = Modifier.isProtected(mod) || samePackage;
                if (seen.add(signature(x)) && member) {
                    out.add(x);
                }
            }
        }
        return out.toArray(new Method[0]);
    }

    /** The fields that are members of {@code c} and not private, by the rules of {@link #memberMethods}. */
    private static Field[] memberFields(Class<?> c) {
        List<Field> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        try {
            for (Field f : c.getFields()) {
                out.add(f);
                seen.add(f.getName());
            }
        } catch (LinkageError e) {
            // A public field's type is missing at run time: reflection lists none.
        }
        boolean samePackage = true;
        String pkg = packageOf(c);
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            samePackage &= packageOf(k).equals(pkg);
            Field[] declared;
            try {
                declared = k.getDeclaredFields();
            } catch (LinkageError e) {
                continue;
            }
            for (Field f : declared) {
                int mod = f.getModifiers();
                if (f.isSynthetic() || Modifier.isPublic(mod) || Modifier.isPrivate(mod)) {
                    continue;
                }
                boolean member = Modifier.isProtected(mod) || samePackage;
                if (seen.add(f.getName()) && member) {
                    out.add(f);
                }
            }
        }
        return out.toArray(new Field[0]);
    }

    private static String signature(Method m) {
        StringBuilder b = new StringBuilder(m.getName()).append('(');
        for (Class<?> p : m.getParameterTypes()) {
            b.append(p.getName()).append(',');
        }
        return b.append(')').toString();
    }

    /** The package of a class, {@code ""} for the unnamed package, from its binary name. */
    static String packageOf(Class<?> c) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        String n = c.getName();
        int dot = n.lastIndexOf('.');
        return dot < 0 ? "" : n.substring(0, dot);
    }

    /**
     * The class's effective access: the most restrictive of its own and of every class that
     * encloses it ({@code public}, {@code protected}, {@code package} or {@code private}).
     * Local and anonymous classes have no name a test could write: {@code private}.
     */
    static String access(Class<?> c) {
        int level = 0;
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            if (k.isAnonymousClass() || k.isLocalClass()) {
                return "private";
            }
            int mod = k.getModifiers();
            int own = Modifier.isPublic(mod) ? 0 : Modifier.isProtected(mod) ? 1 : Modifier.isPrivate(mod) ? 3 : 2;
            level = Math.max(level, own);
        }
        return new String[] {"public", "protected", "package", "private"}[level];
    }

    private Map<String, Object> executable(Executable x, Set<Class<?>> mentioned, Set<TypeVariable<?>> variables) {
        Map<String, Object> e = new LinkedHashMap<>();
        Class<?>[] raw = x.getParameterTypes();
        Type[] generic;
        try {
            generic = x.getGenericParameterTypes();
        } catch (RuntimeException | LinkageError err) {
            generic = raw;
        }
        List<Object> params = new ArrayList<>();
        for (int k = 0; k < raw.length; k++) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("type", raw[k].getTypeName());
            // Inner-class constructors have an implicit outer parameter without a generic type.
            p.put("generic", generic.length == raw.length ? generic[k].getTypeName() : raw[k].getTypeName());
            params.add(p);
            mentioned.add(raw[k]);
        }
        mentionGeneric(generic, mentioned, variables);
        e.put("params", params);
        List<Object> exceptions = new ArrayList<>();
        for (Class<?> t : x.getExceptionTypes()) {
            exceptions.add(t.getName());
        }
        e.put("exceptions", exceptions);
        e.put("varargs", x.isVarArgs());
        e.put("modifiers", modifiers(x.getModifiers()));
        List<Object> tps = new ArrayList<>();
        for (TypeVariable<?> tv : x.getTypeParameters()) {
            tps.add(typeVariable(tv));
            mentionGeneric(new Type[] {tv}, mentioned, variables);
        }
        e.put("typeParameters", tps);
        return e;
    }

    private interface GenericTypes {
        Type[] get();
    }

    /** {@link #mentionGeneric(Type[], Set, Set)} of types reflection may fail to resolve. */
    private void mentionGeneric(GenericTypes types, Set<Class<?>> mentioned, Set<TypeVariable<?>> variables) {
        Type[] ts;
        try {
            ts = types.get();
        } catch (RuntimeException | LinkageError e) {
            return;
        }
        mentionGeneric(ts, mentioned, variables);
    }

    /**
     * Adds to {@code mentioned} the project classes that generic types name beyond their erasure:
     * type arguments ({@code List<Item>}), wildcard and type-variable bounds ({@code ? super
     * Extra}, {@code T extends Comparable<Bound>}) and generic array components
     * ({@code List<Tag>[]}). JDK types found there are left out: the cluster builds JDK values
     * from its built-ins and raw mentions, and describing every JDK type argument would grow
     * the answer without giving the cluster a way to build anything new. {@code variables}
     * holds the type variables already followed, which a bound like
     * {@code K extends Comparable<K>} would otherwise follow for ever.
     */
    private void mentionGeneric(Type[] types, Set<Class<?>> mentioned, Set<TypeVariable<?>> variables) {
        for (Type t : types) {
            try {
                if (t instanceof Class) {
                    mentionProjectType((Class<?>) t, mentioned);
                } else if (t instanceof ParameterizedType) {
                    ParameterizedType p = (ParameterizedType) t;
                    Type owner = p.getOwnerType();
                    mentionGeneric(owner == null ? new Type[] {p.getRawType()} : new Type[] {p.getRawType(), owner},
                            mentioned, variables);
                    mentionGeneric(p.getActualTypeArguments(), mentioned, variables);
                } else if (t instanceof GenericArrayType) {
                    mentionGeneric(new Type[] {((GenericArrayType) t).getGenericComponentType()}, mentioned, variables);
                } else if (t instanceof WildcardType) {
                    WildcardType w = (WildcardType) t;
                    mentionGeneric(w.getUpperBounds(), mentioned, variables);
                    mentionGeneric(w.getLowerBounds(), mentioned, variables);
                } else if (t instanceof TypeVariable && variables.add((TypeVariable<?>) t)) {
                    mentionGeneric(((TypeVariable<?>) t).getBounds(), mentioned, variables);
                }
            } catch (RuntimeException | LinkageError e) {
                // A type argument that does not resolve (a missing class): nothing to describe.
            }
        }
    }

    private void mentionProjectType(Class<?> c, Set<Class<?>> mentioned) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (unit.classes.containsKey(c.getName())) {
            mentioned.add(c);
        }
    }

    /**
     * The implemented interfaces with their type arguments ({@code p.Named<java.lang.Integer>}),
     * in the order of {@code raw}; the raw names when reflection cannot resolve them.
     */
    private static List<Object> genericInterfaces(Class<?> c, List<Object> raw) {
        try {
            Type[] generic = c.getGenericInterfaces();
            if (generic.length == raw.size()) {
                List<Object> out = new ArrayList<>();
                for (Type t : generic) {
                    out.add(t.getTypeName());
                }
                return out;
            }
        } catch (RuntimeException | LinkageError e) {
            // An unresolvable type argument: the raw names still tell the hierarchy.
        }
        return raw;
    }

    private static String typeVariable(TypeVariable<?> tv) {
        StringBuilder b = new StringBuilder(tv.getName());
        try {
            Type[] bounds = tv.getBounds();
            if (bounds.length > 0 && !(bounds.length == 1 && bounds[0] == Object.class)) {
                b.append(" extends ");
                for (int k = 0; k < bounds.length; k++) {
                    if (k > 0) {
                        b.append(" & ");
                    }
                    b.append(bounds[k].getTypeName());
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // An unresolvable bound: the bare name is still useful.
        }
        return b.toString();
    }

    private static String kind(Class<?> c) {
        if (c.isAnnotation()) {
            return "annotation";
        }
        if (c.isInterface()) {
            return "interface";
        }
        if (c.isEnum()) {
            return "enum";
        }
        if (Boolean.TRUE.equals(reflect(c, "isRecord"))) {
            return "record";
        }
        return "class";
    }

    private static List<Object> modifiers(int mod) {
        List<Object> out = new ArrayList<>();
        String s = Modifier.toString(mod);
        if (!s.isEmpty()) {
            out.addAll(Arrays.asList((Object[]) s.split(" ")));
        }
        return out;
    }

    private static List<Object> recordComponents(Class<?> c) {
        List<Object> out = new ArrayList<>();
        Object comps = reflect(c, "getRecordComponents");
        if (comps instanceof Object[]) {
            for (Object rc : (Object[]) comps) {
                Map<String, Object> m = new LinkedHashMap<>();
                try {
                    m.put("name", rc.getClass().getMethod("getName").invoke(rc));
                    m.put("type", ((Class<?>) rc.getClass().getMethod("getType").invoke(rc)).getTypeName());
                    m.put("genericType", ((Type) rc.getClass().getMethod("getGenericType").invoke(rc)).getTypeName());
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                    continue;
                }
                out.add(m);
            }
        }
        return out;
    }

    private static List<Object> permitted(Class<?> c) {
        List<Object> out = new ArrayList<>();
        Object subs = reflect(c, "getPermittedSubclasses");
        if (subs instanceof Class<?>[]) {
            for (Class<?> s : (Class<?>[]) subs) {
                out.add(s.getName());
            }
        }
        return out;
    }

    /** Calls a no-arg Class method that may not exist on the running Java version (records, sealed). */
    private static Object reflect(Class<?> c, String method) {
        try {
            return Class.class.getMethod(method).invoke(c);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    private interface Supplier {
        String get();
    }

    private static String safe(Supplier s) {
        try {
            return s.get();
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * A class the instrumenter appends to an instrumented file to hold its probe id base
     * ({@code $CtglsProbe_<hash>}, docs/instrumentation.md): never part of the test cluster.
     */
    static boolean isProbeHolder(String binaryName) {
        int dot = binaryName.lastIndexOf('.');
        return binaryName.startsWith("$CtglsProbe", dot + 1);
    }

    private List<Class<?>> projectClasses() {
        if (projectClasses == null) {
            projectClasses = new ArrayList<>();
            for (String n : unit.classNames) {
                if (isProbeHolder(n)) {
                    continue;
                }
                try {
                    projectClasses.add(Class.forName(n, false, loader));
                } catch (ClassNotFoundException | LinkageError e) {
                    // A class that does not link is not a usable subclass.
                }
            }
        }
        return projectClasses;
    }

}
