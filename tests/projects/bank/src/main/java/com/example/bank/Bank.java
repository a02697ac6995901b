package com.example.bank;

import java.util.ArrayList;
import java.util.List;

/** A set of accounts and transfers between them. */
public class Bank {
    private final List<Account> accounts = new ArrayList<>();

    public Account open(String owner, long overdraftLimit) {
        for (Account account : accounts) {
            if (account.getOwner().equals(owner)) {
                throw new IllegalStateException("account exists: " + owner);
            }
        }
        Account account = new Account(owner, overdraftLimit);
        accounts.add(account);
        return account;
    }

    public Account find(String owner) {
        for (Account account : accounts) {
            if (account.getOwner().equals(owner)) {
                return account;
            }
        }
        return null;
    }

    public boolean transfer(String from, String to, long amount) {
        Account source = find(from);
        Account target = find(to);
        if (source == null || target == null || source == target) {
            return false;
        }
        if (!source.withdraw(amount)) {
            return false;
        }
        target.deposit(amount);
        return true;
    }

    public int size() {
        return accounts.size();
    }

    public long totalBalance() {
        long total = 0;
        for (Account account : accounts) {
            total += account.getBalance();
        }
        return total;
    }
}
