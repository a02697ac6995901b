package ctgls.verify;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.io.File;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs one JUnit 5 test class through the JUnit Platform Launcher API (no console launcher
 * needed: the engine and launcher jars a Maven test classpath holds are enough), its methods
 * in name order or reversed ({@link MethodNameOrder}, {@link ReverseMethodNameOrder}), with a
 * per-test timeout, and writes one tab-separated line per event to a file, in the format of
 * {@link JUnit4Runner}:
 *
 * <pre>
 * START  method
 * FAIL   method  assertion(0|1)  line-in-test-class(-1 unknown)  exception-class  message
 * END    method
 * STATE  method  what it changed (see {@link GlobalState}; put back before the next test)
 * TIMEOUT method          (then the JVM halts)
 * DONE   run-count  failure-count
 * </pre>
 *
 * Usage: {@code JUnit5Runner <test class> <forward|reverse|shuffle:SEED> <per-test timeout ms>
 * <event file> [class path of the tests]} ({@link TestOrder}); the system property
 * {@code ctgls.verify.only} (comma-separated method names) runs only those methods. The
 * optional class path is loaded by a class loader of its own
 * (the training run of the start-up archive keeps the JVM's class path to the jars). Part of
 * ctgls's verification harness, compiled apart from the tests at the JDK's own level; never
 * part of an emitted test.
 */
public final class JUnit5Runner {
    /** Past JUnit's own timeout, the watchdog ends a run that JUnit could not stop. */
    private static final long WATCHDOG_GRACE_MS = 5000;

    private static volatile String current;
    private static volatile long deadline;
    private static volatile GlobalState before;

    public static void main(String[] args) throws Exception {
        final String testClassName = args[0];
        String orderArgument = args[1];
        final long timeoutMs = Long.parseLong(args[2]);
        final PrintStream out = new PrintStream(new FileOutputStream(args[3]), true, "UTF-8");
        if (args.length > 4) {
            List<URL> urls = new ArrayList<>();
            for (String entry : args[4].split(File.pathSeparator)) {
                if (!entry.isEmpty()) {
                    urls.add(new File(entry).toURI().toURL());
                }
            }
            Thread.currentThread().setContextClassLoader(
                    new URLClassLoader(urls.toArray(new URL[0]), JUnit5Runner.class.getClassLoader()));
        }

        Thread watchdog = new Thread(() -> {
            while (true) {
                String test = current;
                if (test != null && System.currentTimeMillis() > deadline) {
                    out.println("TIMEOUT\t" + test);
                    out.flush();
                    Runtime.getRuntime().halt(3);
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "ctgls-junit5-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        Class<?> order = MethodNameOrder.class;
        if ("reverse".equals(orderArgument)) {
            order = ReverseMethodNameOrder.class;
        } else if (orderArgument.startsWith("shuffle:")) {
            TestOrder.seed = Long.parseLong(orderArgument.substring("shuffle:".length()));
            order = ShuffledMethodOrder.class;
        }
        List<DiscoverySelector> selectors = new ArrayList<>();
        String only = System.getProperty("ctgls.verify.only", "");
        for (String method : only.split(",")) {
            if (!method.isEmpty()) {
                selectors.add(selectMethod(testClassName + "#" + method));
            }
        }
        if (selectors.isEmpty()) {
            selectors.add(selectClass(testClassName));
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors)
                .filters(EngineFilter.includeEngines("junit-jupiter"))
                .configurationParameter("junit.jupiter.testmethod.order.default", order.getName())
                .configurationParameter("junit.jupiter.execution.timeout.default", timeoutMs + "ms")
                .configurationParameter(
                        "junit.jupiter.execution.timeout.thread.mode.default", "SEPARATE_THREAD")
                .build();
        final int[] counts = new int[2];
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                if (!id.isTest()) {
                    return;
                }
                deadline = System.currentTimeMillis() + timeoutMs + WATCHDOG_GRACE_MS;
                current = name(id);
                counts[0]++;
                before = GlobalState.capture();
                out.println("START\t" + name(id));
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                Optional<Throwable> thrown = result.getThrowable();
                if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    Throwable t = thrown.orElse(new AssertionError("aborted"));
                    counts[1]++;
                    out.println("FAIL\t" + (id.isTest() ? name(id) : "") + "\t"
                            + (t instanceof AssertionError ? 1 : 0) + "\t" + line(t, testClassName)
                            + "\t" + t.getClass().getName() + "\t" + escape(String.valueOf(t.getMessage())));
                }
                if (id.isTest()) {
                    current = null;
                    String changed = before == null ? "" : before.restore();
                    if (!changed.isEmpty()) {
                        out.println("STATE\t" + name(id) + "\t" + escape(changed));
                    }
                    out.println("END\t" + name(id));
                }
            }
        };
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, listener);
        out.println("DONE\t" + counts[0] + "\t" + counts[1]);
        out.close();
        System.exit(0);
    }

    /** The test method's name (a test of another kind: its display name). */
    private static String name(TestIdentifier id) {
        Optional<TestSource> source = id.getSource();
        if (source.isPresent() && source.get() instanceof MethodSource) {
            return ((MethodSource) source.get()).getMethodName();
        }
        return id.getDisplayName();
    }

    /** The line of the first frame in the test class (or a nested class or lambda of it). */
    private static int line(Throwable t, String testClassName) {
        for (StackTraceElement e : t.getStackTrace()) {
            String c = e.getClassName();
            if (c.equals(testClassName) || c.startsWith(testClassName + "$")) {
                return e.getLineNumber();
            }
        }
        return -1;
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }
}
