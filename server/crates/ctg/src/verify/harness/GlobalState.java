package ctgls.verify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;

/**
 * The JVM-wide defaults a test can change for the tests after it: the default time zone, the
 * default locale (each category) and the system properties. The runners take a snapshot
 * before each test and compare after it; what a test changed is reported ({@code STATE} event)
 * and put back, so ctgls drops the test (it would change the defaults of the user's own tests
 * that run after it) and the tests after it in the run still see the defaults. JDK only.
 * Part of ctgls's verification harness; never part of an emitted test.
 */
final class GlobalState {
    private final TimeZone zone;
    private final Locale locale;
    private final Locale format;
    private final Locale display;
    private final Map<String, String> properties;

    private GlobalState() {
        zone = TimeZone.getDefault();
        locale = Locale.getDefault();
        format = Locale.getDefault(Locale.Category.FORMAT);
        display = Locale.getDefault(Locale.Category.DISPLAY);
        properties = properties();
    }

    static GlobalState capture() {
        return new GlobalState();
    }

    private static Map<String, String> properties() {
        Map<String, String> copy = new HashMap<>();
        Properties now = System.getProperties();
        for (String name : now.stringPropertyNames()) {
            copy.put(name, now.getProperty(name));
        }
        return copy;
    }

    /**
     * What differs from this snapshot now, one item per change ("" when nothing did), after
     * putting it back as it was.
     */
    String restore() {
        List<String> changed = new ArrayList<>();
        TimeZone zoneNow = TimeZone.getDefault();
        if (!zoneNow.getID().equals(zone.getID())) {
            changed.add("the default time zone (" + zone.getID() + " to " + zoneNow.getID() + ")");
            TimeZone.setDefault(zone);
        }
        Locale localeNow = Locale.getDefault();
        if (!localeNow.equals(locale)) {
            changed.add("the default locale (" + locale + " to " + localeNow + ")");
        }
        if (!localeNow.equals(locale)
                || !Locale.getDefault(Locale.Category.FORMAT).equals(format)
                || !Locale.getDefault(Locale.Category.DISPLAY).equals(display)) {
            if (localeNow.equals(locale)) {
                changed.add("a default locale category");
            }
            Locale.setDefault(locale);
            Locale.setDefault(Locale.Category.FORMAT, format);
            Locale.setDefault(Locale.Category.DISPLAY, display);
        }
        Map<String, String> now = properties();
        for (Map.Entry<String, String> entry : now.entrySet()) {
            String before = properties.get(entry.getKey());
            if (before == null) {
                changed.add("the system property " + entry.getKey() + " (set)");
                System.clearProperty(entry.getKey());
            } else if (!before.equals(entry.getValue())) {
                changed.add("the system property " + entry.getKey() + " (changed)");
                System.setProperty(entry.getKey(), before);
            }
        }
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            if (!now.containsKey(entry.getKey())) {
                changed.add("the system property " + entry.getKey() + " (removed)");
                System.setProperty(entry.getKey(), entry.getValue());
            }
        }
        return String.join("; ", changed);
    }
}
