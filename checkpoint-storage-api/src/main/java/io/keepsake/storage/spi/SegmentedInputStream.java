package io.keepsake.storage.spi;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A stream that hands out, in order, segments of bytes its subclass holds in memory (ranges of an
 * object, chunks of a payload): a read copies from the current segment, and when that is used up
 * the subclass's {@link #next()} makes the next one current, fetching, waiting for or checking
 * it as it must. A read of a closed stream is refused, and a stream whose subclass recorded a
 * failure ({@link #fail}) throws that failure again at every later read. Not thread-safe: one reader.
 */
public abstract class SegmentedInputStream extends InputStream {

    private final byte[] one = new byte[1];
    private final String closedMessage;
    /** What made the stream fail; thrown again by every later read. */
    private Throwable failure;
    private boolean closed;

    /** A stream whose reads, once it is closed, are refused with {@code closedMessage}, which names what it reads. */
    protected SegmentedInputStream(String closedMessage) {
        this.closedMessage = closedMessage;
    }

    /**
     * Makes a segment with bytes left current: the current one while it has bytes left, else the
     * one {@link #next()} makes current.
     *
     * @return false at the end of the stream
     * @throws IOException when the next segment cannot be had, or the stream is closed or failed
     */
    protected final boolean advance() throws IOException {
        if (closed) {
            throw new IOException(closedMessage);
        }
        if (failure != null) {
            rethrow(failure);
        }
        return remaining() > 0 || next();
    }

    /**
     * Makes the next segment current, the current one (if any) being used up.
     *
     * @return false at the end of the stream
     * @throws IOException when the next segment cannot be had
     */
    protected abstract boolean next() throws IOException;

    /** Records {@code e}, an {@link IOException}, {@link Error} or {@link RuntimeException}, to be thrown again by every later read. */
    protected final void fail(Throwable e) {
        failure = e;
    }

    /** Marks the stream closed, so that every later read is refused; false when it already was. */
    protected final boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    /** The bytes left in the current segment; 0 when there is none. */
    protected abstract int remaining();

    /** Copies the next {@code n} bytes of the current segment, at most {@link #remaining()}, to {@code b} at {@code off}. */
    protected abstract void copy(byte[] b, int off, int n);

    /** Moves past the next {@code n} bytes of the current segment, at most {@link #remaining()}, without copying them. */
    protected abstract void drop(int n);

    @Override
    public final int read() throws IOException {
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public final int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (!advance()) {
            return -1;
        }
        int n = Math.min(len, remaining());
        copy(b, off, n);
        return n;
    }

    /** Skips up to {@code n} bytes segment by segment, copying none; fewer only at the end of the stream. */
    @Override
    public final long skip(long n) throws IOException {
        long skipped = 0;
        while (skipped < n && advance()) {
            int step = (int) Math.min(n - skipped, remaining());
            drop(step);
            skipped += step;
        }
        return skipped;
    }

    @Override
    public final int available() {
        return remaining();
    }

    /** Throws {@code e}, an {@link IOException}, {@link Error} or {@link RuntimeException}, as it is. */
    protected static void rethrow(Throwable e) throws IOException {
        if (e instanceof IOException io) {
            throw io;
        }
        if (e instanceof Error error) {
            throw error;
        }
        throw (RuntimeException) e;
    }
}
