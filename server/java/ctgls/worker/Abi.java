package ctgls.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The interface of a source file's classes: what another file's bytecode, compiled against
 * them, can depend on (JLS 13.4, binary compatibility, read the other way round). When an edit
 * leaves it unchanged (an edit inside a method body, a comment, a private member), the files
 * that mention the file's types need not be compiled again.
 *
 * <p>It covers, for every class but the instrumenter's probe holders: the name, access flags,
 * superclass, interfaces and generic signature; the member classes it declares (name and flags);
 * permitted subclasses; record components; and every field and method that is neither private
 * nor synthetic, with its flags, descriptor, generic signature, thrown exceptions and, for a
 * field, its constant value (javac inlines constant variables into the files that read them).
 * Members are sorted, so moving a method is no change. Annotation types are never judged the
 * same: their retention and targets decide what javac writes into the files that use them.
 */
final class Abi {
    private static final int ACC_PRIVATE = 0x0002;
    private static final int ACC_SYNTHETIC = 0x1000;
    private static final int ACC_ANNOTATION = 0x2000;
    /** javac sets ACC_SUPER on every class; it says nothing about the interface. */
    private static final int ACC_SUPER = 0x0020;

    private Abi() {
    }

    /** A digest of the interface of {@code classes} (binary name to bytes), or null when it cannot tell. */
    static String of(Map<String, byte[]> classes) {
        StringBuilder out = new StringBuilder();
        try {
            for (Map.Entry<String, byte[]> e : new TreeMap<>(classes).entrySet()) {
                String simple = e.getKey().substring(e.getKey().lastIndexOf('.') + 1);
                if (simple.startsWith("$CtglsProbe_")) {
                    continue;
                }
                ClassFile cf = ClassFile.parse(e.getValue());
                if (cf.is(ACC_ANNOTATION)) {
                    return null;
                }
                describe(cf, out);
            }
        } catch (RuntimeException e) {
            // A class file this reader cannot follow: judged as changed.
            return null;
        }
        return Compiler.sha256(out.toString());
    }

    private static void describe(ClassFile cf, StringBuilder out) {
        out.append("class ").append(cf.name).append(' ').append(cf.access & ~ACC_SUPER)
                .append(" extends ").append(cf.superName).append(" implements ").append(cf.interfaces);
        Map<String, int[]> attributes = cf.attributes();
        out.append(" signature ").append(signature(cf, attributes));
        int[] inner = attributes.get("InnerClasses");
        if (inner != null) {
            List<String> members = new ArrayList<>();
            int p = inner[0];
            int n = cf.u2(p);
            for (int k = 0; k < n; k++) {
                int at = p + 2 + 8 * k;
                int innerIndex = cf.u2(at);
                int outerIndex = cf.u2(at + 2);
                // Only the member classes this class declares; the others are entries for the
                // nested classes it merely uses, and anonymous and local classes have no outer.
                if (outerIndex != 0 && cf.className(outerIndex).equals(cf.name)) {
                    members.add(cf.className(innerIndex) + " " + cf.u2(at + 6));
                }
            }
            members.sort(null);
            out.append(" members ").append(members);
        }
        int[] permitted = attributes.get("PermittedSubclasses");
        if (permitted != null) {
            List<String> names = new ArrayList<>();
            int n = cf.u2(permitted[0]);
            for (int k = 0; k < n; k++) {
                names.add(cf.className(cf.u2(permitted[0] + 2 + 2 * k)));
            }
            names.sort(null);
            out.append(" permits ").append(names);
        }
        int[] record = attributes.get("Record");
        if (record != null) {
            out.append(" record");
            int p = record[0];
            int n = cf.u2(p);
            p += 2;
            for (int k = 0; k < n; k++) {
                out.append(' ').append(cf.utf8(cf.u2(p))).append(':').append(cf.utf8(cf.u2(p + 2)));
                int count = cf.u2(p + 4);
                p += 6;
                for (int a = 0; a < count; a++) {
                    String name = cf.utf8(cf.u2(p));
                    int len = cf.u4(p + 2);
                    if (name.equals("Signature")) {
                        out.append('<').append(cf.utf8(cf.u2(p + 6))).append('>');
                    }
                    p += 6 + len;
                }
            }
        }
        out.append('\n');
        List<String> members = new ArrayList<>();
        for (ClassFile.Member f : cf.fields) {
            if (visible(f)) {
                int[] constant = f.attributes.get("ConstantValue");
                members.add("field " + f.name + " " + f.descriptor + " " + f.access + " "
                        + signature(cf, f.attributes) + (constant == null ? "" : " = " + cf.constantText(cf.u2(constant[0]))));
            }
        }
        for (ClassFile.Member m : cf.methods) {
            if (visible(m)) {
                List<String> thrown = new ArrayList<>();
                int[] exceptions = m.attributes.get("Exceptions");
                if (exceptions != null) {
                    int n = cf.u2(exceptions[0]);
                    for (int k = 0; k < n; k++) {
                        thrown.add(cf.className(cf.u2(exceptions[0] + 2 + 2 * k)));
                    }
                    thrown.sort(null);
                }
                members.add("method " + m.name + m.descriptor + " " + m.access + " " + signature(cf, m.attributes)
                        + " throws " + thrown);
            }
        }
        members.sort(null);
        for (String m : members) {
            out.append(m).append('\n');
        }
    }

    private static boolean visible(ClassFile.Member m) {
        return !m.is(ACC_PRIVATE) && !m.is(ACC_SYNTHETIC);
    }

    private static String signature(ClassFile cf, Map<String, int[]> attributes) {
        int[] s = attributes.get("Signature");
        return s == null ? "-" : cf.utf8(cf.u2(s[0]));
    }
}
