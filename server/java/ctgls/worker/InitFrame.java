package ctgls.worker;

import java.util.ArrayList;
import java.util.Arrays;

/** Locals and operand stack at one instruction. */
final class InitFrame {
    InitValue[] locals;
    final ArrayList<InitValue> stack;

    InitFrame(InitValue[] locals, ArrayList<InitValue> stack) {
        this.locals = locals;
        this.stack = stack;
    }

    InitFrame copy() {
        return new InitFrame(locals.clone(), new ArrayList<>(stack));
    }

    InitValue local(int n) {
        return n < locals.length ? locals[n] : InitValue.UNKNOWN;
    }

    void store(int n, InitValue v) {
        if (n >= locals.length) {
            int old = locals.length;
            locals = Arrays.copyOf(locals, n + 2);
            Arrays.fill(locals, old, locals.length, InitValue.UNKNOWN);
        }
        locals[n] = v;
    }

    void push(InitValue v) {
        stack.add(v);
        if (v.kind == InitValue.WIDE) {
            stack.add(InitValue.H);
        }
    }

    InitValue pop() {
        return stack.remove(stack.size() - 1);
    }

    void pop(int slots) {
        for (int k = 0; k < slots; k++) {
            pop();
        }
    }

    /** The joined frame, or null when {@code other} adds nothing. */
    InitFrame joined(InitFrame other) throws StaticState.Reject {
        if (other.stack.size() != stack.size()) {
            throw new StaticState.Reject("its initialisation has inconsistent stack heights");
        }
        boolean changed = false;
        int n = Math.max(locals.length, other.locals.length);
        InitValue[] l = new InitValue[n];
        for (int k = 0; k < n; k++) {
            l[k] = InitValue.join(local(k), other.local(k));
            changed |= !l[k].equals(local(k));
        }
        ArrayList<InitValue> s = new ArrayList<>(stack.size());
        for (int k = 0; k < stack.size(); k++) {
            InitValue v = InitValue.join(stack.get(k), other.stack.get(k));
            changed |= !v.equals(stack.get(k));
            s.add(v);
        }
        return changed ? new InitFrame(l, s) : null;
    }
}
