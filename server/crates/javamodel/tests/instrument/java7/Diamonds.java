package java7;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Diamonds where Java 7 infers from the target type only: assignments, returns, fields. */
public class Diamonds {
    private final Map<String, List<Integer>> index = new HashMap<>();

    public Set<String> keys(int n) {
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < n; i++) {
            keys.add("k" + i);
        }
        return keys;
    }

    public List<Integer> values(String key) {
        if (!index.containsKey(key)) {
            return new ArrayList<>();
        }
        return index.get(key);
    }

    public Object plain() {
        return new Object();
    }
}
