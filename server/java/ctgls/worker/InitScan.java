package ctgls.worker;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rules 2 and 3 of the static-state rule ({@link StaticState}): checks the code a class's
 * initialisation runs, following project calls, by abstract interpretation of its bytecode.
 *
 * <p>Each method is interpreted as a data-flow analysis over its instructions (a worklist to a
 * fixpoint; Nielson, Nielson and Hankin, "Principles of Program Analysis", chapter 2), once per
 * distinct list of abstract arguments it is called with, so a call is judged with what its
 * caller passes (the analysis is context-sensitive by full inlining, which the absence of
 * recursion and the code budget keep finite). An abstract {@link InitValue} of a reference says
 * what the JVM guarantees about it: an upper bound of its class (exact when the class is final
 * or the value came from {@code new}), whether it is null, non-null or either, and whether the
 * initialiser itself created it. Two things follow:
 * <ul>
 *   <li>code behind a null test the value decides ({@code if (values == null) return null;} with
 *       {@code values} the constant null) is not reached, so is not judged;</li>
 *   <li>a JDK method that would call {@code toString}, {@code equals} or {@code hashCode} on an
 *       argument ({@code Objects.toString(Object, String)}, {@code StringBuilder.append(Object)},
 *       {@code HashSet.add}) is pure when every such argument is <em>inert</em>: null, a String,
 *       a box, or an array of those ({@link InitJdk}); a virtual or interface call on a value of
 *       exact class is resolved to that class's method;</li>
 *   <li>the probes of instrumented code do not hide what they wrap ({@link #probe}).</li>
 * </ul>
 * Everything else is as the rule says: it is sound to reject what the analysis cannot prove.
 */
final class InitScan {
    private final StaticState rule;
    private final String root;
    private final Set<String> onPath = new HashSet<>();
    /**
     * What each method returns for each list of abstract arguments already checked
     * ({@link #NEVER} if it cannot return, {@link #VOID} if it returns nothing).
     */
    private final Map<String, InitValue> checked = new HashMap<>();
    private int budget = StaticState.MAX_INIT_CODE;
    /** A backward jump or handler was reached: termination is not proved by the scan. */
    boolean loops;

    /** The return value of a method that never returns normally. */
    private static final InitValue NEVER = new InitValue(InitValue.TOP, "never", false, InitValue.MAYBE, false);
    /** What {@link #checked} holds for a void method that may return. */
    private static final InitValue VOID = new InitValue(InitValue.TOP, "void", false, InitValue.MAYBE, false);

    InitScan(StaticState rule, String root) {
        this.rule = rule;
        this.root = root;
    }

    /** Checks the static initialiser {@code clinit} of the root class. */
    void initialiser(ClassFile cf, ClassFile.Member clinit) throws StaticState.Reject {
        method(cf, clinit, new ArrayList<InitValue>());
    }

    /**
     * Checks {@code m} called with {@code args} (one per slot, the receiver first); returns what
     * it may return ({@link #NEVER} if it never returns, null for void).
     */
    private InitValue method(ClassFile owner, ClassFile.Member m, List<InitValue> args) throws StaticState.Reject {
        String key = owner.name + "." + m.name + m.descriptor;
        InitValue known = checked.get(key + args);
        if (known != null) {
            return known == VOID ? null : known;
        }
        if (m.code == null) {
            throw new StaticState.Reject("its initialisation calls " + StaticState.dotted(key) + ", which has no code");
        }
        if (!onPath.add(key)) {
            throw new StaticState.Reject("its initialisation is recursive (" + StaticState.dotted(key) + ")");
        }
        budget -= m.code.length;
        if (budget < 0) {
            throw new StaticState.Reject("its initialisation is too large to check");
        }
        for (int[] h : m.handlers) {
            if (h[2] <= h[0]) {
                loops = true; // an exception handler before its range
            }
        }
        InitValue result = interpret(owner, m, args);
        onPath.remove(key);
        checked.put(key + args, result == null ? VOID : result);
        return result;
    }

    /** The fixpoint over the method's instructions; the join of what it returns. */
    private InitValue interpret(ClassFile cf, ClassFile.Member m, List<InitValue> args) throws StaticState.Reject {
        byte[] c = m.code;
        Map<Integer, InitFrame> in = new HashMap<>();
        ArrayDeque<Integer> work = new ArrayDeque<>();
        InitValue[] locals = args.toArray(new InitValue[0]);
        in.put(0, new InitFrame(locals, new ArrayList<InitValue>()));
        work.add(0);
        InitValue[] result = {NEVER};
        Set<Integer> handlersReached = new HashSet<>();
        while (!work.isEmpty()) {
            int pc = work.poll();
            if (pc < 0 || pc >= c.length) {
                throw new StaticState.Reject("its initialisation jumps out of its code");
            }
            for (int k = 0; k < m.handlers.length; k++) {
                int[] h = m.handlers[k];
                if (h[0] <= pc && pc < h[1] && handlersReached.add(k)) {
                    // Any local may hold anything where the exception is caught.
                    ArrayList<InitValue> stack = new ArrayList<>();
                    String caught = h[3] == 0 ? "java/lang/Throwable" : cf.className(h[3]);
                    stack.add(InitValue.ref("L" + caught + ";", false, InitValue.NONNULL, false));
                    flow(in, work, h[2], new InitFrame(new InitValue[0], stack));
                }
            }
            InitFrame f = in.get(pc).copy();
            int next = step(cf, c, pc, f, in, work, result);
            if (next >= 0) {
                flow(in, work, next, f);
            }
        }
        String returns = m.descriptor.substring(m.descriptor.indexOf(')') + 1);
        return returns.equals("V") && result[0] != NEVER ? null : result[0];
    }

    private static void flow(Map<Integer, InitFrame> in, ArrayDeque<Integer> work, int pc, InitFrame f) throws StaticState.Reject {
        InitFrame old = in.get(pc);
        if (old == null) {
            in.put(pc, f);
        } else {
            InitFrame j = old.joined(f);
            if (j == null) {
                return;
            }
            in.put(pc, j);
        }
        if (!work.contains(pc)) {
            work.add(pc);
        }
    }

    /**
     * Interprets the instruction at {@code pc} on {@code f}: checks it, sends the frames of its
     * jumps to their targets, and returns the next instruction's offset (-1 when control does
     * not fall through).
     */
    private int step(ClassFile cf, byte[] c, int pc, InitFrame f, Map<Integer, InitFrame> in, ArrayDeque<Integer> work,
            InitValue[] result) throws StaticState.Reject {
        int op = c[pc] & 0xff;
        if (op == 0x00) {
            return pc + 1;
        } else if (op == 0x01) {
            f.push(InitValue.NULL_REF);
            return pc + 1;
        } else if (op <= 0x08) {
            f.push(InitValue.constant(op - 0x03));
            return pc + 1;
        } else if (op >= 0x0b && op <= 0x0d) {
            f.push(InitValue.P);
            return pc + 1;
        } else if (op <= 0x0f) {
            f.push(InitValue.W);
            return pc + 1;
        } else if (op == 0x10 || op == 0x11) {
            f.push(InitValue.constant(op == 0x10 ? c[pc + 1] : (short) u2(c, pc + 1)));
            return pc + (op == 0x10 ? 2 : 3);
        } else if (op <= 0x14) {
            int index = op == 0x12 ? c[pc + 1] & 0xff : u2(c, pc + 1);
            f.push(constant(cf, index));
            return pc + (op == 0x12 ? 2 : 3);
        } else if (op <= 0x19) {
            load(f, op - 0x15, c[pc + 1] & 0xff);
            return pc + 2;
        } else if (op <= 0x2d) {
            load(f, (op - 0x1a) / 4, (op - 0x1a) % 4);
            return pc + 1;
        } else if (op <= 0x35) {
            InitValue array = f.stack.get(f.stack.size() - 2);
            f.pop(2);
            if (op == 0x32) {
                f.push(array.type != null && array.type.startsWith("[") ? declared(array.type.substring(1))
                        : InitValue.ANY_REF);
            } else {
                f.push(op == 0x2f || op == 0x31 ? InitValue.W : InitValue.P);
            }
            return pc + 1;
        } else if (op <= 0x3a) {
            store(f, op - 0x36, c[pc + 1] & 0xff);
            return pc + 2;
        } else if (op <= 0x4e) {
            store(f, (op - 0x3b) / 4, (op - 0x3b) % 4);
            return pc + 1;
        } else if (op <= 0x56) {
            f.pop(op == 0x50 || op == 0x52 ? 4 : 3);
            return pc + 1;
        } else if (op <= 0x5f) {
            stackOp(f, op);
            return pc + 1;
        } else if (op <= 0x83) {
            arithmetic(f, op);
            return pc + 1;
        } else if (op == 0x84) {
            return pc + 3;
        } else if (op <= 0x93) {
            convert(f, op);
            return pc + 1;
        } else if (op <= 0x98) {
            f.pop(op == 0x94 || op >= 0x97 ? 4 : 2);
            f.push(InitValue.P);
            return pc + 1;
        } else if (op <= 0xa6 || op == 0xc6 || op == 0xc7) {
            int target = pc + (short) u2(c, pc + 1);
            boolean taken = true;
            boolean fallsThrough = true;
            if (op == 0xc6 || op == 0xc7) {
                // ifnull / ifnonnull: a value the analysis knows decides the branch.
                int n = f.pop().nullness;
                if (n != InitValue.MAYBE) {
                    taken = (n == InitValue.NULL) == (op == 0xc6);
                    fallsThrough = !taken;
                }
            } else if (op <= 0x9e) {
                // if<cond> against zero: a known int (a probe's answer, say) decides it.
                Integer v = f.pop().known();
                if (v != null) {
                    taken = compare(op - 0x99, v, 0);
                    fallsThrough = !taken;
                }
            } else if (op <= 0xa4) {
                Integer b = f.pop().known();
                Integer a = f.pop().known();
                if (a != null && b != null) {
                    taken = compare(op - 0x9f, a, b);
                    fallsThrough = !taken;
                }
            } else {
                f.pop(2);
            }
            if (taken) {
                forward(target - pc);
                flow(in, work, target, f.copy());
            }
            return fallsThrough ? pc + 3 : -1;
        } else if (op == 0xa7 || op == 0xc8) {
            int offset = op == 0xa7 ? (short) u2(c, pc + 1) : u4(c, pc + 1);
            forward(offset);
            flow(in, work, pc + offset, f);
            return -1;
        } else if (op == 0xa8 || op == 0xa9) {
            throw new StaticState.Reject("its initialisation uses a subroutine (opcode 0x" + Integer.toHexString(op) + ")");
        } else if (op == 0xaa || op == 0xab) {
            f.pop();
            int p = (pc + 4) & ~3;
            jump(in, work, f, pc, u4(c, p));
            if (op == 0xaa) {
                int n = u4(c, p + 8) - u4(c, p + 4) + 1;
                for (int k = 0; k < n; k++) {
                    jump(in, work, f, pc, u4(c, p + 12 + 4 * k));
                }
            } else {
                int n = u4(c, p + 4);
                for (int k = 0; k < n; k++) {
                    jump(in, work, f, pc, u4(c, p + 12 + 8 * k));
                }
            }
            return -1;
        } else if (op <= 0xb0) {
            boolean wide = op == 0xad || op == 0xaf;
            InitValue v = wide ? InitValue.W : f.pop();
            if (wide) {
                f.pop(2);
            }
            result[0] = result[0] == NEVER ? v : InitValue.join(result[0], v);
            return -1;
        } else if (op == 0xb1) {
            result[0] = InitValue.UNKNOWN;
            return -1;
        } else if (op == 0xb2 || op == 0xb3) {
            ClassFile.Ref r = cf.ref(u2(c, pc + 1));
            staticField(r, op == 0xb3);
            if (op == 0xb3) {
                f.pop(slots(r.descriptor));
            } else {
                f.push(declared(r.descriptor));
            }
            return pc + 3;
        } else if (op == 0xb4 || op == 0xb5) {
            // Instance fields of objects: only objects this code created or immutable ones.
            ClassFile.Ref r = cf.ref(u2(c, pc + 1));
            if (op == 0xb5) {
                f.pop(slots(r.descriptor));
                f.pop();
            } else {
                f.pop();
                f.push(declared(r.descriptor));
            }
            return pc + 3;
        } else if (op >= 0xb6 && op <= 0xb9) {
            ClassFile.Ref r = cf.ref(u2(c, pc + 1));
            List<InitValue> args = arguments(f, r.descriptor, op != 0xb8);
            InitValue v = invoke(r, op, args);
            if (v == NEVER) {
                return -1;
            }
            if (v != null) {
                f.push(v);
            }
            return pc + (op == 0xb9 ? 5 : 3);
        } else if (op == 0xba) {
            ClassFile.Ref r = cf.invokeDynamic(u2(c, pc + 1));
            List<InitValue> args = arguments(f, r.descriptor, false);
            invokeDynamic(r, args);
            InitValue made = declared(returnType(r.descriptor));
            if (made != null) {
                f.push(made.nonNull());
            }
            return pc + 5;
        } else if (op == 0xbb) {
            String type = cf.className(u2(c, pc + 1));
            create(type);
            f.push(InitValue.ref("L" + type + ";", true, InitValue.NONNULL, true));
            return pc + 3;
        } else if (op == 0xbc) {
            f.pop();
            f.push(InitValue.ref("[" + "ZCFDBSIJ".charAt((c[pc + 1] & 0xff) - 4), true, InitValue.NONNULL, true));
            return pc + 2;
        } else if (op == 0xbd) {
            f.pop();
            String e = cf.className(u2(c, pc + 1));
            f.push(InitValue.ref("[" + (e.startsWith("[") ? e : "L" + e + ";"), true, InitValue.NONNULL, true));
            return pc + 3;
        } else if (op == 0xbe) {
            f.pop();
            f.push(InitValue.P);
            return pc + 1;
        } else if (op == 0xbf) {
            return -1;
        } else if (op == 0xc0) {
            // checkcast: a class does not get initialised; the value keeps what is known of it.
            InitValue v = f.pop();
            String e = cf.className(u2(c, pc + 1));
            String type = e.startsWith("[") ? e : "L" + e + ";";
            f.push(v.nullness == InitValue.NULL || v.exact ? v : InitValue.ref(type, exact(type), v.nullness, v.fresh));
            return pc + 3;
        } else if (op == 0xc1) {
            f.pop();
            f.push(InitValue.P);
            return pc + 3;
        } else if (op == 0xc2 || op == 0xc3) {
            f.pop();
            return pc + 1;
        } else if (op == 0xc4) {
            int inner = c[pc + 1] & 0xff;
            int index = u2(c, pc + 2);
            if (inner == 0x84) {
                return pc + 6;
            } else if (inner >= 0x15 && inner <= 0x19) {
                load(f, inner - 0x15, index);
            } else if (inner >= 0x36 && inner <= 0x3a) {
                store(f, inner - 0x36, index);
            } else {
                throw new StaticState.Reject("its initialisation uses opcode 0xc4 0x" + Integer.toHexString(inner));
            }
            return pc + 4;
        } else if (op == 0xc5) {
            String type = cf.className(u2(c, pc + 1));
            f.pop(c[pc + 3] & 0xff);
            f.push(InitValue.ref(type, true, InitValue.NONNULL, true));
            return pc + 4;
        }
        throw new StaticState.Reject("its initialisation uses opcode 0x" + Integer.toHexString(op)
                + " (subroutine or unknown)");
    }

    /** {@code a op b} for the conditions eq, ne, lt, ge, gt, le in the order of their opcodes. */
    private static boolean compare(int op, int a, int b) {
        switch (op) {
            case 0: return a == b;
            case 1: return a != b;
            case 2: return a < b;
            case 3: return a >= b;
            case 4: return a > b;
            default: return a <= b;
        }
    }

    private void jump(Map<Integer, InitFrame> in, ArrayDeque<Integer> work, InitFrame f, int pc, int offset)
            throws StaticState.Reject {
        forward(offset);
        flow(in, work, pc + offset, f.copy());
    }

    /** A jump by {@code offset} bytes; a backward one makes a loop. */
    private void forward(int offset) {
        if (offset <= 0) {
            loops = true;
        }
    }

    /** A load of local {@code n}; {@code kind} 0 int, 1 long, 2 float, 3 double, 4 reference. */
    private static void load(InitFrame f, int kind, int n) {
        if (kind == 4) {
            InitValue v = f.local(n);
            f.push(v.kind == InitValue.REF ? v : InitValue.ANY_REF);
        } else {
            f.push(kind == 1 || kind == 3 ? InitValue.W : InitValue.P);
        }
    }

    private static void store(InitFrame f, int kind, int n) {
        if (kind == 1 || kind == 3) {
            f.pop(2);
            f.store(n, InitValue.W);
            f.store(n + 1, InitValue.H);
        } else {
            f.store(n, f.pop());
        }
    }

    /** pop, pop2, dup and friends, swap: on slots, which the verifier keeps whole. */
    private static void stackOp(InitFrame f, int op) {
        ArrayList<InitValue> s = f.stack;
        int n = s.size();
        switch (op) {
            case 0x57: f.pop(1); break;
            case 0x58: f.pop(2); break;
            case 0x59: s.add(s.get(n - 1)); break;
            case 0x5a: s.add(n - 2, s.get(n - 1)); break;
            case 0x5b: s.add(n - 3, s.get(n - 1)); break;
            case 0x5c: s.add(s.get(n - 2)); s.add(s.get(n - 1)); break;
            case 0x5d: s.addAll(n - 3, Arrays.asList(s.get(n - 2), s.get(n - 1))); break;
            case 0x5e: s.addAll(n - 4, Arrays.asList(s.get(n - 2), s.get(n - 1))); break;
            default: InitValue top = s.get(n - 1); s.set(n - 1, s.get(n - 2)); s.set(n - 2, top); break;
        }
    }

    private static void arithmetic(InitFrame f, int op) {
        boolean wide;
        int popped;
        if (op <= 0x77) {
            int k = (op - 0x60) % 4;
            wide = k == 1 || k == 3;
            boolean unary = op >= 0x74;
            popped = (unary ? 1 : 2) * (wide ? 2 : 1);
        } else if (op <= 0x7d) {
            wide = (op & 1) == 1; // long shifts take an int distance
            popped = wide ? 3 : 2;
        } else {
            wide = (op & 1) == 1;
            popped = wide ? 4 : 2;
        }
        f.pop(popped);
        f.push(wide ? InitValue.W : InitValue.P);
    }

    private static void convert(InitFrame f, int op) {
        int k = op - 0x85;
        f.pop(k >= 3 && k <= 5 || k >= 9 && k <= 11 ? 2 : 1);
        boolean wide = op == 0x85 || op == 0x87 || op == 0x8a || op == 0x8c || op == 0x8d || op == 0x8f;
        f.push(wide ? InitValue.W : InitValue.P);
    }

    private static int slots(String descriptor) {
        return descriptor.equals("J") || descriptor.equals("D") ? 2 : 1;
    }

    private static String returnType(String descriptor) {
        return descriptor.substring(descriptor.indexOf(')') + 1);
    }

    /** Pops a call's arguments (and receiver): one value per slot, in order. */
    private static List<InitValue> arguments(InitFrame f, String descriptor, boolean receiver) {
        int n = receiver ? 1 : 0;
        for (String p : InitJdk.parameters(descriptor)) {
            n += slots(p);
        }
        List<InitValue> args = new ArrayList<>(f.stack.subList(f.stack.size() - n, f.stack.size()));
        f.pop(n);
        return args;
    }

    /** What a value of a declared type may be: its class is exact only when nothing can extend it. */
    private InitValue declared(String d) {
        if (d.equals("V")) {
            return null;
        }
        if (d.length() == 1) {
            return slots(d) == 2 ? InitValue.W : InitValue.P;
        }
        return InitValue.ref(d, exact(d), InitValue.MAYBE, false);
    }

    private boolean exact(String d) {
        while (d.startsWith("[")) {
            d = d.substring(1);
        }
        if (d.length() == 1) {
            return true;
        }
        String t = d.substring(1, d.length() - 1);
        if (t.equals("java/lang/String") || StaticState.BOXES.contains(t)) {
            return true;
        }
        ClassFile cf = rule.parsed(t);
        return cf != null && cf.is(ClassFile.ACC_FINAL) && !cf.is(ClassFile.ACC_INTERFACE);
    }

    private InitValue constant(ClassFile cf, int index) throws StaticState.Reject {
        int tag = cf.tag(index);
        switch (tag) {
            case ClassFile.CONSTANT_INTEGER:
            case ClassFile.CONSTANT_FLOAT:
                return InitValue.P;
            case ClassFile.CONSTANT_LONG:
            case ClassFile.CONSTANT_DOUBLE:
                return InitValue.W;
            case ClassFile.CONSTANT_STRING:
                return InitValue.ref("Ljava/lang/String;", true, InitValue.NONNULL, false);
            case ClassFile.CONSTANT_CLASS:
                return InitValue.ref("Ljava/lang/Class;", true, InitValue.NONNULL, false);
            default:
                throw new StaticState.Reject("its initialisation loads a method handle or dynamic constant");
        }
    }

    // ------------------------------------------------------------------ the checks

    private void staticField(ClassFile.Ref r, boolean write) throws StaticState.Reject {
        String declaring = declaringProjectField(r.owner, r.name);
        if (declaring != null) {
            if (declaring.equals(root)) {
                return; // its own fields, being initialised
            }
            if (write) {
                throw new StaticState.Reject("its initialisation writes " + StaticState.dotted(declaring) + "." + r.name);
            }
            ClassFile.Member f = rule.parsed(declaring).field(r.name);
            if (!f.is(ClassFile.ACC_FINAL)) {
                throw new StaticState.Reject("its initialisation reads the non-final field "
                        + StaticState.dotted(declaring) + "." + r.name + ", which a test may have changed");
            }
            if (!rule.immutableType(f.descriptor) && !StaticState.jdkValueType(f.descriptor)
                    && !f.is(ClassFile.ACC_SYNTHETIC)) {
                // The worker puts such values back after a test, but it may initialise this
                // class before it has (Loaders.settle), and then it would read what the test left.
                throw new StaticState.Reject("its initialisation reads " + StaticState.dotted(declaring) + "."
                        + r.name + ", whose contents a test may have changed");
            }
            rule.dependency(root, declaring);
            return;
        }
        if (write) {
            throw new StaticState.Reject("its initialisation writes " + StaticState.dotted(r.owner) + "." + r.name);
        }
        if (!finalLibraryField(r.owner, r.name)) {
            throw new StaticState.Reject("its initialisation reads " + StaticState.dotted(r.owner) + "." + r.name
                    + ", which is not a final field");
        }
    }

    /** The project class that declares static field {@code name} as seen from {@code owner}, or null. */
    private String declaringProjectField(String owner, String name) {
        ClassFile cf = rule.parsed(owner);
        if (cf == null) {
            return null;
        }
        if (cf.field(name) != null) {
            return owner;
        }
        for (String i : cf.interfaces) {
            String d = declaringProjectField(i, name);
            if (d != null) {
                return d;
            }
        }
        return cf.superName == null ? null : declaringProjectField(cf.superName, name);
    }

    private boolean finalLibraryField(String owner, String name) {
        try {
            for (Class<?> k = Class.forName(StaticState.dotted(owner), false, rule.libraries); k != null;
                    k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (f.getName().equals(name)) {
                        return Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers());
                    }
                }
            }
        } catch (ClassNotFoundException | LinkageError | SecurityException e) {
            return false;
        }
        return false;
    }

    private void create(String type) throws StaticState.Reject {
        if (rule.isProject(type)) {
            rule.dependency(root, type);
            return;
        }
        if (!InitJdk.creatable(type)) {
            throw new StaticState.Reject("its initialisation creates a " + StaticState.dotted(type));
        }
    }

    /**
     * Checks a call; returns what it returns (null for void, {@link #NEVER} when it cannot
     * return). {@code args} has the receiver first for an instance call.
     */
    private InitValue invoke(ClassFile.Ref r, int op, List<InitValue> args) throws StaticState.Reject {
        InitValue declared = declared(returnType(r.descriptor));
        InitValue receiver = op == 0xb8 ? null : args.get(0);
        if (r.owner.startsWith("[")) {
            if (r.name.equals("clone")) {
                return receiver.nonNull(); // values() of an enum, copies of the initialiser's arrays
            }
            throw new StaticState.Reject("its initialisation calls " + r.name + " on an array");
        }
        if (r.owner.equals("ctgls/rt/Probe")) {
            return probe(r, args, declared);
        }
        if (r.owner.equals("ctgls/rt/Mutants")) {
            // Register is idempotent per key, the rest are functions of their arguments and
            // the active mutant, which is none but in a mutated request, whose tests each get
            // a fresh loader.
            return declared;
        }
        // A virtual or interface call on a value of exact class runs that class's method.
        String start = r.owner;
        boolean exactReceiver = false;
        if ((op == 0xb6 || op == 0xb9) && receiver.exact && receiver.type != null && receiver.type.startsWith("L")) {
            start = receiver.type.substring(1, receiver.type.length() - 1);
            exactReceiver = true;
        } else if (op == 0xb9) {
            throw new StaticState.Reject("its initialisation makes an interface call of " + StaticState.dotted(r.owner)
                    + "." + r.name);
        }
        // Resolve through the project superclasses; the first JDK or library class ends the walk.
        for (String k = start; k != null; ) {
            ClassFile cf = rule.parsed(k);
            if (cf == null) {
                List<InitValue> params = op == 0xb8 ? args : args.subList(1, args.size());
                if (!InitJdk.call(k, r.name, r.descriptor, receiver, params)) {
                    throw new StaticState.Reject("its initialisation calls " + StaticState.dotted(k) + "." + r.name
                            + r.descriptor);
                }
                return declared;
            }
            ClassFile.Member m = cf.method(r.name, r.descriptor);
            if (m != null) {
                boolean exact = exactReceiver || op != 0xb6 || m.is(ClassFile.ACC_PRIVATE) || m.is(ClassFile.ACC_FINAL)
                        || cf.is(ClassFile.ACC_FINAL) || m.is(ClassFile.ACC_STATIC);
                if (!exact) {
                    throw new StaticState.Reject("its initialisation makes a virtual call of " + StaticState.dotted(k)
                            + "." + r.name);
                }
                if (op == 0xb8 || op == 0xb7) {
                    rule.dependency(root, k);
                }
                List<InitValue> slots = new ArrayList<>(args);
                if (receiver != null) {
                    slots.set(0, receiver.nonNull());
                }
                InitValue v = method(cf, m, slots);
                return v == null || v == NEVER ? v : v.kind == InitValue.TOP ? declared : v;
            }
            k = cf.superName;
        }
        throw new StaticState.Reject("its initialisation calls an unresolvable " + r.name);
    }

    /**
     * A probe of instrumented code (docs/instrumentation.md): register is idempotent per key;
     * the other probes only record, and the worker replays what an initialiser recorded for
     * every test that would have run it (Loaders, Probe.recordInitialisation). What a probe
     * returns is what the expression it wraps gives, so the analysis sees through it: the
     * value it passes on ({@code alloc}, {@code seed}, {@code instOfOperand}, {@code branch})
     * or the null test it makes ({@code isNull}, {@code cmpRef} against null).
     */
    private static InitValue probe(ClassFile.Ref r, List<InitValue> args, InitValue declared) {
        switch (r.name) {
            case "alloc":
                return args.get(0);
            case "seed":
            case "instOfOperand":
            case "branch":
                return args.get(1);
            case "isNull": {
                int n = args.get(1).nullness;
                return n == InitValue.MAYBE ? declared : InitValue.constant(n == InitValue.NULL ? 1 : 0);
            }
            case "cmpRef": {
                Integer op = args.get(1).known();
                int a = args.get(2).nullness;
                int b = args.get(3).nullness;
                boolean decided = a == InitValue.NULL && b != InitValue.MAYBE || b == InitValue.NULL && a != InitValue.MAYBE;
                if (op == null || !decided || op != 0 && op != 1) {
                    return declared;
                }
                boolean same = a == b; // both null, or one null and the other not
                return InitValue.constant(same == (op == 0) ? 1 : 0);
            }
            default:
                return declared;
        }
    }

    private void invokeDynamic(ClassFile.Ref r, List<InitValue> args) throws StaticState.Reject {
        if (r.owner.equals("java/lang/invoke/LambdaMetafactory")) {
            // Makes an object of a generated class holding the captured values; the lambda's
            // body only runs when it is called (through an interface call on a value whose
            // class is not exact, which this scan rejects). The captured values are checked
            // as values (StaticValues).
            return;
        }
        if (!r.owner.equals("java/lang/invoke/StringConcatFactory")) {
            throw new StaticState.Reject("its initialisation uses invokedynamic (" + StaticState.dotted(r.owner) + "."
                    + r.name + ")");
        }
        // Concatenation converts its operands with toString(): only of inert values.
        List<String> params = InitJdk.parameters(r.descriptor);
        int slot = 0;
        for (String p : params) {
            if (!StaticState.isPrimitive(p) && !InitJdk.inert(args.get(slot))) {
                throw new StaticState.Reject("its initialisation concatenates a " + StaticState.typeName(p));
            }
            slot += slots(p);
        }
    }

    static int u2(byte[] c, int p) {
        return ((c[p] & 0xff) << 8) | (c[p + 1] & 0xff);
    }

    static int u4(byte[] c, int p) {
        return ((c[p] & 0xff) << 24) | ((c[p + 1] & 0xff) << 16) | ((c[p + 2] & 0xff) << 8) | (c[p + 3] & 0xff);
    }
}
