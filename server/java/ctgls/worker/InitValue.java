package ctgls.worker;

/**
 * An abstract value of {@link InitScan} in a local variable or stack slot. A long or double takes two slots, a
 * {@link #WIDE} one and a {@link #HALF}.
 */
final class InitValue {
    /** Nullness of a reference. */
    static final int NULL = 0;
    static final int NONNULL = 1;
    static final int MAYBE = 2;

    static final char PRIM = 'P';
    static final char WIDE = 'W';
    static final char HALF = 'H';
    static final char REF = 'R';
    /** Nothing known: a slot no path has set, or set differently on different paths. */
    static final char TOP = 'T';

    static final InitValue P = new InitValue(PRIM, null, false, MAYBE, false);
    static final InitValue W = new InitValue(WIDE, null, false, MAYBE, false);
    static final InitValue H = new InitValue(HALF, null, false, MAYBE, false);
    static final InitValue UNKNOWN = new InitValue(TOP, null, false, MAYBE, false);
    static final InitValue NULL_REF = new InitValue(REF, null, false, NULL, false);
    static final InitValue ANY_REF = new InitValue(REF, null, false, MAYBE, false);

    final char kind;
    /**
     * A reference's class as a field descriptor ({@code Ljava/lang/String;}, {@code [I}), or null:
     * unknown; an int's value in decimal when it is a known constant, else null.
     */
    final String type;
    /** The value's class is {@link #type} itself, not a subclass. */
    final boolean exact;
    final int nullness;
    /** The initialiser created the object ({@code new}), so nothing outside it has seen it. */
    final boolean fresh;

    InitValue(char kind, String type, boolean exact, int nullness, boolean fresh) {
        this.kind = kind;
        this.type = type;
        this.exact = exact;
        this.nullness = nullness;
        this.fresh = fresh;
    }

    /** The int (or boolean) constant {@code v}. */
    static InitValue constant(int v) {
        return new InitValue(PRIM, Integer.toString(v), false, MAYBE, false);
    }

    /** The value of a known int constant, or null. */
    Integer known() {
        return kind == PRIM && type != null ? Integer.valueOf(type) : null;
    }

    static InitValue ref(String type, boolean exact, int nullness, boolean fresh) {
        return new InitValue(REF, type, exact, nullness, fresh);
    }

    InitValue nonNull() {
        return kind == REF && nullness != NONNULL ? ref(type, exact, NONNULL, fresh) : this;
    }

    /** The least value both may be (the null reference has no class, so joins any). */
    static InitValue join(InitValue a, InitValue b) {
        if (a.equals(b)) {
            return a;
        }
        if (a.kind != b.kind) {
            return UNKNOWN;
        }
        if (a.kind != REF) {
            return a.kind == PRIM ? P : a; // two different constants
        }
        if (a.nullness == NULL) {
            return ref(b.type, b.exact, MAYBE, b.fresh);
        }
        if (b.nullness == NULL) {
            return ref(a.type, a.exact, MAYBE, a.fresh);
        }
        boolean same = a.type != null && a.type.equals(b.type);
        return ref(same ? a.type : null, same && a.exact && b.exact, a.nullness == b.nullness ? a.nullness : MAYBE,
                a.fresh && b.fresh);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof InitValue)) {
            return false;
        }
        InitValue v = (InitValue) o;
        return kind == v.kind && exact == v.exact && nullness == v.nullness && fresh == v.fresh
                && (type == null ? v.type == null : type.equals(v.type));
    }

    @Override
    public int hashCode() {
        return kind + 31 * (type == null ? 0 : type.hashCode()) + (exact ? 7 : 0) + 11 * nullness + (fresh ? 13 : 0);
    }

    @Override
    public String toString() {
        return kind == REF ? (nullness == NULL ? "null" : type + (exact ? "!" : "") + (nullness == NONNULL ? "+" : "?")
                + (fresh ? "*" : "")) : kind + (type == null ? "" : type);
    }
}
