package ctgls.worker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;

/**
 * What javac sees of the project, all in memory: cached class files of unchanged sources on the
 * class path (ahead of the user's classpath, which the standard manager serves), the sources
 * that may be compiled on demand as the source path, and the classes javac writes.
 *
 * <p>Invariant: a type is offered either as a cached class or as a source, never both (the
 * caller's choice), so javac's choice between them ({@code -Xprefer}) only ever matters against
 * stale class files on the user's classpath, where the worker passes {@code -Xprefer:source}.
 */
final class MemoryFileManager extends ForwardingJavaFileManager<StandardJavaFileManager> {
    private final Map<String, byte[]> visible;
    /** Sources javac may load when it needs one of their types, by declared package. */
    private final Map<String, List<SourceFile>> sourcePath = new HashMap<>();
    final Map<String, byte[]> output = new HashMap<>();
    /** For every class written, the source it was generated from (javac's sibling). */
    final Map<String, JavaFileObject> outputSource = new HashMap<>();

    MemoryFileManager(StandardJavaFileManager standard, Map<String, byte[]> visible, List<SourceFile> available) {
        super(standard);
        this.visible = visible;
        for (SourceFile f : available) {
            sourcePath.computeIfAbsent(f.packageName, k -> new ArrayList<>()).add(f);
        }
    }

    @Override
    public boolean hasLocation(Location location) {
        // Declaring a source path, even an empty one, also stops javac from looking for sources
        // on the user's classpath.
        return location == StandardLocation.SOURCE_PATH || super.hasLocation(location);
    }

    @Override
    public Iterable<JavaFileObject> list(Location location, String packageName, Set<JavaFileObject.Kind> kinds,
            boolean recurse) throws IOException {
        if (location == StandardLocation.SOURCE_PATH) {
            if (!kinds.contains(JavaFileObject.Kind.SOURCE)) {
                return Collections.emptyList();
            }
            List<JavaFileObject> out = new ArrayList<>();
            for (Map.Entry<String, List<SourceFile>> e : sourcePath.entrySet()) {
                if (inPackage(e.getKey(), packageName, recurse)) {
                    out.addAll(e.getValue());
                }
            }
            return out;
        }
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
            if (inPackage(dot < 0 ? "" : name.substring(0, dot), packageName, recurse)) {
                all.add(new CachedClass(name, e.getValue()));
            }
        }
        return all;
    }

    private static boolean inPackage(String pkg, String packageName, boolean recurse) {
        return pkg.equals(packageName)
                || (recurse && (packageName.isEmpty() || pkg.startsWith(packageName + ".")));
    }

    @Override
    public String inferBinaryName(Location location, JavaFileObject file) {
        if (file instanceof CachedClass) {
            return ((CachedClass) file).binaryName;
        }
        if (file instanceof SourceFile) {
            return ((SourceFile) file).topLevelName();
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

    /** A project source file, identified by its request path. */
    static final class SourceFile extends SimpleJavaFileObject {
        final String path;
        private final String text;
        /** The package its {@code package} declaration names ("" for none). */
        final String packageName;

        SourceFile(String path, String text) {
            super(URI.create("mem:///" + path.replace('\\', '/').replace(" ", "%20")), Kind.SOURCE);
            this.path = path;
            this.text = text;
            this.packageName = declaredPackage(text);
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }

        /**
         * The binary name of the top-level type javac expects the file to declare: its package and
         * file name, as javac's own source path lookup assumes.
         */
        String topLevelName() {
            String name = path.substring(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
            String stem = name.endsWith(".java") ? name.substring(0, name.length() - 5) : name;
            return packageName.isEmpty() ? stem : packageName + "." + stem;
        }
    }

    /**
     * The package named by the {@code package} declaration of {@code text}: the first token after
     * comments and annotations (package-info files annotate their package), or "" when the first
     * token is something else. Not a parser: a file it misreads is only looked up under another
     * package name, which javac then reports if a root needs one of its types.
     */
    static String declaredPackage(String text) {
        int p = 0;
        int n = text.length();
        while (p < n) {
            char c = text.charAt(p);
            if (Character.isWhitespace(c) || c == '\uFEFF') {
                p++;
            } else if (text.startsWith("//", p)) {
                int end = text.indexOf('\n', p);
                p = end < 0 ? n : end + 1;
            } else if (text.startsWith("/*", p)) {
                int end = text.indexOf("*/", p + 2);
                p = end < 0 ? n : end + 2;
            } else if (c == '@') {
                p = skipAnnotation(text, p + 1);
            } else {
                break;
            }
        }
        if (!text.startsWith("package", p) || p + 7 >= n || Character.isJavaIdentifierPart(text.charAt(p + 7))) {
            return "";
        }
        int end = text.indexOf(';', p + 7);
        if (end < 0) {
            return "";
        }
        StringBuilder name = new StringBuilder();
        String between = text.substring(p + 7, end).replaceAll("/\\*.*?\\*/|//[^\n]*", " ");
        for (int k = 0; k < between.length(); k++) {
            char c = between.charAt(k);
            if (Character.isJavaIdentifierPart(c) || c == '.') {
                name.append(c);
            } else if (!Character.isWhitespace(c)) {
                return "";
            }
        }
        return name.toString();
    }

    /** Skips an annotation's name and, if present, its parenthesised arguments. */
    private static int skipAnnotation(String text, int p) {
        int n = text.length();
        while (p < n && (Character.isJavaIdentifierPart(text.charAt(p)) || text.charAt(p) == '.'
                || Character.isWhitespace(text.charAt(p)))) {
            p++;
        }
        if (p < n && text.charAt(p) == '(') {
            int depth = 0;
            for (; p < n; p++) {
                char c = text.charAt(p);
                if (c == '"') {
                    for (p++; p < n && text.charAt(p) != '"'; p++) {
                        if (text.charAt(p) == '\\') {
                            p++;
                        }
                    }
                } else if (c == '(') {
                    depth++;
                } else if (c == ')' && --depth == 0) {
                    return p + 1;
                }
            }
        }
        return p;
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
}
