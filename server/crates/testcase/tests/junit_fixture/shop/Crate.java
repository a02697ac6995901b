package shop;

/** A subclass whose own type variable is the shelf's. */
public class Crate<X> extends Shelf<X> {
    public Crate() {
    }
}
