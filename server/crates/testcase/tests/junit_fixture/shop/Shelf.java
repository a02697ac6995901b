package shop;

import java.util.Collection;
import java.util.List;

/**
 * Overloads a bare {@code null} cannot choose between, like commons-collections4's
 * {@code FixedOrderComparator(T...)} and {@code FixedOrderComparator(List<T>)}.
 */
public class Shelf<T> {
    private final String made;

    public Shelf() {
        made = "empty";
    }

    @SafeVarargs
    public Shelf(T... items) {
        made = items == null ? "array null" : "array of " + items.length;
    }

    public Shelf(List<T> items) {
        made = items == null ? "list null" : "list of " + items.size();
    }

    public String getMade() {
        return made;
    }

    public String put(T item) {
        return "item " + item;
    }

    public String put(List<T> items) {
        return "list " + items;
    }

    public String putAll(T[] items) {
        return items == null ? "array null" : "array";
    }

    public String putAll(Collection<? extends T> items) {
        return items == null ? "collection null" : "collection";
    }

    public static <E> String count(E[] items) {
        return items == null ? "array null" : "array of " + items.length;
    }

    public static <E> String count(Collection<E> items) {
        return items == null ? "collection null" : "collection of " + items.size();
    }

    @SafeVarargs
    public static <E> Shelf<E> of(E... items) {
        return new Shelf<>(items);
    }

    public static <E> Shelf<E> of(List<E> items) {
        return new Shelf<>(items);
    }
}
