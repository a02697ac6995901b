package ctgls.worker;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A compilation unit set: the class bytes of one successful compile plus its library classpath.
 *
 * <p>Isolation choice: a test runs in a {@link TestLoader} that defines the project classes from
 * these cached bytes, so static fields and static initialisers start fresh without any bytecode
 * rewriting. The next test gets the same loader only when every class it defined is free of
 * static state that a test could leave behind ({@link Loaders}, {@link StaticState}); otherwise
 * a fresh one. Library classes on the classpath are loaded once per unit and shared between tests.
 */
final class Unit {
    final String id;
    final Map<String, byte[]> classes;
    /** Binary names of the project's classes, sorted for deterministic output. */
    final List<String> classNames;
    private final List<String> classpath;
    private ClassLoader libraries;
    /** The loaders of this unit's tests; used by the worker's main thread only. */
    final Loaders loaders = new Loaders(this);

    Unit(String id, Map<String, byte[]> classes, List<String> classpath) {
        this.id = id;
        this.classes = Collections.unmodifiableMap(classes);
        this.classNames = Collections.unmodifiableList(new ArrayList<>(new TreeSet<>(classes.keySet())));
        this.classpath = classpath;
    }

    /**
     * Writes the unit's class files under {@code dir} (package directories, {@code Outer$Inner.class}
     * for nested classes), so that other tools (javac and JUnit for verification) can use the
     * classes this worker compiled instead of compiling the project again. Under the sandbox
     * {@code dir} must be inside the worker's scratch directory.
     */
    Map<String, Object> writeClasses(String dir) throws IOException {
        Path root = Paths.get(dir);
        long written = 0;
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            Path file = root.resolve(e.getKey().replace('.', '/') + ".class");
            Files.createDirectories(file.getParent());
            Files.write(file, e.getValue());
            written++;
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("written", written);
        return res;
    }

    synchronized ClassLoader libraries() {
        if (libraries == null) {
            URL[] urls = new URL[classpath.size()];
            for (int k = 0; k < urls.length; k++) {
                try {
                    urls[k] = new File(classpath.get(k)).toURI().toURL();
                } catch (MalformedURLException e) {
                    throw new IllegalArgumentException("bad classpath entry " + classpath.get(k));
                }
            }
            libraries = new URLClassLoader(urls, new BridgeLoader());
        }
        return libraries;
    }

    TestLoader newLoader() {
        return new TestLoader(this, libraries());
    }

    /**
     * Parent of user code: the platform classes plus {@code ctgls.rt.*} from the worker's loader,
     * so instrumented classes of every test share one {@code Probe}, and worker internals stay
     * invisible to user code.
     */
    static final class BridgeLoader extends ClassLoader {
        BridgeLoader() {
            super(ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("ctgls.rt.")) {
                return Class.forName(name, false, Main.class.getClassLoader());
            }
            return super.loadClass(name, resolve);
        }
    }

    /**
     * Child-first for project classes (a stale copy on the classpath must not win). Remembers the
     * project classes it defined, in order, and whether user code changed its assertion status
     * (which would apply to classes the next test loads).
     */
    static final class TestLoader extends ClassLoader {
        private final Unit unit;
        private final List<Class<?>> defined = new ArrayList<>();
        private volatile boolean assertionStatusChanged;
        /**
         * Classes and members that statements named, resolved in this loader (TestCase). Used by
         * one test thread at a time; the hand-over between tests orders the accesses.
         */
        final Map<Object, Object> resolved = new HashMap<>();

        TestLoader(Unit unit, ClassLoader parent) {
            super(parent);
            this.unit = unit;
        }

        /** The project classes defined so far, from index {@code from} on. */
        List<Class<?>> definedSince(int from) {
            synchronized (defined) {
                return new ArrayList<>(defined.subList(Math.min(from, defined.size()), defined.size()));
            }
        }

        boolean assertionStatusChanged() {
            return assertionStatusChanged;
        }

        @Override
        public void setDefaultAssertionStatus(boolean enabled) {
            assertionStatusChanged = true;
            super.setDefaultAssertionStatus(enabled);
        }

        @Override
        public void setPackageAssertionStatus(String packageName, boolean enabled) {
            assertionStatusChanged = true;
            super.setPackageAssertionStatus(packageName, enabled);
        }

        @Override
        public void setClassAssertionStatus(String className, boolean enabled) {
            assertionStatusChanged = true;
            super.setClassAssertionStatus(className, enabled);
        }

        @Override
        public void clearAssertionStatus() {
            assertionStatusChanged = true;
            super.clearAssertionStatus();
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] b = unit.classes.get(name);
                    if (b == null) {
                        return super.loadClass(name, resolve);
                    }
                    c = defineClass(name, b, 0, b.length);
                    synchronized (defined) {
                        defined.add(c);
                    }
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
