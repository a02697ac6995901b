package com.example.bank;

/** A bank account with an overdraft limit and simple interest. */
public class Account {
    private final String owner;
    private long balance;
    private final long overdraftLimit;

    public Account(String owner, long overdraftLimit) {
        if (owner == null || owner.isEmpty()) {
            throw new IllegalArgumentException("owner must not be empty");
        }
        if (overdraftLimit < 0) {
            throw new IllegalArgumentException("overdraft limit must not be negative");
        }
        this.owner = owner;
        this.overdraftLimit = overdraftLimit;
    }

    public String getOwner() {
        return owner;
    }

    public long getBalance() {
        return balance;
    }

    public void deposit(long amount) {
        if (amount <= 0) {
            throw new IllegalArgumentException("deposit must be positive");
        }
        balance += amount;
    }

    /** Withdraws {@code amount}; returns false when the overdraft limit would be exceeded. */
    public boolean withdraw(long amount) {
        if (amount <= 0) {
            return false;
        }
        if (balance - amount < -overdraftLimit) {
            return false;
        }
        balance -= amount;
        return true;
    }

    /**
     * Interest for one period, paid in whole units. The rate is "one unit per {@code ratePerUnit}
     * of balance"; a rate of zero divides by zero, which this method does not declare.
     */
    public long interest(int ratePerUnit) {
        if (balance <= 0) {
            return 0;
        }
        return balance / ratePerUnit;
    }

    public boolean isOverdrawn() {
        return balance < 0;
    }
}
