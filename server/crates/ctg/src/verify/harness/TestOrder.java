package ctgls.verify;

import java.util.Comparator;

/**
 * The order of a run's test methods, from the runner's order argument: {@code forward} (by
 * name), {@code reverse}, or {@code shuffle:SEED}, a seeded random order that is the same for
 * both JUnits and every run with that seed. JDK only. Part of ctgls's verification harness;
 * never part of an emitted test.
 */
final class TestOrder {
    /** The seed of the JUnit 5 run in progress, read by {@link ShuffledMethodOrder}. */
    static volatile long seed;

    private TestOrder() {}

    /** Test method names in the order {@code argument} names. */
    static Comparator<String> of(String argument) {
        Comparator<String> byName = Comparator.naturalOrder();
        if ("reverse".equals(argument)) {
            return byName.reversed();
        }
        if (argument.startsWith("shuffle:")) {
            final long s = Long.parseLong(argument.substring("shuffle:".length()));
            return Comparator.comparingLong((String name) -> shuffleKey(s, name)).thenComparing(byName);
        }
        return byName;
    }

    /** A well-mixed hash of the seed and the name (FNV-1a, then MurmurHash3's finaliser). */
    static long shuffleKey(long seed, String name) {
        long h = seed ^ 0xCBF29CE484222325L;
        for (int i = 0; i < name.length(); i++) {
            h = (h ^ name.charAt(i)) * 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
