package ledger;

import java.util.ArrayList;
import java.util.List;

public class Ledger {
    static final int LIMIT = 100 + 5;
    private long balance;
    private final List<String> log = new ArrayList<>();

    public boolean withdraw(long amount) {
        if (amount <= 0 || amount > balance) {
            return false;
        }
        balance = balance - amount;
        record("withdraw");
        return true;
    }

    public int fee(int months) {
        int base = months * 3 + 2;
        if (base >= LIMIT) {
            return LIMIT;
        }
        return base;
    }

    public String owner(String name) {
        if (name == null) {
            return null;
        }
        return name.trim();
    }

    public List<String> log() {
        return log;
    }

    private void record(String what) {
        log.add(what);
    }

    public int sumTo(int n) {
        int s = 0;
        for (int i = 0; i < n; i = i + 1) {
            s = s + i;
        }
        return s;
    }

    public byte flag() {
        return 1;
    }
}
