package ctgls.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of a class file that the static-state rule reads (JVMS chapter 4): access flags,
 * super class, interfaces, fields, and the bytecode and exception tables of the methods.
 *
 * <p>Reads the bytes javac produced for the unit; nothing is loaded or initialised. Any malformed
 * input throws {@link IllegalArgumentException}, which callers treat as "not provably safe".
 */
final class ClassFile {
    static final int ACC_PRIVATE = 0x0002;
    static final int ACC_STATIC = 0x0008;
    static final int ACC_FINAL = 0x0010;
    static final int ACC_INTERFACE = 0x0200;
    static final int ACC_SYNTHETIC = 0x1000;
    static final int ACC_ENUM = 0x4000;

    static final int CONSTANT_UTF8 = 1;
    static final int CONSTANT_INTEGER = 3;
    static final int CONSTANT_FLOAT = 4;
    static final int CONSTANT_LONG = 5;
    static final int CONSTANT_DOUBLE = 6;
    static final int CONSTANT_CLASS = 7;
    static final int CONSTANT_STRING = 8;
    static final int CONSTANT_FIELDREF = 9;
    static final int CONSTANT_METHODREF = 10;
    static final int CONSTANT_INTERFACE_METHODREF = 11;
    static final int CONSTANT_NAME_AND_TYPE = 12;
    static final int CONSTANT_METHOD_HANDLE = 15;
    static final int CONSTANT_METHOD_TYPE = 16;
    static final int CONSTANT_DYNAMIC = 17;
    static final int CONSTANT_INVOKE_DYNAMIC = 18;
    static final int CONSTANT_MODULE = 19;
    static final int CONSTANT_PACKAGE = 20;

    /** A field or method: access flags, name, descriptor; methods also their code, if any. */
    static final class Member {
        final int access;
        final String name;
        final String descriptor;
        byte[] code;
        /** Exception table rows: start, end, handler, catch-type index. */
        int[][] handlers = new int[0][];
        /** Where each attribute's info starts, by name, and its length. */
        final Map<String, int[]> attributes = new HashMap<>();

        Member(int access, String name, String descriptor) {
            this.access = access;
            this.name = name;
            this.descriptor = descriptor;
        }

        boolean is(int flag) {
            return (access & flag) != 0;
        }
    }

    /** A resolved field or method reference: owner (internal name or array descriptor), name, descriptor. */
    static final class Ref {
        final String owner;
        final String name;
        final String descriptor;

        Ref(String owner, String name, String descriptor) {
            this.owner = owner;
            this.name = name;
            this.descriptor = descriptor;
        }
    }

    final int access;
    /** Internal names (slashes): {@code com/acme/A}. */
    final String name;
    final String superName;
    final List<String> interfaces = new ArrayList<>();
    final List<Member> fields = new ArrayList<>();
    final List<Member> methods = new ArrayList<>();

    private final byte[] b;
    private final int[] offsets;
    private final int[] tags;
    /** Offset of the class attributes (after the methods). */
    private final int attributesAt;

    private ClassFile(byte[] bytes) {
        this.b = bytes;
        if (u4(0) != 0xCAFEBABE) {
            throw new IllegalArgumentException("not a class file");
        }
        int count = u2(8);
        offsets = new int[count];
        tags = new int[count];
        int p = 10;
        for (int k = 1; k < count; k++) {
            int tag = u1(p);
            tags[k] = tag;
            offsets[k] = p + 1;
            switch (tag) {
                case CONSTANT_UTF8: p += 3 + u2(p + 1); break;
                case CONSTANT_INTEGER: case CONSTANT_FLOAT: case CONSTANT_FIELDREF: case CONSTANT_METHODREF:
                case CONSTANT_INTERFACE_METHODREF: case CONSTANT_NAME_AND_TYPE: case CONSTANT_DYNAMIC:
                case CONSTANT_INVOKE_DYNAMIC:
                    p += 5;
                    break;
                case CONSTANT_LONG: case CONSTANT_DOUBLE: p += 9; k++; break;
                case CONSTANT_CLASS: case CONSTANT_STRING: case CONSTANT_METHOD_TYPE: case CONSTANT_MODULE:
                case CONSTANT_PACKAGE:
                    p += 3;
                    break;
                case CONSTANT_METHOD_HANDLE: p += 4; break;
                default: throw new IllegalArgumentException("constant pool tag " + tag);
            }
        }
        access = u2(p);
        name = className(u2(p + 2));
        int superIndex = u2(p + 4);
        superName = superIndex == 0 ? null : className(superIndex);
        int n = u2(p + 6);
        p += 8;
        for (int k = 0; k < n; k++, p += 2) {
            interfaces.add(className(u2(p)));
        }
        p = members(p, fields, false);
        attributesAt = members(p, methods, true);
    }

    static ClassFile parse(byte[] bytes) {
        try {
            return new ClassFile(bytes);
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated class file", e);
        }
    }

