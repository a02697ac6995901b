import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jacoco.agent.AgentJar;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.analysis.ICounter;
import org.jacoco.core.analysis.ILine;
import org.jacoco.core.tools.ExecFileLoader;

/**
 * JaCoCo's counters as plain text, for ctg's tests (ctg::verify::jacoco compiles and runs this
 * against the installed JaCoCo jars).
 *
 * <pre>
 * CoverageReport extract-agent DEST.jar
 *     writes JaCoCo's runtime agent (the jar -javaagent takes) to DEST.jar
 * CoverageReport report EXEC CLASSES
 *     analyses the class files under CLASSES against the execution data EXEC and prints,
 *     per class sorted by name, tab-separated:
 *       class NAME lines COVERED MISSED branches COVERED MISSED methods COVERED MISSED
 *       line NAME NUMBER STATUS BRANCHES_COVERED BRANCHES_MISSED   (lines with code only;
 *                                                 STATUS is NOT_COVERED, PARTLY or FULLY)
 * </pre>
 */
public final class CoverageReport {
    public static void main(String[] args) throws IOException {
        if (args.length == 2 && args[0].equals("extract-agent")) {
            AgentJar.extractTo(new File(args[1]));
            return;
        }
        if (args.length != 3 || !args[0].equals("report")) {
            System.err.println("usage: CoverageReport extract-agent DEST | report EXEC CLASSES");
            System.exit(2);
        }
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(args[1]));
        CoverageBuilder builder = new CoverageBuilder();
        new Analyzer(loader.getExecutionDataStore(), builder).analyzeAll(new File(args[2]));
        List<IClassCoverage> classes = new ArrayList<>(builder.getClasses());
        classes.sort(Comparator.comparing(IClassCoverage::getName));
        StringBuilder out = new StringBuilder();
        for (IClassCoverage c : classes) {
            String name = c.getName().replace('/', '.');
            out.append("class\t").append(name)
                    .append("\tlines\t").append(counter(c.getLineCounter()))
                    .append("\tbranches\t").append(counter(c.getBranchCounter()))
                    .append("\tmethods\t").append(counter(c.getMethodCounter()))
                    .append('\n');
            for (int nr = c.getFirstLine(); nr > 0 && nr <= c.getLastLine(); nr++) {
                ILine line = c.getLine(nr);
                String status = status(line.getStatus());
                if (status != null) {
                    out.append("line\t").append(name).append('\t').append(nr).append('\t')
                            .append(status).append('\t')
                            .append(counter(line.getBranchCounter())).append('\n');
                }
            }
        }
        System.out.print(out);
    }

    private static String counter(ICounter c) {
        return c.getCoveredCount() + "\t" + c.getMissedCount();
    }

    private static String status(int status) {
        switch (status) {
            case ICounter.NOT_COVERED:
                return "NOT_COVERED";
            case ICounter.PARTLY_COVERED:
                return "PARTLY";
            case ICounter.FULLY_COVERED:
                return "FULLY";
            default:
                return null;
        }
    }
}
