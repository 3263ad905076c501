package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.KeptArrayInput;
import io.keepsake.storage.SavepointCorruptedException;
import org.apache.commons.codec.binary.Hex;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.security.MessageDigest;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * A format-version-2 payload, read ahead and checked chunk by chunk on several cores, delivered in
 * order: a chunk's bytes are handed out only after that chunk's SHA-256 matched the manifest, and
 * the last byte only after the file was found to end at the manifest's length. A damaged chunk is
 * a {@link SavepointCorruptedException} naming the file and the chunk's byte offset
 * ({@link SavepointCorruptedException#offset()}); so is a file that ends early (at the offset of the
 * chunk it ends in) or goes on past its length.
 *
 * <p>With two chunks or more, one read-ahead thread reads chunk after chunk into a bounded set of
 * buffers ({@link ChunkVerification#buffersPerStream()}) and hands each to the storage's verifier
 * threads, while the consumer takes the chunks in order, each once its digest is known, and gives
 * the buffer back when it has read it. So at most that many chunks are in memory, whatever the
 * payload's size, and reading, hashing and the consumer's decoding overlap. A payload of one chunk
 * (or none) is read and checked on the consumer's thread. A stream that is closed, or that failed,
 * stops its read-ahead. Not thread-safe: one consumer.
 */
public final class ChunkVerifyingInputStream extends InputStream implements KeptArrayInput {

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(HashingOutputStream::sha256);

    /** Put among the free buffers to wake a read-ahead that waits for one, after {@link #stopped} was set. */
    private static final byte[] STOP = new byte[0];

    private final InputStream in;
    private final String path;
    private final String what;
    private final long length;
    private final ChunkDigests chunks;
    private final int count;
    private final ChunkVerification verification;
    private final boolean pipelined;
    private final BlockingQueue<byte[]> free = new LinkedBlockingQueue<>();
    private final BlockingQueue<Chunk> ready = new LinkedBlockingQueue<>();
    private final CountDownLatch readerDone = new CountDownLatch(1);
    private final byte[] one = new byte[1];
    private boolean readAheadStarted;
    private volatile boolean stopped;
    /** What made the stream fail; thrown again by every later read. */
    private Exception failure;
    private int next;
    private Chunk current;
    private int position;
    private boolean closed;

    /** One chunk as the read-ahead hands it over: its bytes and their digest being computed, or why it could not be read. */
    private record Chunk(int index, byte[] buffer, int length, Future<byte[]> digest, Exception failure) {
    }

    ChunkVerifyingInputStream(InputStream in, String path, String what, long length, ChunkDigests chunks,
                              ChunkVerification verification) {
        this.in = in;
        this.path = path;
        this.what = what;
        this.length = length;
        this.chunks = chunks;
        this.count = chunks.count();
        this.verification = verification;
        this.pipelined = count >= 2;
        int buffers = pipelined ? Math.min(count, verification.buffersPerStream()) : Math.min(count, 1);
        for (int i = 0; i < buffers; i++) {
            free.add(new byte[(int) Math.min(chunks.chunkSize(), length)]);
        }
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (!advance()) {
            return -1;
        }
        int n = Math.min(len, current.length - position);
        System.arraycopy(current.buffer, position, b, off, n);
        position += n;
        return n;
    }

    /** The bytes were verified before they were copied out, so keeping them needs nothing more. */
    @Override
    public int readKept(byte[] b, int off, int len) throws IOException {
        return read(b, off, len);
    }

    @Override
    public long discard(long n) throws IOException {
        long discarded = 0;
        while (discarded < n && advance()) {
            int step = (int) Math.min(n - discarded, current.length - position);
            position += step;
            discarded += step;
        }
        return discarded;
    }

    @Override
    public long skip(long n) throws IOException {
        return n <= 0 ? 0 : discard(n);
    }

    @Override
    public int available() {
        return current == null ? 0 : current.length - position;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    /**
     * Makes {@link #current} a verified chunk with bytes left, taking the next one when the current
     * one is used up; false at the end of the payload (which was checked to end there).
     */
    private boolean advance() throws IOException {
        if (closed) {
            throw new IOException("Payload stream is closed (" + path + ")");
        }
        if (failure != null) {
            rethrow(failure);
        }
        if (current != null && position < current.length) {
            return true;
        }
        if (current != null) {
            free.add(current.buffer);
            current = null;
        }
        if (next == count) {
            if (count == 0) {
                requireEnd(0);
                next = -1;
            }
            return false;
        }
        if (next < 0) {
            return false;
        }
        Chunk chunk;
        try {
            chunk = pipelined ? takeReadAhead() : readInline(next);
            requireVerified(chunk);
        } catch (IOException | RuntimeException e) {
            failure = e;
            stopReadAhead();
            throw e;
        }
        next++;
        current = chunk;
        position = 0;
        return true;
    }

    private Chunk takeReadAhead() throws IOException {
        if (!readAheadStarted) {
            try {
                verification.readAhead(this::readAheadLoop);
            } catch (RejectedExecutionException e) {
                throw new IOException("Cannot read payload ahead: its storage is closed (" + path + ")", e);
            }
            readAheadStarted = true;
        }
        try {
            return ready.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting for chunk " + next + " of " + path);
        }
    }

    /** The consumer's own read of a payload's only chunk: read, check the end, hash. */
    private Chunk readInline(int index) {
        byte[] buffer = free.remove();
        int len = chunks.length(index, length);
        try {
            int got = in.readNBytes(buffer, 0, len);
            if (got < len) {
                return failed(index, shorter(index, got));
            }
            if (index == count - 1) {
                requireEnd(length);
            }
        } catch (IOException | RuntimeException e) {
            return failed(index, e);
        }
        MessageDigest sha = SHA256.get();
        sha.update(buffer, 0, len);
        return new Chunk(index, buffer, len, java.util.concurrent.CompletableFuture.completedFuture(sha.digest()), null);
    }

    /**
     * The read-ahead: each chunk into a free buffer (waiting for one), its hash handed to the
     * verifier threads, the chunk queued for the consumer in order; after the last chunk the file
     * must end. Stops at the first failure, which is queued in place of the chunk.
     */
    private void readAheadLoop() {
        try {
            for (int i = 0; i < count; i++) {
                byte[] buffer = free.take();
                if (stopped) {
                    return;
                }
                int len = chunks.length(i, length);
                int got;
                try {
                    got = in.readNBytes(buffer, 0, len);
                    if (got < len) {
                        ready.add(failed(i, shorter(i, got)));
                        return;
                    }
                    if (i == count - 1) {
                        requireEnd(length);
                    }
                } catch (IOException | RuntimeException e) {
                    ready.add(failed(i, e));
                    return;
                }
                Future<byte[]> digest;
                try {
                    digest = verification.verify(() -> {
                        MessageDigest sha = SHA256.get();
                        sha.update(buffer, 0, len);
                        return sha.digest();
                    });
                } catch (RejectedExecutionException e) {
                    ready.add(failed(i, new IOException("Cannot verify payload: its storage is closed (" + path + ")",
                            e)));
                    return;
                }
                ready.add(new Chunk(i, buffer, len, digest, null));
            }
        } catch (InterruptedException e) {
            ready.add(failed(-1, new InterruptedIOException("Reading " + path + " ahead was interrupted")));
            Thread.currentThread().interrupt();
        } finally {
            readerDone.countDown();
        }
    }

    private static Chunk failed(int index, Exception failure) {
        return new Chunk(index, null, 0, null, failure);
    }

    private static void rethrow(Exception e) throws IOException {
        if (e instanceof IOException io) {
            throw io;
        }
        throw (RuntimeException) e;
    }

    /** Throws what went wrong with a chunk, or when its digest differs from the manifest's. */
    private void requireVerified(Chunk chunk) throws IOException {
        if (chunk.failure != null) {
            rethrow(chunk.failure);
        }
        byte[] actual;
        try {
            actual = awaitDigest(chunk.digest);
        } catch (ExecutionException e) {
            throw new IOException("Hashing chunk " + chunk.index + " of " + path + " failed: " + e.getCause(),
                    e.getCause());
        }
        if (!chunks.matches(chunk.index, actual)) {
            long offset = chunks.offset(chunk.index);
            throw new SavepointCorruptedException(path, offset, "Payload chunk " + chunk.index + " of " + count
                    + " (bytes " + offset + " to " + (offset + chunk.length - 1) + ") of " + what
                    + " does not match its SHA-256 in the manifest", chunks.sha256Hex(chunk.index),
                    Hex.encodeHexString(actual), null);
        }
    }

    private byte[] awaitDigest(Future<byte[]> digest) throws ExecutionException, InterruptedIOException {
        try {
            return digest.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting for the digest of a chunk of " + path);
        }
    }

    private SavepointCorruptedException shorter(int index, int got) {
        long offset = chunks.offset(index);
        return new SavepointCorruptedException(path, offset, "Payload of " + what + " is shorter than the manifest"
                + " says: chunk " + index + " of " + count + ", at byte offset " + offset + ", ends after " + got
                + " of its " + chunks.length(index, length) + " bytes", length + " bytes", (offset + got) + " bytes",
                null);
    }

    /** Checks that the file has no byte at {@code offset}, the manifest's length. */
    private void requireEnd(long offset) throws IOException {
        if (in.read() != -1) {
            throw new SavepointCorruptedException(path, offset, "Payload of " + what + " is longer than the manifest"
                    + " says", length + " bytes", "at least " + (length + 1) + " bytes", null);
        }
    }

    /** Stops the read-ahead (it ends after its current read) and cancels hashes not started. */
    private void stopReadAhead() {
        stopped = true;
        free.add(STOP);
        for (Chunk c : ready) {
            if (c.digest != null) {
                c.digest.cancel(false);
            }
        }
    }

    /** Stops reading ahead, waits for the read-ahead thread to leave the file, and closes it. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        stopReadAhead();
        if (readAheadStarted) {
            boolean interrupted = false;
            while (true) {
                try {
                    readerDone.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        current = null;
        ready.clear();
        free.clear();
        in.close();
    }
}
