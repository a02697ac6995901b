package shop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The subject of the JUnit printer's snapshot tests (ctg compiles and runs the snapshots). */
public class Inventory {
    /** Nested enum: printed as {@code Inventory.Category}. */
    public enum Category {
        FOOD,
        DARK_TOOLS
    }

    private final String name;
    private final Map<String, Integer> stock = new TreeMap<>();
    private Category category = Category.FOOD;

    public Inventory() {
        this.name = "main";
    }

    public Inventory(String name) throws IOException {
        if (name.isEmpty()) {
            throw new IOException("no name");
        }
        this.name = name;
    }

    public String getName() {
        return name;
    }

    public int add(String item, int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive: " + count);
        }
        int total = stock.getOrDefault(item, 0) + count;
        stock.put(item, total);
        return total;
    }

    public int count(String item) {
        return stock.getOrDefault(item, 0);
    }

    public List<String> items() {
        return new ArrayList<>(stock.keySet());
    }

    public int size() {
        return stock.size();
    }

    public boolean isEmpty() {
        return stock.isEmpty();
    }

    public Category getCategory() {
        return category;
    }

    public void setCategory(Category category) {
        this.category = category;
    }

    public int divide(int parts) {
        return size() / parts;
    }

    public String label(char mark, String text) {
        return mark + text;
    }

    public static double ratio(double a, double b) {
        return a / b;
    }

    public static float half(float value) {
        return value / 2;
    }

    public static long total(long[] values) {
        long sum = 0;
        for (long v : values) {
            sum += v;
        }
        return sum;
    }

    public static byte clamp(byte value, short limit) {
        return value > limit ? (byte) limit : value;
    }

    public static String describe(Object value) {
        return "object " + value;
    }

    public static String describe(String value) {
        return "string " + value;
    }

    /** The first UTF-16 code unit of {@code text}: half a surrogate pair when it starts with one. */
    public static char first(String text) {
        return text.charAt(0);
    }

    /** {@code text} without its last code unit, which may cut a surrogate pair in half. */
    public static String cut(String text) {
        return text.substring(0, text.length() - 1);
    }

    public static int refuse(String text) {
        throw new IllegalArgumentException("refused " + text);
    }

    public int[] counts() {
        int[] out = new int[stock.size()];
        int i = 0;
        for (int c : stock.values()) {
            out[i++] = c;
        }
        return out;
    }

    public Box<String> boxedName() {
        return new Box<>(name);
    }
}