    private int members(int p, List<Member> out, boolean methods) {
        int n = u2(p);
        p += 2;
        for (int k = 0; k < n; k++) {
            Member m = new Member(u2(p), utf8(u2(p + 2)), utf8(u2(p + 4)));
            int attributes = u2(p + 6);
            p += 8;
            for (int a = 0; a < attributes; a++) {
                String attr = utf8(u2(p));
                int len = u4(p + 2);
                m.attributes.put(attr, new int[] {p + 6, len});
                if (methods && attr.equals("Code")) {
                    int codeLength = u4(p + 10);
                    m.code = java.util.Arrays.copyOfRange(b, p + 14, p + 14 + codeLength);
                    int q = p + 14 + codeLength;
                    int rows = u2(q);
                    m.handlers = new int[rows][];
                    for (int r = 0; r < rows; r++) {
                        int at = q + 2 + 8 * r;
                        m.handlers[r] = new int[] {u2(at), u2(at + 2), u2(at + 4), u2(at + 6)};
                    }
                }
                p += 6 + len;
            }
            out.add(m);
        }
        return p;
    }

    boolean is(int flag) {
        return (access & flag) != 0;
    }

    /** Where each class attribute's info starts, by name, and its length. */
    Map<String, int[]> attributes() {
        Map<String, int[]> out = new HashMap<>();
        int p = attributesAt;
        int n = u2(p);
        p += 2;
        for (int a = 0; a < n; a++) {
            int len = u4(p + 2);
            out.put(utf8(u2(p)), new int[] {p + 6, len});
            p += 6 + len;
        }
        return out;
    }

    /** A loadable constant (Integer, Float, Long, Double, String) as exact text. */
    String constantText(int index) {
        int p = offsets[index];
        switch (tag(index)) {
            case CONSTANT_INTEGER: return "I" + u4(p);
            case CONSTANT_FLOAT: return "F" + Integer.toHexString(u4(p));
            case CONSTANT_LONG: return "J" + Integer.toHexString(u4(p)) + ":" + Integer.toHexString(u4(p + 4));
            case CONSTANT_DOUBLE: return "D" + Integer.toHexString(u4(p)) + ":" + Integer.toHexString(u4(p + 4));
            case CONSTANT_STRING: return "S" + utf8(u2(p));
            default: throw new IllegalArgumentException("not a loadable constant at " + index);
        }
    }

    Member method(String name, String descriptor) {
        for (Member m : methods) {
            if (m.name.equals(name) && m.descriptor.equals(descriptor)) {
                return m;
            }
        }
        return null;
    }

    Member field(String name) {
        for (Member f : fields) {
            if (f.name.equals(name)) {
                return f;
            }
        }
        return null;
    }

    int tag(int index) {
        if (index <= 0 || index >= tags.length) {
            throw new IllegalArgumentException("constant pool index " + index);
        }
        return tags[index];
    }

    String utf8(int index) {
        if (tag(index) != CONSTANT_UTF8) {
            throw new IllegalArgumentException("expected a Utf8 constant at " + index);
        }
        int p = offsets[index];
        int len = u2(p);
        return decodeModifiedUtf8(p + 2, len);
    }

    String className(int index) {
        if (tag(index) != CONSTANT_CLASS) {
            throw new IllegalArgumentException("expected a Class constant at " + index);
        }
        return utf8(u2(offsets[index]));
    }

    /** A Fieldref, Methodref or InterfaceMethodref. */
    Ref ref(int index) {
        int t = tag(index);
        if (t != CONSTANT_FIELDREF && t != CONSTANT_METHODREF && t != CONSTANT_INTERFACE_METHODREF) {
            throw new IllegalArgumentException("expected a member reference at " + index);
        }
        int p = offsets[index];
        int nat = u2(p + 2);
        if (tag(nat) != CONSTANT_NAME_AND_TYPE) {
            throw new IllegalArgumentException("expected a NameAndType at " + nat);
        }
        int q = offsets[nat];
        return new Ref(className(u2(p)), utf8(u2(q)), utf8(u2(q + 2)));
    }

    /** The descriptor of an InvokeDynamic constant and the owner and name of its bootstrap method. */
    Ref invokeDynamic(int index) {
        if (tag(index) != CONSTANT_INVOKE_DYNAMIC) {
            throw new IllegalArgumentException("expected an InvokeDynamic at " + index);
        }
        int p = offsets[index];
        int nat = u2(p + 2);
        String descriptor = utf8(u2(offsets[nat] + 2));
        Ref bootstrap = bootstrapMethod(u2(p));
        return new Ref(bootstrap.owner, bootstrap.name, descriptor);
    }

    private Ref bootstrapMethod(int bsmIndex) {
        int p = attributesAt;
        int attributes = u2(p);
        p += 2;
        for (int a = 0; a < attributes; a++) {
            String attr = utf8(u2(p));
            int len = u4(p + 2);
            if (attr.equals("BootstrapMethods")) {
                int q = p + 6;
                int count = u2(q);
                q += 2;
                for (int k = 0; k < count; k++) {
                    int handle = u2(q);
                    int args = u2(q + 2);
                    if (k == bsmIndex) {
                        if (tag(handle) != CONSTANT_METHOD_HANDLE) {
                            throw new IllegalArgumentException("bootstrap is not a method handle");
                        }
                        return ref(u2(offsets[handle] + 1));
                    }
                    q += 4 + 2 * args;
                }
            }
            p += 6 + len;
        }
        throw new IllegalArgumentException("bootstrap method " + bsmIndex + " not found");
    }

