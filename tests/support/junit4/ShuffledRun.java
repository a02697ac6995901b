import java.util.Random;
import org.junit.internal.TextListener;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.manipulation.Ordering;

/**
 * Runs a JUnit 4 test class with its methods in a seeded random order, printing what JUnitCore
 * prints ("OK (n tests)" or "Tests run: n,  Failures: m" and the failures). JUnitCore has no
 * option for the order; JUnit 4.13's Request.orderWith does it. Used by tests/corpus/run.sh.
 *
 * <p>Usage: java -cp junit4.jar:hamcrest-core.jar:. ShuffledRun SEED CLASS
 */
public final class ShuffledRun {
  private ShuffledRun() {}

  public static void main(String[] args) throws Exception {
    long seed = Long.parseLong(args[0]);
    Class<?> test = Class.forName(args[1]);
    JUnitCore core = new JUnitCore();
    core.addListener(new TextListener(System.out));
    Result result = core.run(Request.aClass(test).orderWith(Ordering.shuffledBy(new Random(seed))));
    System.exit(result.wasSuccessful() ? 0 : 1);
  }
}
