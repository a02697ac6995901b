package ctgls.worker;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Ends the processes a test started, once the test is over: a search runs thousands of tests,
 * and a test that starts {@code sleep 1000} would otherwise leave one process per test running
 * until the worker dies (the supervisor kills the worker's whole process group then, and the
 * sandbox keeps every process in that group).
 *
 * <p>Finding every descendant reads all of /proc (about 0.6 ms with 80 processes), ten times a
 * typical test, so the worker looks only after a test that may have started one:
 *
 * <ul>
 *   <li>Where the exit guard is installed (Java 11-17), its {@code checkExec} sees every process
 *       Java starts and sets {@link #execSeen}.
 *   <li>Elsewhere the JDK's reaper threads tell. {@code ProcessBuilder.start} hands the new
 *       process to a thread named "process reaper" that waits for it, RUNNABLE and renamed
 *       "process reaper (pid N)" while it waits, and idles for 60 s after. A reaper may not have
 *       taken up a process started a moment before the test ended (it is still idle then), so the
 *       last test of a batch also looks whenever any reaper thread exists: no process outlives
 *       its batch, and within one at most the next test's end. Looking costs one enumeration of
 *       the threads per test (about 0.5 us on Java 17, 1-2 us on 25).
 * </ul>
 *
 * Processes started by other means (native code) are not seen; they die with the worker.
 *
 * <p>Where the sandbox confines reads (Linux, Landlock), the worker may read its own
 * {@code /proc/<pid>} but not its children's, so {@code descendants()}, which reads every
 * process's {@code stat}, finds nothing: the children are then read from
 * {@code /proc/self/task/<tid>/children} and killed with {@code kill -KILL} (their own children,
 * once orphaned, die with the worker's process group).
 */
final class Processes {
    /** A process was started since the last look (set by the exit guard). */
    static volatile boolean execSeen;

    private static final String REAPER = "process reaper";
    /** Rounds of {@link #killDescendants}: a process may start another before it is killed. */
    private static final int ROUNDS = 4;
    /** How long the killed processes are waited for, at most. */
    private static final long EXIT_WAIT_MS = 500;
    private static final ThreadGroup root = rootGroup();
    /** Reused by {@link #mayHaveStarted}, emptied after each use so it keeps no thread alive. */
    private static Thread[] threads = new Thread[64];

    private Processes() {}

    private static ThreadGroup rootGroup() {
        ThreadGroup g = Thread.currentThread().getThreadGroup();
        while (g.getParent() != null) {
            g = g.getParent();
        }
        return g;
    }

    /** Whether a process may have started since the last call; clears what it read. */
    static synchronized boolean mayHaveStarted(boolean lastOfBatch) {
        if (ExitGuard.installed()) {
            boolean seen = execSeen;
            execSeen = false;
            return seen;
        }
        // One enumeration into a kept array (about 1 us; activeCount() would be a second one).
        int n = root.enumerate(threads, true);
        while (n == threads.length) {
            threads = new Thread[threads.length * 2];
            n = root.enumerate(threads, true);
        }
        boolean found = false;
        for (int k = 0; k < n; k++) {
            String name = threads[k].getName();
            if (name.startsWith(REAPER)
                    && (lastOfBatch || !name.equals(REAPER) || threads[k].getState() == Thread.State.RUNNABLE)) {
                found = true;
            }
            threads[k] = null;
        }
        return found;
    }

    /**
     * SIGKILLs every descendant of the worker, the deepest first (a process killed before its
     * children would leave them to init, out of reach), and looks again while it finds new ones.
     * Returns how many it killed. The JDK checks each process's start time before it signals, so
     * a pid reused in between is not hit.
     */
    static int killDescendants() {
        // A killed child stays a descendant, as a zombie, until the JDK's reaper has waited for it.
        Set<Long> killed = new HashSet<>();
        List<CompletableFuture<ProcessHandle>> exits = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            List<ProcessHandle> found = descendants();
            boolean any = false;
            if (found.isEmpty()) {
                any = killChildrenByPid(killed);
            }
            // descendants() lists children first, then grandchildren, and so on.
            for (int k = found.size() - 1; k >= 0; k--) {
                ProcessHandle p = found.get(k);
                if (!killed.contains(p.pid()) && p.destroyForcibly()) {
                    killed.add(p.pid());
                    exits.add(p.onExit());
                    any = true;
                }
            }
            if (!any) {
                break;
            }
        }
        // The next test starts once they are gone (reaped), so that nothing it looks at, such as
        // the processes it can see, depends on how fast the kernel and the JDK's reaper were.
        // A bound, because a process in uninterruptible sleep dies only when it wakes.
        if (!exits.isEmpty()) {
            try {
                CompletableFuture.allOf(exits.toArray(new CompletableFuture<?>[0])).get(EXIT_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // Gone or going: the process group kill at the worker's end takes what is left.
            }
        }
        return killed.size();
    }

    private static List<ProcessHandle> descendants() {
        try {
            return ProcessHandle.current().descendants().collect(Collectors.toList());
        } catch (RuntimeException e) {
            // "Unable to open /proc" where the sandbox does not let the worker list it.
            return new ArrayList<>();
        }
    }

    /** The worker's children as its own /proc entries list them (Linux). */
    static List<Long> childrenFromProc() {
        List<Long> pids = new ArrayList<>();
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return pids;
        }
        for (java.io.File task : tasks) {
            try {
                String text = new String(java.nio.file.Files.readAllBytes(new java.io.File(task, "children").toPath()),
                        java.nio.charset.StandardCharsets.US_ASCII).trim();
                for (String pid : text.split("\\s+")) {
                    if (!pid.isEmpty()) {
                        pids.add(Long.parseLong(pid));
                    }
                }
            } catch (java.io.IOException | NumberFormatException e) {
                // A thread that ended meanwhile, or a kernel without the file.
            }
        }
        return pids;
    }

    /**
     * SIGKILLs the children {@link #childrenFromProc} lists that were not killed yet, with the
     * system's {@code kill} (no {@link ProcessHandle} can be had for a process whose /proc
     * entry the worker cannot read). Whether it killed any.
     */
    private static boolean killChildrenByPid(Set<Long> killed) {
        List<String> command = new ArrayList<>();
        command.add("kill");
        command.add("-KILL");
        for (long pid : childrenFromProc()) {
            if (killed.add(pid)) {
                command.add(Long.toString(pid));
            }
        }
        if (command.size() == 2) {
            return false;
        }
        try {
            Process kill = new ProcessBuilder(command)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            kill.waitFor(EXIT_WAIT_MS, TimeUnit.MILLISECONDS);
            // As with descendants(): the next test starts once the killed children are reaped
            // (the JDK's reaper waits for the processes Java started).
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXIT_WAIT_MS);
            while (System.nanoTime() < deadline && !java.util.Collections.disjoint(childrenFromProc(), killed)) {
                Thread.sleep(2);
            }
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }
}
