package shop;

/** A generic holder: printed with its type arguments. */
public class Box<T> {
    private final T value;

    public Box(T value) {
        this.value = value;
    }

    public T get() {
        return value;
    }

    public boolean isFull() {
        return value != null;
    }
}
