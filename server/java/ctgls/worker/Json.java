package ctgls.worker;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Minimal JSON reader and writer for the worker protocol (JDK only, no dependency).
 *
 * <p>Values map to: object -> LinkedHashMap, array -> ArrayList, string -> String, integral
 * number that fits a long -> Long, other number -> Double, true/false -> Boolean, null -> null.
 */
final class Json {
    /**
     * The message being parsed, as the UTF-8 bytes it arrived in: the parser is on the worker's
     * hot path, and decoding every request into a String first cost more than parsing it.
     */
    private final byte[] s;
    private int i;
    private final int end;

    private Json(byte[] bytes, int from, int to) {
        this.s = bytes;
        this.i = from;
        this.end = to;
    }

    /** Parses the UTF-8 JSON text in {@code bytes[from, to)}. */
    static Object parse(byte[] bytes, int from, int to) {
        Json p = new Json(bytes, from, to);
        p.ws();
        Object v = p.value(0);
        p.ws();
        if (p.i != p.end) {
            throw p.error("trailing characters");
        }
        return v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("invalid JSON at offset " + i + ": " + what);
    }

    private void ws() {
        while (i < end) {
            byte c = s[i];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                i++;
            } else {
                break;
            }
        }
    }

    private Object value(int depth) {
        if (depth > 512) {
            throw error("nesting too deep");
        }
        if (i >= end) {
            throw error("unexpected end");
        }
        byte c = s[i];
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                literal("true");
                return Boolean.TRUE;
            case 'f':
                literal("false");
                return Boolean.FALSE;
            case 'n':
                literal("null");
                return null;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error("unexpected character '" + (char) (c & 0xff) + "'");
        }
    }

    private void literal(String word) {
        int n = word.length();
        if (i + n > end) {
            throw error("expected " + word);
        }
        for (int k = 0; k < n; k++) {
            if (s[i + k] != word.charAt(k)) {
                throw error("expected " + word);
            }
        }
        i += n;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        ws();
        if (i < end && s[i] == '}') {
            i++;
            return m;
        }
        while (true) {
            ws();
            if (i >= end || s[i] != '"') {
                throw error("expected a key");
            }
            String k = string();
            ws();
            if (i >= end || s[i] != ':') {
                throw error("expected ':'");
            }
            i++;
            ws();
            m.put(k, value(depth + 1));
            ws();
            if (i >= end) {
                throw error("unexpected end in object");
            }
            byte c = s[i++];
            if (c == '}') {
                return m;
            }
            if (c != ',') {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array(int depth) {
        List<Object> a = new ArrayList<>();
        i++;
        ws();
        if (i < end && s[i] == ']') {
            i++;
            return a;
        }
        while (true) {
            ws();
            a.add(value(depth + 1));
            ws();
            if (i >= end) {
                throw error("unexpected end in array");
            }
            byte c = s[i++];
            if (c == ']') {
                return a;
            }
            if (c != ',') {
                throw error("expected ',' or ']'");
            }
        }
    }

    /** Short ASCII strings seen before (keys, type and member names), by hash: one instance each. */
    private static final String[] SEEN = new String[4096];

    private String string() {
        i++;
        // Most strings are ASCII without escapes: no decoder, and short ones are shared.
        int hash = 0;
        for (int k = i; k < end; k++) {
            byte c = s[k];
            if (c == '"') {
                String out = k - i <= 64 ? shared(i, k, hash) : new String(s, i, k - i, StandardCharsets.ISO_8859_1);
                i = k + 1;
                return out;
            }
            if (c == '\\' || c < 0) {
                break;
            }
            hash = 31 * hash + c;
        }
        // Escapes or non-ASCII: decode runs of raw bytes as UTF-8 between the escapes.
        StringBuilder b = new StringBuilder();
        int run = i;
        while (true) {
            if (i >= end) {
                throw error("unterminated string");
            }
            byte c = s[i];
            if (c == '"') {
                b.append(new String(s, run, i - run, StandardCharsets.UTF_8));
                i++;
                return b.toString();
            }
            if (c != '\\') {
                i++;
                continue;
            }
            b.append(new String(s, run, i - run, StandardCharsets.UTF_8));
            i++;
            if (i >= end) {
                throw error("unterminated escape");
            }
            byte e = s[i++];
            switch (e) {
                case '"': b.append('"'); break;
                case '\\': b.append('\\'); break;
                case '/': b.append('/'); break;
                case 'b': b.append('\b'); break;
                case 'f': b.append('\f'); break;
                case 'n': b.append('\n'); break;
                case 'r': b.append('\r'); break;
                case 't': b.append('\t'); break;
                case 'u':
                    if (i + 4 > end) {
                        throw error("short unicode escape");
                    }
                    try {
                        b.append((char) Integer.parseInt(new String(s, i, 4, StandardCharsets.ISO_8859_1), 16));
                    } catch (NumberFormatException ex) {
                        throw error("bad unicode escape");
                    }
                    i += 4;
                    break;
                default:
                    throw error("bad escape");
            }
            run = i;
        }
    }

    /** The ASCII string {@code s[from, to)}, from {@link #SEEN} when it was seen before. */
    private String shared(int from, int to, int hash) {
        int slot = (hash ^ (hash >>> 12)) & (SEEN.length - 1);
        String known = SEEN[slot];
        int n = to - from;
        if (known != null && known.length() == n) {
            int k = 0;
            while (k < n && known.charAt(k) == s[from + k]) {
                k++;
            }
            if (k == n) {
                return known;
            }
        }
        String out = new String(s, from, n, StandardCharsets.ISO_8859_1);
        SEEN[slot] = out;
        return out;
    }

    private Object number() {
        int start = i;
        // Small integers (indexes, ints) are parsed in place.
        boolean negative = s[i] == '-';
        int k = negative ? i + 1 : i;
        long n = 0;
        int digits = 0;
        while (k < end && s[k] >= '0' && s[k] <= '9' && digits < 18) {
            n = n * 10 + (s[k] - '0');
            k++;
            digits++;
        }
        if (digits > 0 && (k == end || ".eE+-0123456789".indexOf(s[k]) < 0)) {
            i = k;
            return negative ? -n : n;
        }
        if (s[i] == '-') {
            i++;
        }
        boolean integral = true;
        while (i < end) {
            byte c = s[i];
            if (c >= '0' && c <= '9') {
                i++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                i++;
            } else {
                break;
            }
        }
        String t = new String(s, start, i - start, StandardCharsets.ISO_8859_1);
        try {
            if (integral) {
                try {
                    return Long.parseLong(t);
                } catch (NumberFormatException tooBig) {
                    return Double.parseDouble(t);
                }
            }
            return Double.parseDouble(t);
        } catch (NumberFormatException ex) {
            throw error("bad number " + t);
        }
    }

    // ---- writing ----

    /**
     * A reusable buffer that messages are written into as bytes. Every non-ASCII character is
     * escaped, so each char is one byte and no encoder runs on the hot path.
     */
    static final class Out {
        private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] buf = new byte[16 * 1024];
        int size;

        void reset() {
            size = 0;
            if (buf.length > 1 << 20) {
                buf = new byte[16 * 1024];
            }
        }

        private void room(int n) {
            if (size + n > buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
            }
        }

        void put(char c) {
            room(1);
            buf[size++] = (byte) c;
        }

        /** An ASCII-only string (numbers, literals). */
        void put(String ascii) {
            int n = ascii.length();
            room(n);
            for (int k = 0; k < n; k++) {
                buf[size++] = (byte) ascii.charAt(k);
            }
        }

        void put(long v) {
            if (v == Long.MIN_VALUE) {
                put(Long.toString(v));
                return;
            }
            room(20);
            if (v < 0) {
                buf[size++] = '-';
                v = -v;
            }
            int start = size;
            do {
                buf[size++] = (byte) ('0' + v % 10);
                v /= 10;
            } while (v != 0);
            for (int a = start, b = size - 1; a < b; a++, b--) {
                byte t = buf[a];
                buf[a] = buf[b];
                buf[b] = t;
            }
        }

        void unicodeEscape(char c) {
            room(6);
            buf[size++] = '\\';
            buf[size++] = 'u';
            buf[size++] = HEX[(c >> 12) & 0xf];
            buf[size++] = HEX[(c >> 8) & 0xf];
            buf[size++] = HEX[(c >> 4) & 0xf];
            buf[size++] = HEX[c & 0xf];
        }

        @Override
        public String toString() {
            return new String(buf, 0, size, java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    static String write(Object v) {
        Out b = new Out();
        write(b, v);
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    static void write(Out b, Object v) {
        if (v == null) {
            b.put("null");
        } else if (v instanceof String) {
            quote(b, (String) v);
        } else if (v instanceof Boolean) {
            b.put(((Boolean) v).booleanValue() ? "true" : "false");
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            b.put(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                // JSON has no NaN/Infinity: the protocol spells them as strings.
                quote(b, Double.toString(d));
            } else {
                b.put(Double.toString(d));
            }
        } else if (v instanceof Number) {
            b.put(((Number) v).longValue());
        } else if (v instanceof Map) {
            b.put('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                if (!first) {
                    b.put(',');
                }
                first = false;
                quote(b, e.getKey());
                b.put(':');
                write(b, e.getValue());
            }
            b.put('}');
        } else if (v instanceof List) {
            b.put('[');
            List<Object> list = (List<Object>) v;
            for (int k = 0, n = list.size(); k < n; k++) {
                if (k > 0) {
                    b.put(',');
                }
                write(b, list.get(k));
            }
            b.put(']');
        } else if (v instanceof int[]) {
            b.put('[');
            int[] a = (int[]) v;
            for (int k = 0; k < a.length; k++) {
                if (k > 0) {
                    b.put(',');
                }
                b.put(a[k]);
            }
            b.put(']');
        } else {
            quote(b, String.valueOf(v));
        }
    }

    /**
     * The wire form of a Java string that must arrive exactly (an observed value, an exception
     * message): the string itself when it is well-formed UTF-16, else the array of its code units.
     * {@link #quote} would replace its lone surrogates, and JSON readers refuse them as escapes.
     */
    static Object exactText(String s) {
        int n = s.length();
        for (int k = 0; k < n; k++) {
            char c = s.charAt(k);
            if (!Character.isSurrogate(c)) {
                continue;
            }
            if (Character.isHighSurrogate(c) && k + 1 < n && Character.isLowSurrogate(s.charAt(k + 1))) {
                k++;
                continue;
            }
            int[] units = new int[n];
            for (int u = 0; u < n; u++) {
                units[u] = s.charAt(u);
            }
            return units;
        }
        return s;
    }

    /**
     * Writes {@code s} as a JSON string. A lone surrogate is written as U+FFFD: JSON readers
     * (serde_json among them) refuse one, so a message carrying one would be lost whole. Text
     * that must arrive exactly goes through {@link #exactText} first.
     */
    static void quote(Out b, String s) {
        int n = s.length();
        b.room(n + 2);
        b.buf[b.size++] = '"';
        for (int k = 0; k < n; k++) {
            char c = s.charAt(k);
            if (c >= 0x20 && c <= 0x7e && c != '"' && c != '\\') {
                b.room(1);
                b.buf[b.size++] = (byte) c;
                continue;
            }
            switch (c) {
                case '"': b.put('\\'); b.put('"'); break;
                case '\\': b.put('\\'); b.put('\\'); break;
                case '\n': b.put('\\'); b.put('n'); break;
                case '\r': b.put('\\'); b.put('r'); break;
                case '\t': b.put('\\'); b.put('t'); break;
                default:
                    // Escaping every non-ASCII char keeps the wire 7-bit.
                    if (!Character.isSurrogate(c)) {
                        b.unicodeEscape(c);
                    } else if (Character.isHighSurrogate(c) && k + 1 < n && Character.isLowSurrogate(s.charAt(k + 1))) {
                        b.unicodeEscape(c);
                        b.unicodeEscape(s.charAt(++k));
                    } else {
                        b.unicodeEscape('\ufffd');
                    }
            }
        }
        b.put('"');
    }

    // ---- typed access helpers for requests ----

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object o, String what) {
        if (!(o instanceof Map)) {
            throw new IllegalArgumentException(what + ": expected an object");
        }
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> arr(Object o, String what) {
        if (o == null) {
            return new ArrayList<>();
        }
        if (!(o instanceof List)) {
            throw new IllegalArgumentException(what + ": expected an array");
        }
        return (List<Object>) o;
    }

    static String str(Map<String, Object> m, String key) {
        Object o = m.get(key);
        if (!(o instanceof String)) {
            throw new IllegalArgumentException("'" + key + "': expected a string");
        }
        return (String) o;
    }

    static String optStr(Map<String, Object> m, String key) {
        Object o = m.get(key);
        return o instanceof String ? (String) o : null;
    }

    static long num(Map<String, Object> m, String key, long dflt) {
        Object o = m.get(key);
        return o instanceof Number ? ((Number) o).longValue() : dflt;
    }

    static boolean bool(Map<String, Object> m, String key, boolean dflt) {
        Object o = m.get(key);
        return o instanceof Boolean ? (Boolean) o : dflt;
    }
}
