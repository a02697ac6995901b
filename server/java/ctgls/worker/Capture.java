package ctgls.worker;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Bounded buffer that System.out / System.err write into while the worker runs.
 *
 * <p>User code never reaches the protocol channel through these streams; what it prints is kept
 * per test up to a limit and returned with a truncation marker.
 */
final class Capture extends OutputStream {
    /**
     * The print stream System.out or System.err is set to over a capture. A closed PrintStream
     * drops whatever is printed to it for ever, so it remembers being closed, and
     * {@link JdkState} gives the next test a new one over the same capture.
     */
    static final class Stream extends PrintStream {
        private final Capture capture;
        private volatile boolean closed;

        Stream(Capture capture) {
            super(capture, true, StandardCharsets.UTF_8);
            this.capture = capture;
        }

        @Override
        public void close() {
            closed = true;
            super.close();
        }

        /** This stream, or a new one over the same capture when a test closed this one. */
        Stream working() {
            return closed ? new Stream(capture) : this;
        }
    }

    private byte[] buf = new byte[1024];
    private int size;
    private long dropped;
    private volatile int limit = 16 * 1024;

    synchronized void reset(int newLimit) {
        limit = Math.max(0, newLimit);
        size = 0;
        dropped = 0;
        if (buf.length > 64 * 1024) {
            buf = new byte[1024];
        }
    }

    @Override
    public synchronized void write(int b) {
        if (size >= limit) {
            dropped++;
            return;
        }
        if (size == buf.length) {
            buf = java.util.Arrays.copyOf(buf, Math.min(limit, buf.length * 2));
        }
        buf[size++] = (byte) b;
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        int room = Math.max(0, limit - size);
        int n = Math.min(room, len);
        if (n > 0) {
            if (size + n > buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.min(limit, Math.max(size + n, buf.length * 2)));
            }
            System.arraycopy(b, off, buf, size, n);
            size += n;
        }
        dropped += len - n;
    }

    /** The captured text; a marker line tells how many bytes were dropped past the limit. */
    synchronized String text() {
        String s = new String(buf, 0, size, StandardCharsets.UTF_8);
        if (dropped > 0) {
            s += "\n[ctgls: output truncated, " + dropped + " more bytes]";
        }
        return s;
    }

    synchronized boolean truncated() {
        return dropped > 0;
    }
}
