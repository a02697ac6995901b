package ctgls.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * JDK-wide state that tests commonly change: system properties, default locale and time zone,
 * the standard streams (replaced or closed) and the default uncaught-exception handler. Saved once
 * per batch and put back after every test, so each test starts from the state the batch started
 * with.
 *
 * <p>Copying the system properties after every test cost more than a short test, so they are
 * replaced by {@link GuardedProperties}, which notice every change, and copied back only after a
 * test changed them (or installed other properties).
 */
final class JdkState {
    private final Properties properties;
    private GuardedProperties live;
    private final Locale locale;
    private final TimeZone zone;
    private PrintStream out;
    private PrintStream err;
    private final InputStream in;
    private final Thread.UncaughtExceptionHandler handler;

    private JdkState() {
        Properties now = System.getProperties();
        properties = new Properties();
        // Properties.putAll copies without calling put, so a GuardedProperties stays untouched here.
        for (Map.Entry<Object, Object> e : entries(now)) {
            properties.put(e.getKey(), e.getValue());
        }
        locale = Locale.getDefault();
        zone = TimeZone.getDefault();
        out = System.out;
        err = System.err;
        in = System.in;
        handler = Thread.getDefaultUncaughtExceptionHandler();
        if (now instanceof GuardedProperties && !((GuardedProperties) now).touched) {
            live = (GuardedProperties) now;
        } else {
            live = new GuardedProperties(properties);
            System.setProperties(live);
        }
    }

    private static Set<Map.Entry<Object, Object>> entries(Properties p) {
        if (p instanceof GuardedProperties) {
            return ((GuardedProperties) p).entriesUntouched();
        }
        return p.entrySet();
    }

    static JdkState save() {
        return new JdkState();
    }

    void restore() {
        if (System.getProperties() != live || live.touched) {
            live = new GuardedProperties(properties);
            System.setProperties(live);
        }
        Locale.setDefault(locale);
        TimeZone.setDefault((TimeZone) zone.clone());
        // A test may have closed the capture streams rather than replaced them.
        out = working(out);
        err = working(err);
        if (System.out != out) {
            System.setOut(out);
        }
        if (System.err != err) {
            System.setErr(err);
        }
        if (System.in != in) {
            System.setIn(in);
        }
        if (Thread.getDefaultUncaughtExceptionHandler() != handler) {
            Thread.setDefaultUncaughtExceptionHandler(handler);
        }
    }

    private static PrintStream working(PrintStream s) {
        return s instanceof Capture.Stream ? ((Capture.Stream) s).working() : s;
    }

    /**
     * System properties that remember whether anything may have changed them: every mutator, and
     * every view through which entries can be removed, sets {@link #touched}.
     */
    static final class GuardedProperties extends Properties {
        private static final long serialVersionUID = 1L;
        volatile boolean touched;

        GuardedProperties(Properties from) {
            super();
            super.putAll(from);
        }

        /** The entries, for copying, without counting as a change. */
        Set<Map.Entry<Object, Object>> entriesUntouched() {
            return super.entrySet();
        }

        @Override
        public synchronized Object setProperty(String key, String value) {
            touched = true;
            return super.setProperty(key, value);
        }

        @Override
        public synchronized Object put(Object key, Object value) {
            touched = true;
            return super.put(key, value);
        }

        @Override
        public synchronized void putAll(Map<?, ?> t) {
            touched = true;
            super.putAll(t);
        }

        @Override
        public synchronized Object remove(Object key) {
            touched = true;
            return super.remove(key);
        }

        @Override
        public synchronized boolean remove(Object key, Object value) {
            touched = true;
            return super.remove(key, value);
        }

        @Override
        public synchronized void clear() {
            touched = true;
            super.clear();
        }

        @Override
        public synchronized Object putIfAbsent(Object key, Object value) {
            touched = true;
            return super.putIfAbsent(key, value);
        }

        @Override
        public synchronized boolean replace(Object key, Object oldValue, Object newValue) {
            touched = true;
            return super.replace(key, oldValue, newValue);
        }

        @Override
        public synchronized Object replace(Object key, Object value) {
            touched = true;
            return super.replace(key, value);
        }

        @Override
        public synchronized void replaceAll(BiFunction<? super Object, ? super Object, ?> function) {
            touched = true;
            super.replaceAll(function);
        }

        @Override
        public synchronized Object compute(Object key,
                BiFunction<? super Object, ? super Object, ?> remappingFunction) {
            touched = true;
            return super.compute(key, remappingFunction);
        }

        @Override
        public synchronized Object computeIfAbsent(Object key, Function<? super Object, ?> mappingFunction) {
            touched = true;
            return super.computeIfAbsent(key, mappingFunction);
        }

        @Override
        public synchronized Object computeIfPresent(Object key,
                BiFunction<? super Object, ? super Object, ?> remappingFunction) {
            touched = true;
            return super.computeIfPresent(key, remappingFunction);
        }

        @Override
        public synchronized Object merge(Object key, Object value,
                BiFunction<? super Object, ? super Object, ?> remappingFunction) {
            touched = true;
            return super.merge(key, value, remappingFunction);
        }

        @Override
        public synchronized void load(Reader reader) throws IOException {
            touched = true;
            super.load(reader);
        }

        @Override
        public synchronized void load(InputStream inStream) throws IOException {
            touched = true;
            super.load(inStream);
        }

        @Override
        public synchronized void loadFromXML(InputStream in) throws IOException {
            touched = true;
            super.loadFromXML(in);
        }

        @Override
        public Set<Object> keySet() {
            touched = true;
            return super.keySet();
        }

        @Override
        public Set<Map.Entry<Object, Object>> entrySet() {
            touched = true;
            return super.entrySet();
        }

        @Override
        public Collection<Object> values() {
            touched = true;
            return super.values();
        }
    }
}
