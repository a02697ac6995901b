package moody;

import java.io.File;
import java.time.LocalDate;
import java.util.TimeZone;

/**
 * A class whose naive tests fail on another machine, another day or after other tests: it
 * reads the clock, the default time zone, locale and charset and the working directory, and
 * changes the JVM's defaults (ctgls's perturbed re-execution, docs/emission.md).
 */
public class Moody {
    private final String name;

    public Moody(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    public int twice(int x) {
        return x > 1000 ? -1 : x * 2;
    }

    public int dayOfMonth() {
        return LocalDate.now().getDayOfMonth();
    }

    public boolean isWeekend() {
        int day = LocalDate.now().getDayOfWeek().getValue();
        return day >= 6;
    }

    public String price(double amount) {
        return String.format("%.2f", amount);
    }

    public String zone() {
        return TimeZone.getDefault().getID();
    }

    public int byteLength() {
        return ("caf\u00e9 " + name).getBytes().length;
    }

    public String where() {
        return new File(".").getAbsolutePath();
    }

    public String useZone(String id) {
        TimeZone.setDefault(TimeZone.getTimeZone(id == null ? "Asia/Tokyo" : id));
        return "zone set";
    }

    public String remember(String value) {
        System.setProperty("moody.remembered", String.valueOf(value));
        return "remembered";
    }
}
