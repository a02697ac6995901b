package com.example.bank;

/** Parses amounts written like "12.50", "-3" or "7 EUR" into cents. */
public final class AmountParser {
    private AmountParser() {}

    public static long parseCents(String text) {
        String trimmed = text.trim();
        if (trimmed.endsWith(" EUR")) {
            trimmed = trimmed.substring(0, trimmed.length() - 4);
        }
        boolean negative = trimmed.startsWith("-");
        if (negative) {
            trimmed = trimmed.substring(1);
        }
        int dot = trimmed.indexOf('.');
        long cents;
        if (dot < 0) {
            cents = Long.parseLong(trimmed) * 100;
        } else {
            String fraction = trimmed.substring(dot + 1);
            if (fraction.length() > 2) {
                throw new IllegalArgumentException("more than two decimals: " + text);
            }
            while (fraction.length() < 2) {
                fraction = fraction + "0";
            }
            cents = Long.parseLong(trimmed.substring(0, dot)) * 100 + Long.parseLong(fraction);
        }
        return negative ? -cents : cents;
    }

    public static String format(long cents) {
        String sign = cents < 0 ? "-" : "";
        long abs = Math.abs(cents);
        long units = abs / 100;
        long rest = abs % 100;
        return sign + units + "." + (rest < 10 ? "0" + rest : String.valueOf(rest));
    }
}
