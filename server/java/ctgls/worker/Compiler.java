package ctgls.worker;

import ctgls.worker.MemoryFileManager.SourceFile;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/**
 * In-memory compilation (javax.tools) with a per-file cache of class bytes.
 *
 * <p>Only the request's <em>roots</em> (all files when it names none) are compiled for sure. The
 * other files form javac's source path, in memory: javac parses, attributes and generates a file
 * only when a file it compiles needs one of its types ({@code -implicit:class}), as an IDE or
 * {@code javac -sourcepath} does, so a file nothing reaches is never compiled and its errors are
 * never seen. The unit holds the <em>closure</em> of the roots: the files whose classes the
 * roots' classes refer to, transitively, in their bytecode.
 *
 * <p>A file is recompiled when its text changed, or when it mentions (as a whole word) the simple
 * name of a type declared in a changed or removed file, since its bytes may depend on that type's
 * members. The other files' cached classes are handed to javac as class files, and such a file
 * is not also offered as a source. The cache is dropped when the classpath or the options change.
 *
 * <p>A file keeps a few compiled <em>variants</em> of one original text: the original and the
 * instrumented texts made from it. Switching between them (the job compiles its class
 * instrumented, emission compiles it again as it is) does not count as a change for the files
 * that mention its types: instrumentation keeps every signature, supertype, nested type and
 * constant variable, so nothing another file's bytecode can depend on differs between them.
 *
 * <p>The cache can be saved to a file and loaded by a later worker ({@link CompileCache}), so a
 * new worker need not compile what an earlier one compiled from the same texts.
 */