    /**
     * Binary names (with dots) of the classes this class file refers to: its Class constants
     * (which include its supertypes and nested classes) and the class types in every descriptor
     * and generic signature among its Utf8 constants. Names computed at run time
     * ({@code Class.forName}) are not seen.
     */
    java.util.Set<String> referencedClasses() {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (int k = 1; k < tags.length; k++) {
            if (tags[k] == CONSTANT_CLASS) {
                String n = className(k);
                if (n.startsWith("[")) {
                    new Signature(n, out).parse();
                } else {
                    out.add(n.replace('/', '.'));
                }
            } else if (tags[k] == CONSTANT_UTF8) {
                new Signature(utf8(k), out).parse();
            }
        }
        return out;
    }

    /**
     * A strict reader of descriptors and signatures (JVMS 4.3, 4.7.9.1): adds the class names of
     * {@code text} to {@code out} only when the whole text is one, so that other strings (names,
     * literals) add nothing.
     */
    private static final class Signature {
        private final String s;
        private final java.util.Set<String> out;
        private final List<String> found = new ArrayList<>();
        private int p;

        Signature(String s, java.util.Set<String> out) {
            this.s = s;
            this.out = out;
        }

        void parse() {
            if (s.isEmpty() || s.indexOf('L') < 0) {
                return;
            }
            boolean ok = all();
            if (ok) {
                out.addAll(found);
            }
        }

        private boolean all() {
            if (at('<') && !typeParameters()) {
                return false;
            }
            if (at('(')) {
                p++;
                while (!at(')')) {
                    if (!type()) {
                        return false;
                    }
                }
                p++;
                if (at('V')) {
                    p++;
                } else if (!type()) {
                    return false;
                }
                while (at('^')) {
                    p++;
                    if (!type()) {
                        return false;
                    }
                }
                return p == s.length();
            }
            do {
                if (!type()) {
                    return false;
                }
            } while (p < s.length());
            return true;
        }

        private boolean at(char c) {
            return p < s.length() && s.charAt(p) == c;
        }

        private boolean expect(char c) {
            if (!at(c)) {
                return false;
            }
            p++;
            return true;
        }

        private boolean typeParameters() {
            p++;
            while (!at('>')) {
                int start = p;
                while (p < s.length() && s.charAt(p) != ':') {
                    if (!Character.isJavaIdentifierPart(s.charAt(p))) {
                        return false;
                    }
                    p++;
                }
                if (p == start || !at(':')) {
                    return false;
                }
                while (at(':')) {
                    p++;
                    if ((at('L') || at('[') || at('T')) && !type()) {
                        return false;
                    }
                }
            }
            p++;
            return true;
        }

        private boolean type() {
            if (p >= s.length()) {
                return false;
            }
            char c = s.charAt(p);
            switch (c) {
                case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
                    p++;
                    return true;
                case '[':
                    p++;
                    return type();
                case 'T':
                    p++;
                    return identifier(false) && expect(';');
                case 'L':
                    p++;
                    int start = p;
                    if (!identifier(true)) {
                        return false;
                    }
                    found.add(s.substring(start, p).replace('/', '.'));
                    if (at('<') && !typeArguments()) {
                        return false;
                    }
                    while (at('.')) {
                        p++;
                        if (!identifier(false) || (at('<') && !typeArguments())) {
                            return false;
                        }
                    }
                    return expect(';');
                default:
                    return false;
            }
        }

        private boolean typeArguments() {
            p++;
            while (!at('>')) {
                if (at('*')) {
                    p++;
                    continue;
                }
                if (at('+') || at('-')) {
                    p++;
                }
                if (!type()) {
                    return false;
                }
            }
            p++;
            return true;
        }

        private boolean identifier(boolean slashes) {
            int start = p;
            while (p < s.length()) {
                char c = s.charAt(p);
                if (!(Character.isJavaIdentifierPart(c) || (slashes && c == '/'))) {
                    break;
                }
                p++;
            }
            return p > start;
        }
    }

    int u1(int p) {
        return b[p] & 0xff;
    }

    int u2(int p) {
        return ((b[p] & 0xff) << 8) | (b[p + 1] & 0xff);
    }

    int u4(int p) {
        return ((b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
    }

    private String decodeModifiedUtf8(int p, int len) {
        StringBuilder s = new StringBuilder(len);
        int end = p + len;
        while (p < end) {
            int c = b[p] & 0xff;
            if (c < 0x80) {
                s.append((char) c);
                p++;
            } else if ((c & 0xe0) == 0xc0) {
                s.append((char) (((c & 0x1f) << 6) | (b[p + 1] & 0x3f)));
                p += 2;
            } else {
                s.append((char) (((c & 0x0f) << 12) | ((b[p + 1] & 0x3f) << 6) | (b[p + 2] & 0x3f)));
                p += 3;
            }
        }
        return s.toString();
    }
}
