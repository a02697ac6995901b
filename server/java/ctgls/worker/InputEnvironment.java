package ctgls.worker;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The environment statements (docs/protocol.md, "execute"): console input, system properties and
 * input files, which the search chooses as it chooses primitive values (Arcuri et al.,
 * "Environment Dependencies", 3.3.1 and 3.3.2), set up for real rather than mocked, as the
 * written JUnit test sets them up.
 *
 * <p>Console input and properties are put back after every test with the rest of the JDK's
 * state ({@link JdkState}). Input files live in one directory per test under
 * {@code java.io.tmpdir} (the job's scratch directory, the only place the sandbox lets a test
 * write), deleted when the test ends ({@link #endTest}).
 */
final class InputEnvironment {
    /** The running test's input directory; null until its first input file. */
    private static volatile Path directory;

    private InputEnvironment() {}

    static void console(String text) {
        System.setIn(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    static void property(String key, String value) throws TestCase.Invalid {
        if (key.isEmpty()) {
            throw new TestCase.Invalid("empty system property key");
        }
        System.setProperty(key, value);
    }

    /**
     * The path of the file {@code name} in the test's input directory, as {@code type}
     * ({@code String}, {@code File} or {@code Path}), holding {@code content} (UTF-8), or no file
     * at all when {@code content} is null.
     */
    static Object file(String name, String content, Class<?> type) throws TestCase.Invalid {
        if (name.isEmpty() || name.equals(".") || name.equals("..") || name.contains("/")
                || name.contains(File.separator)) {
            throw new TestCase.Invalid("'" + name + "' is not a plain file name");
        }
        if (type != String.class && type != File.class && type != Path.class) {
            throw new TestCase.Invalid("an input file's path cannot be a " + type.getName());
        }
        Path path;
        try {
            if (directory == null) {
                directory = Files.createTempDirectory("ctgls-input");
            }
            path = directory.resolve(name);
            if (content != null) {
                Files.write(path, content.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException | RuntimeException e) {
            throw new TestCase.Invalid("cannot create the input file " + name + ": " + e);
        }
        if (type == Path.class) {
            return path;
        }
        if (type == File.class) {
            return path.toFile();
        }
        return path.toString();
    }

    /** Deletes the test's input directory with what the test left in it. */
    static void endTest() {
        Path dir = directory;
        directory = null;
        if (dir == null) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<Path>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException | RuntimeException e) {
            // What is left stays in the scratch directory, which the supervisor removes.
        }
    }
}
