package ctgls.worker;

import com.sun.source.util.JavacTask;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The JDK's API at a Java release, as javac sees it with {@code --release N} (the signatures in
 * the JDK's {@code ct.sym}): the worker describes JDK types by reflection on the JDK it runs on,
 * whose classes have members an older release lacks ({@code List.of} is Java 9,
 * {@code Optional.isEmpty} Java 11), and a test compiled at that release cannot call them.
 * Classes of the project and of its libraries are not the JDK's and are never judged here.
 * Answers are cached per class and release for the worker's life: a release's API never changes.
 */
final class JdkApi {
    private static final int RUNNING = Runtime.version().feature();
    /** javac's model of each release asked for; {@code null} when javac cannot give one. */
    private static final Map<Integer, Model> MODELS = new HashMap<>();
    /** The member signatures of a class at a release, by {@code release + " " + class name}. */
    private static final Map<String, Set<String>> MEMBERS = new HashMap<>();
    /** Marks a class the release does not have. */
    private static final Set<String> ABSENT = new HashSet<>();

    private JdkApi() {}

    private static final class Model {
        final Elements elements;
        final Types types;

        Model(Elements elements, Types types) {
            this.elements = elements;
            this.types = types;
        }
    }

    /**
     * Whether {@code release} is one whose API differs from the running JDK's: a release
     * below it. {@code 0} (none given) and the running release need no check.
     */
    static boolean restricts(int release) {
        return release > 0 && release < RUNNING;
    }

    /** Whether {@code c} is a class of the JDK (the boot or platform loader defined it). */
    static boolean isJdk(Class<?> c) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (c.isPrimitive()) {
            return true;
        }
        ClassLoader l = c.getClassLoader();
        return l == null || l == ClassLoader.getPlatformClassLoader();
    }

    /** Whether the JDK class {@code c} exists at {@code release}; any other class does. */
    static synchronized boolean hasClass(int release, Class<?> c) {
        if (!restricts(release) || !isJdk(c)) {
            return true;
        }
        while (c.isArray()) {
            c = c.getComponentType();
        }
        return c.isPrimitive() || members(release, c) != ABSENT;
    }

    /**
     * Whether {@code m}, a method, constructor or field, is part of its declaring class's API at
     * {@code release} (declared there or inherited); members of classes outside the JDK always are.
     */
    static synchronized boolean has(int release, Member m) {
        Class<?> owner = m.getDeclaringClass();
        if (!restricts(release) || !isJdk(owner)) {
            return true;
        }
        Set<String> known = members(release, owner);
        if (known == ABSENT) {
            return m instanceof Method && throughPublicSupertype(release, (Method) m, owner);
        }
        return known == null || known.contains(signature(m));
    }

    /**
     * Whether a method of a JDK class missing from {@code release}'s API (a non-public class such
     * as {@code Collections$UnmodifiableList}, which {@code ct.sym} does not list) overrides one
     * of a public supertype that the release has: a test calls it through that supertype.
     */
    private static boolean throughPublicSupertype(int release, Method m, Class<?> owner) {
        ArrayDeque<Class<?>> todo = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        todo.add(owner);
        while (!todo.isEmpty()) {
            Class<?> t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            if (t != owner && java.lang.reflect.Modifier.isPublic(t.getModifiers())) {
                try {
                    Method over = t.getMethod(m.getName(), m.getParameterTypes());
                    if (over.getDeclaringClass() != owner && has(release, over)) {
                        return true;
                    }
                } catch (NoSuchMethodException e) {
                    // Declared by the non-public class alone: not this way.
                }
            }
            if (t.getSuperclass() != null) {
                todo.add(t.getSuperclass());
            }
            todo.addAll(Arrays.asList(t.getInterfaces()));
        }
        return false;
    }

    /** The signatures of {@code c}'s members at {@code release}, {@link #ABSENT}, or {@code null}: unknown. */
    private static Set<String> members(int release, Class<?> c) {
        String key = release + " " + c.getName();
        if (MEMBERS.containsKey(key)) {
            return MEMBERS.get(key);
        }
        Set<String> out = null;
        Model model = model(release);
        if (model != null && c.getCanonicalName() != null) {
            TypeElement type;
            try {
                type = model.elements.getTypeElement(c.getCanonicalName());
            } catch (RuntimeException e) {
                type = null;
            }
            if (type == null) {
                out = ABSENT;
            } else {
                out = new HashSet<>();
                for (Element e : model.elements.getAllMembers(type)) {
                    String s = signature(model.types, e);
                    if (s != null) {
                        out.add(s);
                    }
                }
            }
        }
        MEMBERS.put(key, out);
        return out;
    }

    private static Model model(int release) {
        if (MODELS.containsKey(release)) {
            return MODELS.get(release);
        }
        Model model = null;
        try {
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            if (javac != null) {
                JavacTask task = (JavacTask) javac.getTask(null, null, null,
                        Arrays.asList("--release", Integer.toString(release), "-proc:none"), null, null);
                model = new Model(task.getElements(), task.getTypes());
            }
        } catch (RuntimeException e) {
            // A release this javac does not support: the API cannot be checked, so nothing is
            // filtered (the client asks only for releases javac supports).
        }
        MODELS.put(release, model);
        return model;
    }

    /** A member's signature by name and erased parameter types: {@code of(java.lang.Object[])}. */
    static String signature(Member m) {
        if (m instanceof Field) {
            return m.getName();
        }
        Class<?>[] params = m instanceof Method ? ((Method) m).getParameterTypes()
                : ((Constructor<?>) m).getParameterTypes();
        StringBuilder b = new StringBuilder(m instanceof Method ? m.getName() : "<init>").append('(');
        for (int k = 0; k < params.length; k++) {
            b.append(k > 0 ? "," : "").append(name(params[k]));
        }
        return b.append(')').toString();
    }

    private static String name(Class<?> c) {
        if (c.isArray()) {
            return name(c.getComponentType()) + "[]";
        }
        return c.getCanonicalName() != null ? c.getCanonicalName() : c.getName();
    }

    private static String signature(Types types, Element e) {
        if (e instanceof VariableElement && e.getKind() == ElementKind.FIELD) {
            return e.getSimpleName().toString();
        }
        if (!(e instanceof ExecutableElement)) {
            return null;
        }
        ExecutableElement x = (ExecutableElement) e;
        StringBuilder b = new StringBuilder(x.getSimpleName()).append('(');
        for (int k = 0; k < x.getParameters().size(); k++) {
            b.append(k > 0 ? "," : "").append(erased(types, x.getParameters().get(k).asType()));
        }
        return b.append(')').toString();
    }

    /** An erased type's name, free of the type annotations its {@code toString} may carry. */
    private static String erased(Types types, TypeMirror t) {
        TypeMirror e = types.erasure(t);
        if (e instanceof ArrayType) {
            return erased(types, ((ArrayType) e).getComponentType()) + "[]";
        }
        if (e instanceof DeclaredType) {
            return ((TypeElement) ((DeclaredType) e).asElement()).getQualifiedName().toString();
        }
        return e.getKind().isPrimitive() ? e.getKind().name().toLowerCase(java.util.Locale.ROOT) : e.toString();
    }
}