final class Compiler {
    static final class UnknownUnit extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnknownUnit(String id) {
            super("unknown compilation unit set '" + id + "'");
        }
    }

    private static final int MAX_UNITS = 16;
    /**
     * javac runs per request beyond the first, to compile files that cached classes of the
     * closure need but that are not cached (see {@link #closure}); a bound against surprises.
     */
    private static final int MAX_REPAIR_ROUNDS = 8;

    /** Compiled variants kept per file: the original and the latest instrumented texts. */
    private static final int MAX_VARIANTS = 3;

    /** One compiled text of a file: its classes. */
    static final class FileEntry {
        final String hash;
        final Map<String, byte[]> classes = new HashMap<>();
        final Set<String> simpleNames = new HashSet<>();
        /** Classes the file's classes refer to, computed on first use. */
        private Set<String> refs;
        /** {@link Abi#of} of the classes, computed on first use ("" when it has none). */
        private String abi;
        /** Simple names of the classes' superclasses and interfaces, computed on first use. */
        private Set<String> supertypes;

        FileEntry(String hash) {
            this.hash = hash;
        }

        void add(String binaryName, byte[] bytes) {
            classes.put(binaryName, bytes);
            String top = binaryName.substring(binaryName.lastIndexOf('.') + 1);
            int dollar = top.indexOf('$');
            simpleNames.add(dollar > 0 ? top.substring(0, dollar) : top);
        }

        String abi() {
            if (abi == null) {
                String a = Abi.of(classes);
                abi = a == null ? "" : a;
            }
            return abi.isEmpty() ? null : abi;
        }

        Set<String> supertypes() {
            if (supertypes == null) {
                supertypes = new HashSet<>();
                for (byte[] bytes : classes.values()) {
                    try {
                        ClassFile cf = ClassFile.parse(bytes);
                        List<String> direct = new ArrayList<>(cf.interfaces);
                        if (cf.superName != null) {
                            direct.add(cf.superName);
                        }
                        for (String internal : direct) {
                            String top = internal.substring(internal.lastIndexOf('/') + 1);
                            int dollar = top.indexOf('$');
                            supertypes.add(dollar > 0 ? top.substring(0, dollar) : top);
                        }
                    } catch (IllegalArgumentException e) {
                        // javac's own output; a class file it cannot read adds no supertype.
                    }
                }
            }
            return supertypes;
        }

        Set<String> refs() {
            if (refs == null) {
                refs = new HashSet<>();
                for (byte[] bytes : classes.values()) {
                    try {
                        refs.addAll(ClassFile.parse(bytes).referencedClasses());
                    } catch (IllegalArgumentException e) {
                        // javac's own output; a class file it cannot read adds no edges.
                    }
                }
                refs.removeAll(classes.keySet());
            }
            return refs;
        }
    }

    /**
     * A file's compiled variants, all made from the same original text ({@link #sourceHash}) and
     * against the same versions of the other cached files, keyed by the hash of the compiled text
     * and kept in order of last use.
     */
    static final class CachedFile {
        final String sourceHash;
        final LinkedHashMap<String, FileEntry> variants = new LinkedHashMap<String, FileEntry>(4, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, FileEntry> eldest) {
                return size() > MAX_VARIANTS;
            }
        };

        CachedFile(String sourceHash) {
            this.sourceHash = sourceHash;
        }

        Set<String> simpleNames() {
            Set<String> names = new HashSet<>();
            for (FileEntry e : variants.values()) {
                names.addAll(e.simpleNames);
            }
            return names;
        }

        /** The interface of the file's classes ({@link Abi}; the same for every variant), or null. */
        String abi() {
            for (FileEntry e : variants.values()) {
                return e.abi();
            }
            return null;
        }

        /** Whether a variant's classes refer to any of {@code classes} (binary names). */
        boolean refersToAny(Set<String> classes) {
            if (classes.isEmpty()) {
                return false;
            }
            for (FileEntry e : variants.values()) {
                for (String ref : e.refs()) {
                    if (classes.contains(ref)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** The simple names of its classes' direct supertypes (the same for every variant). */
        Set<String> supertypes() {
            for (FileEntry e : variants.values()) {
                return e.supertypes();
            }
            return Collections.emptySet();
        }
    }

    private final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    private String settingsKey;
    /** The classpath of {@link #settingsKey}. */
    private List<String> settingsClasspath = Collections.emptyList();
    private StandardJavaFileManager standard;
    private Map<String, CachedFile> files = new HashMap<>();
    /**
     * The hash of every source's original text in the request that last compiled, cached or
     * not: a file is <em>changed</em> when its text differs from this (or it is new, or gone).
     * A file that was on the source path but never compiled, because nothing needed it, is no
     * change when it comes back the same.
     */
    private Map<String, String> known = new HashMap<>();
    /** The cache changed since it was last saved or loaded. */
    private boolean unsaved;
    /** The cache file last loaded, so that it is read once per settings. */
    private String loadedFrom;
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

    /** One request's files and what this request may compile. */
    private static final class Request {
        /** The text compiled: the instrumented one when there is one. */
        final Map<String, String> text = new LinkedHashMap<>();
        final Map<String, String> original = new HashMap<>();
        final Map<String, Boolean> instrumented = new HashMap<>();
        /** SHA-256 of the compiled text. */
        final Map<String, String> hash = new HashMap<>();
        /** SHA-256 of the original text. */
        final Map<String, String> sourceHash = new HashMap<>();
        /** Cached files that still stand for their sources (whether or not the variant needed now is cached). */
        final Map<String, CachedFile> current = new HashMap<>();
        Set<String> roots;
        List<String> options;
        /** Files whose cached classes stand for them, unchanged since they were compiled. */
        final Map<String, FileEntry> valid = new HashMap<>();
        /** Files compiled by this request. */
        final Map<String, FileEntry> fresh = new LinkedHashMap<>();
        /** A source for every file that is not valid, in request order. */
        final Map<String, SourceFile> sources = new LinkedHashMap<>();
        final Map<JavaFileObject, String> pathOf = new IdentityHashMap<>();
        /** Classes the dropped cache entries of this request's files declared, by binary name. */
        final Map<String, String> declaredBefore = new HashMap<>();
        /** For every file that is not valid, the top-level type its package and name promise. */
        final Map<String, String> byTopLevel = new HashMap<>();
        final List<Object> diagnostics = new ArrayList<>();

        FileEntry entry(String path) {
            FileEntry e = fresh.get(path);
            return e != null ? e : valid.get(path);
        }

        /** A request for the same texts, with nothing classified or compiled yet. */
        Request inputs() {
            Request copy = new Request();
            copy.text.putAll(text);
            copy.original.putAll(original);
            copy.instrumented.putAll(instrumented);
            copy.hash.putAll(hash);
            copy.sourceHash.putAll(sourceHash);
            copy.roots = roots;
            copy.options = options;
            return copy;
        }
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
            known.clear();
            loadedFrom = null;
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
            settingsClasspath = classpath;
        }

        String cacheFile = Json.optStr(req, "cacheFile");
        String cacheError = null;
        int cacheLoaded = 0;
        if (cacheFile != null && files.isEmpty() && !cacheFile.equals(loadedFrom)) {
            loadedFrom = cacheFile;
            try {
                CompileCache.Contents loaded =
                        CompileCache.read(java.nio.file.Paths.get(cacheFile), settingsKey, classpath);
                if (loaded != null) {
                    files = loaded.files;
                    known = loaded.known;
                    cacheLoaded = files.size();
                    unsaved = false;
                }
            } catch (IOException | RuntimeException e) {
                cacheError = "the compile cache " + cacheFile + " could not be read (" + e + "); compiling without it";
            }
        }

        Request r = new Request();
        r.options = userOptions;
        for (Object o : Json.arr(req.get("sources"), "sources")) {
            Map<String, Object> s = Json.obj(o, "source");
            String path = Json.str(s, "path");
            String alt = Json.optStr(s, "instrumented");
            String original = Json.str(s, "text");
            String t = alt != null ? alt : original;
            r.text.put(path, t);
            r.original.put(path, original);
            r.instrumented.put(path, alt != null);
            r.sourceHash.put(path, sha256(original));
            r.hash.put(path, alt != null ? sha256(t) : r.sourceHash.get(path));
        }
        if (req.get("roots") == null) {
            r.roots = r.text.keySet();
        } else {
            r.roots = new LinkedHashSet<>(strings(req.get("roots"), "roots"));
            for (String root : r.roots) {
                if (!r.text.containsKey(root)) {
                    throw new IllegalArgumentException("roots: " + root + " is not among the sources");
                }
            }
        }

        // Files whose original text changed since the last compile, and files that are gone.
        Set<String> changed = new LinkedHashSet<>();
        for (String path : r.text.keySet()) {
            if (!r.sourceHash.get(path).equals(known.get(path))) {
                changed.add(path);
            }
        }
        Set<String> gone = new LinkedHashSet<>(known.keySet());
        gone.removeAll(r.text.keySet());

        // A changed file whose interface stayed the same (an edit inside a body, the usual edit)
        // changes nothing for the files that mention its types.
        Map<String, FileEntry> sameInterface = sameInterface(r, changed, gone);
        // The files whose interface counts as changed, and the names of their types: a cached
        // file that mentions one of those names is compiled again.
        Set<String> judged = new LinkedHashSet<>(changed);
        judged.removeAll(sameInterface.keySet());
        judged.addAll(gone);
        Set<String> changedNames = namesOf(judged, gone);
        Map<String, FileEntry> carried = new LinkedHashMap<>(sameInterface);
        List<Object> carriedDiagnostics = new ArrayList<>();
        boolean success = true;
        Set<String> closure = Collections.emptySet();
        // Until no file compiled here has an interface other than its cached one: a file compiled
        // again because it mentions a changed type can change with it (a constant it takes from
        // that type), and then the files that mention it must be compiled again too.
        for (int pass = 0; ; pass++) {
            subtypes(changedNames, judged);
            classify(r, changedNames, judged);
            for (Map.Entry<String, FileEntry> e : carried.entrySet()) {
                r.fresh.put(e.getKey(), e.getValue());
            }
            r.diagnostics.addAll(carriedDiagnostics);
            Set<String> explicit = new LinkedHashSet<>();
            for (String path : r.text.keySet()) {
                if (r.roots.contains(path) && !r.valid.containsKey(path) && !r.fresh.containsKey(path)) {
                    explicit.add(path);
                }
            }
            for (int round = 0; ; round++) {
                if (!explicit.isEmpty() && !runJavac(r, explicit)) {
                    success = false;
                    break;
                }
                Set<String> needed = new LinkedHashSet<>();
                closure = closure(r, needed);
                if (needed.isEmpty() || round == MAX_REPAIR_ROUNDS) {
                    break;
                }
                explicit = needed;
            }
            if (!success) {
                break;
            }
            Set<String> differs = new LinkedHashSet<>();
            for (Map.Entry<String, FileEntry> e : r.fresh.entrySet()) {
                CachedFile old = files.get(e.getKey());
                // An interface that cannot be told (null: an annotation type) counts as changed.
                String before = old == null ? null : old.abi();
                if (old != null && !judged.contains(e.getKey())
                        && (before == null || !before.equals(e.getValue().abi()))) {
                    differs.add(e.getKey());
                }
            }
            if (differs.isEmpty() || pass == files.size()) {
                break;
            }
            judged.addAll(differs);
            Set<String> added = namesOf(differs, Collections.emptySet());
            for (String path : differs) {
                added.addAll(r.fresh.get(path).simpleNames);
            }
            changedNames.addAll(added);
            // What was compiled stays unless it mentions a type whose interface just changed;
            // the files whose interface changed were compiled from their current text.
            carried = new LinkedHashMap<>();
            for (Map.Entry<String, FileEntry> e : r.fresh.entrySet()) {
                if (differs.contains(e.getKey()) || !mentionsAny(r.original.get(e.getKey()), added)) {
                    carried.put(e.getKey(), e.getValue());
                }
            }
            carriedDiagnostics = new ArrayList<>();
            for (Object d : r.diagnostics) {
                @SuppressWarnings("unchecked")
                Object file = ((Map<String, Object>) d).get("file");
                if (carried.containsKey(file)) {
                    carriedDiagnostics.add(d);
                }
            }
            r = r.inputs();
        }

        Map<String, Object> res = new LinkedHashMap<>();
        res.put("success", success);
        res.put("diagnostics", r.diagnostics);
        long reused = 0;
        for (String path : closure) {
            if (!r.fresh.containsKey(path)) {
                reused++;
            }
        }
        res.put("compiledFiles", (long) (success ? r.fresh.size() : 0));
        res.put("reusedFiles", success ? reused : 0L);
        if (cacheFile != null) {
            res.put("cacheLoadedFiles", (long) cacheLoaded);
        }
        if (cacheError != null) {
            res.put("cacheError", cacheError);
        }
        if (success) {
            Map<String, CachedFile> next = new HashMap<>();
            for (String path : r.text.keySet()) {
                CachedFile cf = r.current.get(path);
                FileEntry fresh = r.fresh.get(path);
                if (fresh != null) {
                    if (cf == null) {
                        cf = new CachedFile(r.sourceHash.get(path));
                    }
                    cf.variants.put(fresh.hash, fresh);
                    unsaved = true;
                }
                if (cf != null) {
                    next.put(path, cf);
                }
            }
            // A cached file dropped here (it mentions a changed type, and nothing needed it
            // compiled again) may have a new interface without a new text: it must count as
            // changed next time, for the files that mention it.
            Map<String, String> nextKnown = new HashMap<>(r.sourceHash);
            for (String path : files.keySet()) {
                if (!next.containsKey(path)) {
                    nextKnown.remove(path);
                }
            }
            if (next.size() != files.size() || !known.equals(nextKnown)) {
                unsaved = true;
            }
            files = next;
            known = nextKnown;
            Map<String, byte[]> all = new HashMap<>();
            for (String path : closure) {
                all.putAll(r.entry(path).classes);
            }
            Unit u = new Unit(unitId, all, classpath);
            units.put(unitId, u);
            res.put("classes", new ArrayList<Object>(u.classNames));
            res.put("files", new ArrayList<Object>(new TreeSet<>(closure)));
        } else {
            units.remove(unitId);
        }
        return res;
    }

    /**
     * Adds to {@code changedNames} (and their files to {@code judged}) the names of the cached
     * files that declare subtypes of a changed type, transitively: what they inherit changed,
     * and a file that calls an inherited member through them may resolve it differently now.
     */
    private void subtypes(Set<String> changedNames, Set<String> judged) {
        for (boolean grew = true; grew; ) {
            grew = false;
            for (Map.Entry<String, CachedFile> e : files.entrySet()) {
                if (judged.contains(e.getKey())) {
                    continue;
                }
                for (String supertype : e.getValue().supertypes()) {
                    if (changedNames.contains(supertype)) {
                        judged.add(e.getKey());
                        changedNames.add(stem(e.getKey()));
                        changedNames.addAll(e.getValue().simpleNames());
                        grew = true;
                        break;
                    }
                }
            }
        }
    }

    /** The simple names of the types the given files declared (by their cached classes) or are named after. */
    private Set<String> namesOf(Set<String> changed, Set<String> gone) {
        Set<String> names = new HashSet<>();
        for (Set<String> paths : List.of(changed, gone)) {
            for (String path : paths) {
                names.add(stem(path));
                CachedFile cf = files.get(path);
                if (cf != null) {
                    names.addAll(cf.simpleNames());
                }
            }
        }
        return names;
    }

    /**
     * Sorts the request's files: a cached file still stands for its source (is <em>current</em>)
     * when its original text is unchanged, it mentions none of {@code changedNames} and its
     * classes refer to no class of the files {@code changedPaths}; it is
     * <em>valid</em> when the variant compiled now (original or instrumented) is cached too.
     * Every other file is a source, which javac compiles when the roots need it.
     */
    private void classify(Request r, Set<String> changedNames, Set<String> changedPaths) {
        // The classes the changed files declared: a cached class that refers to one in its
        // bytecode (a type it reaches only by inference, never naming it) is not valid either.
        Set<String> changedClasses = new HashSet<>();
        for (String path : changedPaths) {
            CachedFile cf = files.get(path);
            if (cf != null) {
                for (FileEntry v : cf.variants.values()) {
                    changedClasses.addAll(v.classes.keySet());
                }
            }
        }
        for (String path : r.text.keySet()) {
            CachedFile cf = files.get(path);
            if (cf != null && cf.sourceHash.equals(r.sourceHash.get(path))
                    && !mentionsAny(r.original.get(path), changedNames) && !cf.refersToAny(changedClasses)) {
                r.current.put(path, cf);
                FileEntry fe = cf.variants.get(r.hash.get(path));
                if (fe != null) {
                    r.valid.put(path, fe);
                }
            }
        }
        for (Map.Entry<String, String> e : r.text.entrySet()) {
            String path = e.getKey();
            if (r.valid.containsKey(path)) {
                continue;
            }
            SourceFile sf = new SourceFile(path, e.getValue());
            r.sources.put(path, sf);
            r.pathOf.put(sf, path);
            r.byTopLevel.putIfAbsent(sf.topLevelName(), path);
            CachedFile before = files.get(path);
            if (before != null) {
                for (FileEntry v : before.variants.values()) {
                    for (String c : v.classes.keySet()) {
                        r.declaredBefore.put(c, path);
                    }
                }
            }
        }
    }

    /**
     * The changed files, among those cached before, whose interface ({@link Abi}) is the same
     * as before, each compiled. They are compiled first, on their own, against the cache as if
     * no cached file depended on them; a file whose interface differs, or that does not compile
     * on its own, is left to the usual rule (the files mentioning its types are compiled again).
     * Nothing is tried when a new or gone file, or a changed file never compiled before, already
     * makes the files mentioning it invalid: those are not checked, so that rule holds for them.
     */
    private Map<String, FileEntry> sameInterface(Request r, Set<String> changed, Set<String> gone) {
        Map<String, String> before = new LinkedHashMap<>();
        Set<String> unchecked = new LinkedHashSet<>();
        for (String path : changed) {
            CachedFile cf = files.get(path);
            String abi = cf == null ? null : cf.abi();
            if (abi != null) {
                before.put(path, abi);
            } else {
                unchecked.add(path);
            }
        }
        if (before.isEmpty()) {
            return Collections.emptyMap();
        }
        Request trial = r.inputs();
        Set<String> notChecked = new LinkedHashSet<>(unchecked);
        notChecked.addAll(gone);
        classify(trial, namesOf(unchecked, gone), notChecked);
        Map<String, FileEntry> same = new LinkedHashMap<>();
        try {
            if (!runJavac(trial, before.keySet())) {
                return same;
            }
        } catch (IOException | RuntimeException e) {
            return same;
        }
        for (Map.Entry<String, String> e : before.entrySet()) {
            FileEntry compiled = trial.fresh.get(e.getKey());
            if (compiled != null && e.getValue().equals(compiled.abi())) {
                same.put(e.getKey(), compiled);
            }
        }
        // What javac said about these files, once: the files are not compiled again.
        for (Object d : trial.diagnostics) {
            @SuppressWarnings("unchecked")
            Object file = ((Map<String, Object>) d).get("file");
            if (same.containsKey(file)) {
                r.diagnostics.add(d);
            }
        }
        return same;
    }

    /**
     * Writes the cache to {@code req.file} for a later worker ({@link CompileCache}); nothing
     * when it did not change since it was last saved or loaded, or when nothing compiled yet.
     */
    Map<String, Object> saveCache(Map<String, Object> req) throws IOException {
        String file = Json.str(req, "file");
        Map<String, Object> res = new LinkedHashMap<>();
        if (!unsaved || settingsKey == null || files.isEmpty()) {
            res.put("saved", false);
            return res;
        }
        CompileCache.Written w =
                CompileCache.write(java.nio.file.Paths.get(file), settingsKey, settingsClasspath, files, known);
        unsaved = false;
        res.put("saved", true);
        res.put("files", (long) files.size());
        res.put("bytes", w.bytes);
        return res;
    }

    /**
     * Compiles {@code explicit} with every other file that is neither valid nor compiled yet on
     * the source path, and records what javac wrote under the file it came from (javac names
     * the originating source of each class as the output's sibling). False when javac failed.
     */
    private boolean runJavac(Request r, Set<String> explicit) throws IOException {
        Map<String, byte[]> visible = new HashMap<>(runtimeClasses());
        for (FileEntry e : r.valid.values()) {
            visible.putAll(e.classes);
        }
        for (FileEntry e : r.fresh.values()) {
            visible.putAll(e.classes);
        }
        List<SourceFile> roots = new ArrayList<>();
        List<SourceFile> available = new ArrayList<>();
        for (Map.Entry<String, SourceFile> e : r.sources.entrySet()) {
            String path = e.getKey();
            if (explicit.contains(path)) {
                roots.add(e.getValue());
            } else if (!r.fresh.containsKey(path) && !stem(path).equals("module-info")) {
                // module-info on the source path would put the files javac compiles into that
                // module, whose requirements the classpath cannot meet.
                available.add(e.getValue());
            }
        }
        MemoryFileManager fm = new MemoryFileManager(standard, visible, available);
        List<String> options = new ArrayList<>();
        options.add("-proc:none");
        options.add("-g");
        // Generate the classes of every file javac loads from the source path, and take a
        // source over a class file of the same type on the user's classpath (a stale build
        // output): javac's default compares modification times, and in-memory sources have none.
        options.add("-implicit:class");
        options.add("-Xprefer:source");
        options.addAll(r.options);
        DiagnosticCollector<JavaFileObject> dc = new DiagnosticCollector<>();
        StringWriter javacOut = new StringWriter();
        Boolean ok;
        try {
            ok = javac.getTask(javacOut, fm, dc, options, null, roots).call();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalArgumentException("javac refused the request: " + e.getMessage());
        }
        for (Diagnostic<? extends JavaFileObject> d : dc.getDiagnostics()) {
            r.diagnostics.add(diagnostic(d, r.pathOf, r.instrumented));
        }
        if (ok == null || !ok) {
            return false;
        }
        for (Map.Entry<String, byte[]> c : fm.output.entrySet()) {
            String path = r.pathOf.get(fm.outputSource.get(c.getKey()));
            if (path != null) {
                r.fresh.computeIfAbsent(path, p -> new FileEntry(r.hash.get(p))).add(c.getKey(), c.getValue());
            }
        }
        for (String path : explicit) {
            r.fresh.computeIfAbsent(path, p -> new FileEntry(r.hash.get(p)));
        }
        return true;
    }

    /**
     * The files the roots reach: a file is in when a class of a file already in refers to one of
     * its classes (Class constants, descriptors, signatures). javac compiles what the roots need,
     * but a cached class file was compiled earlier and may refer to a class whose file is not
     * cached now (it changed, or mentions a changed type) and that nothing compiled in this
     * request needed: such files are added to {@code needed}, to be compiled as roots.
     */
    private static Set<String> closure(Request r, Set<String> needed) {
        Map<String, String> owner = new HashMap<>();
        for (Map<String, FileEntry> m : List.of(r.valid, r.fresh)) {
            for (Map.Entry<String, FileEntry> e : m.entrySet()) {
                for (String c : e.getValue().classes.keySet()) {
                    owner.put(c, e.getKey());
                }
            }
        }
        Set<String> seen = new LinkedHashSet<>();
        ArrayDeque<String> queue = new ArrayDeque<>();
        for (String root : r.roots) {
            if (r.entry(root) != null && seen.add(root)) {
                queue.add(root);
            }
        }
        while (!queue.isEmpty()) {
            for (String ref : r.entry(queue.poll()).refs()) {
                String path = owner.get(ref);
                if (path != null) {
                    if (seen.add(path)) {
                        queue.add(path);
                    }
                    continue;
                }
                String candidate = r.declaredBefore.get(ref);
                if (candidate == null) {
                    int dollar = ref.indexOf('$', ref.lastIndexOf('.') + 1);
                    candidate = r.byTopLevel.get(dollar < 0 ? ref : ref.substring(0, dollar));
                }
                if (candidate != null && r.entry(candidate) == null) {
                    needed.add(candidate);
                }
            }
        }
        return seen;
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
                    "ctgls.rt.Probe$Counts", "ctgls.rt.Probe$Escape", "ctgls.rt.Probe$Escaping",
                    "ctgls.rt.DeadlineExceeded", "ctgls.rt.Mutants"}) {
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

    /** The SHA-256 of {@code s}'s UTF-8 bytes, in hex: the worker's one content hash. */
    static String sha256(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder(d.length * 2);
            for (byte x : d) {
                b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
            }
            return b.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
