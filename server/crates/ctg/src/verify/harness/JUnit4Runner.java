package ctgls.verify;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Set;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * Runs one JUnit 4 test class with {@link JUnitCore}, its methods sorted by name forwards or
 * backwards, and writes one tab-separated line per event to a file (not to System.out, which
 * the tests may write to):
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
 * Usage: {@code JUnit4Runner <test class> <forward|reverse|shuffle:SEED> <per-test timeout ms>
 * <event file>} ({@link TestOrder}); the system property {@code ctgls.verify.only}
 * (comma-separated method names) runs only those methods.
 * Part of ctgls's verification harness; never part of an emitted test.
 */
public final class JUnit4Runner {
    private static volatile String current;
    private static volatile long deadline;
    private static volatile GlobalState before;

    public static void main(String[] args) throws Exception {
        String testClassName = args[0];
        Class<?> testClass = Class.forName(testClassName, false, JUnit4Runner.class.getClassLoader());
        Comparator<String> order = TestOrder.of(args[1]);
        final Set<String> only = new HashSet<>();
        for (String method : System.getProperty("ctgls.verify.only", "").split(",")) {
            if (!method.isEmpty()) {
                only.add(method);
            }
        }
        long timeoutMs = Long.parseLong(args[2]);
        PrintStream out = new PrintStream(new FileOutputStream(args[3]), true, "UTF-8");

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
        }, "ctgls-junit4-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        Request request = Request.aClass(testClass)
                .sortWith(Comparator.comparing((Description d) -> String.valueOf(d.getMethodName()), order));
        if (!only.isEmpty()) {
            request = request.filterWith(new Filter() {
                @Override
                public boolean shouldRun(Description d) {
                    return d.getMethodName() == null || only.contains(d.getMethodName());
                }

                @Override
                public String describe() {
                    return "ctgls.verify.only";
                }
            });
        }
        JUnitCore core = new JUnitCore();
        core.addListener(new RunListener() {
            @Override
            public void testStarted(Description d) {
                deadline = System.currentTimeMillis() + timeoutMs;
                current = d.getMethodName();
                before = GlobalState.capture();
                out.println("START\t" + d.getMethodName());
            }

            @Override
            public void testFailure(Failure f) {
                Throwable t = f.getException();
                int line = -1;
                for (StackTraceElement e : t.getStackTrace()) {
                    String c = e.getClassName();
                    if (c.equals(testClassName) || c.startsWith(testClassName + "$")) {
                        line = e.getLineNumber();
                        break;
                    }
                }
                String method = f.getDescription().getMethodName();
                out.println("FAIL\t" + (method == null ? "" : method) + "\t"
                        + (t instanceof AssertionError ? 1 : 0) + "\t" + line + "\t"
                        + t.getClass().getName() + "\t" + escape(String.valueOf(t.getMessage())));
            }

            @Override
            public void testFinished(Description d) {
                current = null;
                String changed = before == null ? "" : before.restore();
                if (!changed.isEmpty()) {
                    out.println("STATE\t" + d.getMethodName() + "\t" + escape(changed));
                }
                out.println("END\t" + d.getMethodName());
            }
        });
        Result result = core.run(request);
        out.println("DONE\t" + result.getRunCount() + "\t" + result.getFailureCount());
        out.close();
        System.exit(0);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }
}
