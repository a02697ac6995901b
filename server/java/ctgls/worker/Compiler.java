package ctgls.worker;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/**
 * In-memory compilation (javax.tools) with a per-file cache of class bytes.
 *
 * <p>A file is recompiled when its compiled text changed, or when it mentions (as a whole word)
 * the simple name of a type declared in a changed or removed file, since its bytes may depend on
 * that type's members. The other files' cached classes are handed to javac as class files. The
 * cache is dropped when the classpath or the options change.
 */
final class Compiler {
    static final class UnknownUnit extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnknownUnit(String id) {
            super("unknown compilation unit set '" + id + "'");
        }
    }

    private static final int MAX_UNITS = 16;

    private static final class FileEntry {
        String hash;
        Map<String, byte[]> classes = new HashMap<>();
        Set<String> simpleNames = new HashSet<>();
    }

    private final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    private String settingsKey;
    private StandardJavaFileManager standard;
    private final Map<String, FileEntry> files = new HashMap<>();
    private final LinkedHashMap<String, Unit> units = new LinkedHashMap<String, Unit>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Unit> eldest) {
            return size() > MAX_UNITS;
        }
    };

    Unit unit(String id) {
        Unit u = units.get(id);
        if (u == null) {
            throw new UnknownUnit(id);
        }
        return u;
    }

    Map<String, Object> compile(Map<String, Object> req) throws IOException {
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: the worker runs on a JRE, not a JDK");
        }
        String unitId = Json.str(req, "unit");
        List<String> classpath = strings(req.get("classpath"), "classpath");
        List<String> userOptions = strings(req.get("options"), "options");
        String key = classpath + "\u0000" + userOptions;
        if (!key.equals(settingsKey)) {
            files.clear();
            if (standard != null) {
                standard.close();
            }
            standard = javac.getStandardFileManager(null, Locale.ENGLISH, StandardCharsets.UTF_8);
            List<File> cp = new ArrayList<>();
            for (String p : classpath) {
                cp.add(new File(p));
            }
            standard.setLocation(StandardLocation.CLASS_PATH, cp);
            settingsKey = key;
        }

        // The request's files, their effective text and content hash.
        Map<String, String> text = new LinkedHashMap<>();
        Map<String, Boolean> instrumented = new HashMap<>();
        Map<String, String> hash = new HashMap<>();
        for (Object o : Json.arr(req.get("sources"), "sources")) {
            Map<String, Object> s = Json.obj(o, "source");
            String path = Json.str(s, "path");
            String alt = Json.optStr(s, "instrumented");
            String t = alt != null ? alt : Json.str(s, "text");
            text.put(path, t);
            instrumented.put(path, alt != null);
            hash.put(path, sha256(t));
        }

        Set<String> changed = new HashSet<>();
        Set<String> changedNames = new HashSet<>();
        for (Map.Entry<String, String> e : text.entrySet()) {
            FileEntry fe = files.get(e.getKey());
            if (fe == null || !fe.hash.equals(hash.get(e.getKey()))) {
                changed.add(e.getKey());
                changedNames.add(stem(e.getKey()));
                if (fe != null) {
                    changedNames.addAll(fe.simpleNames);
                }
            }
        }
        for (String gone : new ArrayList<>(files.keySet())) {
            if (!text.containsKey(gone)) {
                changedNames.addAll(files.get(gone).simpleNames);
                changedNames.add(stem(gone));
                files.remove(gone);
            }
        }
        Set<String> toCompile = new HashSet<>(changed);
        if (!changed.isEmpty()) {
            for (Map.Entry<String, String> e : text.entrySet()) {
                if (!toCompile.contains(e.getKey()) && mentionsAny(e.getValue(), changedNames)) {
                    toCompile.add(e.getKey());
                }
            }
        }

        List<Object> diagnostics = new ArrayList<>();
        boolean success = true;
        if (!toCompile.isEmpty()) {
            Map<String, byte[]> visible = new HashMap<>(runtimeClasses());
            for (Map.Entry<String, FileEntry> e : files.entrySet()) {
                if (!toCompile.contains(e.getKey())) {
                    visible.putAll(e.getValue().classes);
                }
            }
            MemoryFileManager fm = new MemoryFileManager(standard, visible);
            List<SourceFile> sourceFiles = new ArrayList<>();
            Map<JavaFileObject, String> pathOf = new IdentityHashMap<>();
            for (String path : text.keySet()) {
                if (toCompile.contains(path)) {
                    SourceFile sf = new SourceFile(path, text.get(path));
                    sourceFiles.add(sf);
                    pathOf.put(sf, path);
                }
            }
            List<String> options = new ArrayList<>();
            options.add("-proc:none");
            options.add("-g");
            options.addAll(userOptions);
            DiagnosticCollector<JavaFileObject> dc = new DiagnosticCollector<>();
            StringWriter javacOut = new StringWriter();
            Boolean ok;
            try {
                ok = javac.getTask(javacOut, fm, dc, options, null, sourceFiles).call();
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new IllegalArgumentException("javac refused the request: " + e.getMessage());
            }
            success = ok != null && ok;
            for (Diagnostic<? extends JavaFileObject> d : dc.getDiagnostics()) {
                diagnostics.add(diagnostic(d, pathOf, instrumented));
            }
            if (success) {
                for (String path : toCompile) {
                    FileEntry fe = new FileEntry();
                    fe.hash = hash.get(path);
                    files.put(path, fe);
                }
                for (Map.Entry<String, byte[]> c : fm.output.entrySet()) {
                    String path = pathOf.get(fm.outputSource.get(c.getKey()));
                    FileEntry fe = path == null ? null : files.get(path);
                    if (fe != null) {
                        fe.classes.put(c.getKey(), c.getValue());
                        String top = c.getKey().substring(c.getKey().lastIndexOf('.') + 1);
                        int dollar = top.indexOf('$');
                        fe.simpleNames.add(dollar > 0 ? top.substring(0, dollar) : top);
                    }
                }
            }
        }

        Map<String, Object> res = new LinkedHashMap<>();
        res.put("success", success);
        res.put("diagnostics", diagnostics);
        res.put("compiledFiles", (long) (success ? toCompile.size() : 0));
        res.put("reusedFiles", (long) (success ? text.size() - toCompile.size() : 0));
        if (success) {
            Map<String, byte[]> all = new HashMap<>();
            for (String path : text.keySet()) {
                all.putAll(files.get(path).classes);
            }
            Unit u = new Unit(unitId, all, classpath);
            units.put(unitId, u);
            res.put("classes", new ArrayList<Object>(u.classNames));
        } else {
            units.remove(unitId);
        }
        return res;
    }

    private static Map<String, Object> diagnostic(Diagnostic<? extends JavaFileObject> d,
            Map<JavaFileObject, String> pathOf, Map<String, Boolean> instrumented) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", d.getKind().name());
        m.put("message", d.getMessage(Locale.ENGLISH));
        String path = d.getSource() == null ? null : pathOf.get(d.getSource());
        m.put("file", path);
        m.put("line", d.getLineNumber() == Diagnostic.NOPOS ? null : (Object) d.getLineNumber());
        m.put("column", d.getColumnNumber() == Diagnostic.NOPOS ? null : (Object) d.getColumnNumber());
        m.put("start", d.getStartPosition() == Diagnostic.NOPOS ? null : (Object) d.getStartPosition());
        m.put("end", d.getEndPosition() == Diagnostic.NOPOS ? null : (Object) d.getEndPosition());
        m.put("code", d.getCode());
        m.put("instrumented", path != null && Boolean.TRUE.equals(instrumented.get(path)));
        return m;
    }

    private static Map<String, byte[]> runtime;

    /**
     * The probe runtime's class files, visible to javac so instrumented sources compile against
     * {@code ctgls.rt.Probe}; the worker's other classes stay off the user's compile path.
     */
    private static synchronized Map<String, byte[]> runtimeClasses() throws IOException {
        if (runtime == null) {
            Map<String, byte[]> m = new HashMap<>();
            for (String name : new String[] {"ctgls.rt.Probe", "ctgls.rt.Probe$IntList", "ctgls.rt.Probe$InitTrace",
                    "ctgls.rt.Probe$Counts", "ctgls.rt.DeadlineExceeded"}) {
                try (java.io.InputStream in = Compiler.class.getClassLoader()
                        .getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in != null) {
                        m.put(name, in.readAllBytes());
                    }
                }
            }
            runtime = m;
        }
        return runtime;
    }

    private static List<String> strings(Object o, String what) {
        List<String> out = new ArrayList<>();
        for (Object x : Json.arr(o, what)) {
            if (!(x instanceof String)) {
                throw new IllegalArgumentException(what + ": expected strings");
            }
            out.add((String) x);
        }
        return out;
    }

    private static String stem(String path) {
        String name = path.substring(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
        return name.endsWith(".java") ? name.substring(0, name.length() - 5) : name;
    }

    static boolean mentionsAny(String text, Set<String> names) {
        for (String n : names) {
            if (n.isEmpty()) {
                continue;
            }
            int from = 0;
            while (true) {
                int at = text.indexOf(n, from);
                if (at < 0) {
                    break;
                }
                int end = at + n.length();
                boolean startOk = at == 0 || !Character.isJavaIdentifierPart(text.charAt(at - 1));
                boolean endOk = end == text.length() || !Character.isJavaIdentifierPart(text.charAt(end));
                if (startOk && endOk) {
                    return true;
                }
                from = at + 1;
            }
        }
        return false;
    }

    private static String sha256(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder();
            for (byte x : d) {
                b.append(String.format("%02x", x));
            }
            return b.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static final class SourceFile extends SimpleJavaFileObject {
        private final String text;

        SourceFile(String path, String text) {
            super(URI.create("mem:///" + path.replace('\\', '/').replace(" ", "%20")), Kind.SOURCE);
            this.text = text;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }

    /** A cached class file of an unchanged source, offered to javac on the class path. */
    static final class CachedClass extends SimpleJavaFileObject {
        final String binaryName;
        private final byte[] bytes;

        CachedClass(String binaryName, byte[] bytes) {
            super(URI.create("mem:///classes/" + binaryName.replace('.', '/') + ".class"), Kind.CLASS);
            this.binaryName = binaryName;
            this.bytes = bytes;
        }

        @Override
        public java.io.InputStream openInputStream() {
            return new java.io.ByteArrayInputStream(bytes);
        }
    }

    static final class OutputClass extends SimpleJavaFileObject {
        private final String binaryName;
        private final MemoryFileManager owner;

        OutputClass(String binaryName, MemoryFileManager owner) {
            super(URI.create("mem:///out/" + binaryName.replace('.', '/') + ".class"), Kind.CLASS);
            this.binaryName = binaryName;
            this.owner = owner;
        }

        @Override
        public OutputStream openOutputStream() {
            return new ByteArrayOutputStream() {
                @Override
                public void close() throws IOException {
                    super.close();
                    owner.output.put(binaryName, toByteArray());
                }
            };
        }
    }

    static final class MemoryFileManager extends ForwardingJavaFileManager<StandardJavaFileManager> {
        private final Map<String, byte[]> visible;
        final Map<String, byte[]> output = new HashMap<>();
        final Map<String, JavaFileObject> outputSource = new HashMap<>();

        MemoryFileManager(StandardJavaFileManager standard, Map<String, byte[]> visible) {
            super(standard);
            this.visible = visible;
        }

        @Override
        public Iterable<JavaFileObject> list(Location location, String packageName, Set<JavaFileObject.Kind> kinds,
                boolean recurse) throws IOException {
            Iterable<JavaFileObject> base = super.list(location, packageName, kinds, recurse);
            if (location != StandardLocation.CLASS_PATH || !kinds.contains(JavaFileObject.Kind.CLASS) || visible.isEmpty()) {
                return base;
            }
            List<JavaFileObject> all = new ArrayList<>();
            for (JavaFileObject f : base) {
                all.add(f);
            }
            for (Map.Entry<String, byte[]> e : visible.entrySet()) {
                String name = e.getKey();
                int dot = name.lastIndexOf('.');
                String pkg = dot < 0 ? "" : name.substring(0, dot);
                if (pkg.equals(packageName) || (recurse && pkg.startsWith(packageName.isEmpty() ? "" : packageName + "."))) {
                    all.add(new CachedClass(name, e.getValue()));
                }
            }
            return all;
        }

        @Override
        public String inferBinaryName(Location location, JavaFileObject file) {
            if (file instanceof CachedClass) {
                return ((CachedClass) file).binaryName;
            }
            return super.inferBinaryName(location, file);
        }

        @Override
        public boolean isSameFile(FileObject a, FileObject b) {
            if (a instanceof SimpleJavaFileObject || b instanceof SimpleJavaFileObject) {
                return a == b;
            }
            return super.isSameFile(a, b);
        }

        @Override
        public boolean contains(Location location, FileObject fo) throws IOException {
            if (fo instanceof SimpleJavaFileObject) {
                return location == StandardLocation.CLASS_PATH || location == StandardLocation.SOURCE_PATH;
            }
            return super.contains(location, fo);
        }

        @Override
        public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
                FileObject sibling) throws IOException {
            if (kind == JavaFileObject.Kind.CLASS) {
                if (sibling instanceof JavaFileObject) {
                    outputSource.put(className, (JavaFileObject) sibling);
                }
                return new OutputClass(className, this);
            }
            return super.getJavaFileForOutput(location, className, kind, sibling);
        }
    }
}
