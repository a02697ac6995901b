package ctgls.worker;

import ctgls.worker.Compiler.CachedFile;
import ctgls.worker.Compiler.FileEntry;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.io.UncheckedIOException;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;
import java.util.Map;

/**
 * The compile cache on disk: what a worker compiled, for the next worker of the same project
 * (docs/protocol.md, {@code saveCompileCache}).
 *
 * <p>The file holds the settings it was made with (the runtime's version, the classpath and
 * options, and a fingerprint of what the classpath holds) and, per source file, the hash of its original text and its compiled variants with
 * their class bytes. A file made with other settings is ignored, never partly used: class bytes
 * depend on the compiler and on the classpath. A damaged file is an error the caller reports and
 * compiles without.
 */
final class CompileCache {
    private static final String MAGIC = "ctgls compile cache";
    private static final int FORMAT = 2;
    /** Bounds that a damaged length field cannot make the reader allocate beyond. */
    private static final int MAX_STRING = 1 << 24;
    private static final int MAX_CLASS = 1 << 26;
    private static final int MAX_COUNT = 1 << 20;
    /** Files of a classpath directory looked at one by one, at most. */
    private static final int MAX_FINGERPRINT_FILES = 20_000;

    private CompileCache() {
    }

    /** A cache as read: the cached files, and the hash of every source of the request that made it. */
    static final class Contents {
        final Map<String, CachedFile> files;
        final Map<String, String> known;

        Contents(Map<String, CachedFile> files, Map<String, String> known) {
            this.files = files;
            this.known = known;
        }
    }

    static final class Written {
        final long bytes;

        Written(long bytes) {
            this.bytes = bytes;
        }
    }

    /** The compiler's identity: class bytes from another javac are not what this one would make. */
    private static String runtime() {
        return System.getProperty("java.runtime.version") + " " + System.getProperty("java.vm.version");
    }

    /**
     * Writes the cache next to {@code file} and moves it into place, so a reader sees a whole
     * file or none.
     */
    static Written write(Path file, String settingsKey, List<String> classpath, Map<String, CachedFile> files,
            Map<String, String> known) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".compile-cache", ".tmp");
        long bytes;
        try {
            try (OutputStream raw = Files.newOutputStream(tmp);
                    CountingOutputStream counted = new CountingOutputStream(raw);
                    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(counted, 1 << 16))) {
                string(out, MAGIC);
                out.writeInt(FORMAT);
                string(out, runtime());
                string(out, settingsKey);
                string(out, classpathFingerprint(classpath));
                out.writeInt(known.size());
                for (Map.Entry<String, String> k : known.entrySet()) {
                    string(out, k.getKey());
                    string(out, k.getValue());
                }
                out.writeInt(files.size());
                for (Map.Entry<String, CachedFile> f : files.entrySet()) {
                    string(out, f.getKey());
                    string(out, f.getValue().sourceHash);
                    out.writeInt(f.getValue().variants.size());
                    for (FileEntry v : f.getValue().variants.values()) {
                        string(out, v.hash);
                        out.writeInt(v.classes.size());
                        for (Map.Entry<String, byte[]> c : v.classes.entrySet()) {
                            string(out, c.getKey());
                            out.writeInt(c.getValue().length);
                            out.write(c.getValue());
                        }
                    }
                }
                out.flush();
                bytes = counted.count;
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return new Written(bytes);
    }

    /**
     * The cache in {@code file}, or null when there is none or it was made by another format
     * version or with other settings. Throws when the file is damaged.
     */
    static Contents read(Path file, String settingsKey, List<String> classpath) throws IOException {
        InputStream raw;
        try {
            raw = Files.newInputStream(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
            if (!MAGIC.equals(string(in))) {
                throw new IOException("not a compile cache");
            }
            if (in.readInt() != FORMAT || !runtime().equals(string(in)) || !settingsKey.equals(string(in))
                    || !classpathFingerprint(classpath).equals(string(in))) {
                return null;
            }
            int knownCount = count(in);
            Map<String, String> known = new HashMap<>();
            for (int k = 0; k < knownCount; k++) {
                known.put(string(in), string(in));
            }
            int fileCount = count(in);
            Map<String, CachedFile> files = new HashMap<>();
            for (int f = 0; f < fileCount; f++) {
                String path = string(in);
                CachedFile cf = new CachedFile(string(in));
                int variantCount = count(in);
                for (int v = 0; v < variantCount; v++) {
                    FileEntry entry = new FileEntry(string(in));
                    int classCount = count(in);
                    for (int c = 0; c < classCount; c++) {
                        String name = string(in);
                        int length = in.readInt();
                        if (length < 0 || length > MAX_CLASS) {
                            throw new IOException("a class of " + length + " bytes");
                        }
                        byte[] bytes = new byte[length];
                        in.readFully(bytes);
                        entry.add(name, bytes);
                    }
                    cf.variants.put(entry.hash, entry);
                }
                files.put(path, cf);
            }
            if (in.read() != -1) {
                throw new IOException("data after the last file");
            }
            return new Contents(files, known);
        } catch (EOFException e) {
            throw new IOException("the file ends early");
        }
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_COUNT) {
            throw new IOException("a count of " + n);
        }
        return n;
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String string(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_STRING) {
            throw new IOException("a string of " + n + " bytes");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * What the classpath holds, as far as lengths and times of change tell: of every jar, and of
     * every file under a directory (a build output). Classes compiled against a jar that was
     * replaced, or against a build output rebuilt since, may have taken its constants or
     * resolved overloads differently, so such a cache is not used. A directory of more than
     * {@link #MAX_FINGERPRINT_FILES} files counts by its own time only.
     */
    static String classpathFingerprint(List<String> classpath) {
        StringBuilder b = new StringBuilder();
        for (String entry : classpath) {
            Path root = Paths.get(entry);
            b.append(entry).append('\n');
            if (!Files.isDirectory(root)) {
                file(b, root, root);
                continue;
            }
            List<Path> under = new ArrayList<>();
            try (Stream<Path> walk = Files.walk(root)) {
                walk.filter(Files::isRegularFile).limit(MAX_FINGERPRINT_FILES + 1).forEach(under::add);
            } catch (IOException | UncheckedIOException e) {
                b.append("unreadable\n");
                continue;
            }
            if (under.size() > MAX_FINGERPRINT_FILES) {
                file(b, root, root);
                continue;
            }
            Collections.sort(under);
            for (Path p : under) {
                file(b, root, p);
            }
        }
        return Compiler.sha256(b.toString());
    }

    private static void file(StringBuilder b, Path root, Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            b.append(root.relativize(p)).append(' ').append(a.size()).append(' ')
                    .append(a.lastModifiedTime().toMillis()).append('\n');
        } catch (IOException e) {
            b.append(root.relativize(p)).append(" missing\n");
        }
    }

    private static final class CountingOutputStream extends java.io.FilterOutputStream {
        long count;

        CountingOutputStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }
}
