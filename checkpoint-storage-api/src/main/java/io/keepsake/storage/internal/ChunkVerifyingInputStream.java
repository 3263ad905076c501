package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.KeptArrayInput;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.spi.SegmentedInputStream;
import org.apache.commons.codec.binary.Hex;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.security.MessageDigest;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;

/**
 * A format-version-2 payload, checked chunk by chunk on several cores, delivered in order: a
 * chunk's bytes are handed out only after that chunk's SHA-256 matched the manifest, and the last
 * byte only after the file was found to end at the manifest's length. A damaged chunk is a
 * {@link SavepointCorruptedException} naming the file and the chunk's byte offset
 * ({@link SavepointCorruptedException#offset()}); so is a file that ends early (at the offset of the
 * chunk it ends in) or goes on past its length.
 *
 * <p>A payload of at most {@link ChunkVerification#READ_WHOLE_MAX_BYTES} bytes (or of at most
 * {@link ChunkVerification#buffersPerStream()} chunks) is read whole by the consumer's thread at its first read, each chunk handed to the verifier threads as soon as it is
 * in memory, so hashing overlaps the reading without a thread of its own. A longer payload has one
 * read-ahead thread that reads chunk after chunk into that many buffers and hands each to the
 * verifier threads, while the consumer takes the chunks in order and gives each buffer back when
 * it has read it; reading, hashing and the consumer's decoding overlap, and at most that many
 * chunks are in memory, whatever the payload's size. Either way, a consumer that needs a chunk
 * whose hash no verifier has started yet computes it itself instead of waiting, so no core idles
 * while work is queued. Buffers come from and go back to the verification's pool. A stream that is
 * closed, or that failed, stops its read-ahead. A file system that has a channel for the file
 * (the local disk) is read straight into direct buffers, which spares the copy through a temporary
 * buffer that a read into a heap array takes. Not thread-safe: one consumer.
 */
public final class ChunkVerifyingInputStream extends SegmentedInputStream implements KeptArrayInput {

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(HashingOutputStream::sha256);

    /** Put among the free buffers to wake a read-ahead that waits for one, after {@link #stopped} was set. */
    private static final ByteBuffer STOP = ByteBuffer.allocate(0);

    /** The file as a stream, or null when it is read through {@link #channel}. */
    private final InputStream in;
    /** The file as a channel read into direct buffers, or null when it is read through {@link #in}. */
    private final ReadableByteChannel channel;
    private final String path;
    private final String what;
    private final long length;
    private final ChunkDigests chunks;
    private final int count;
    private final int bufferLength;
    private final ChunkVerification verification;
    private final boolean pipelined;
    private final BlockingQueue<ByteBuffer> free = new LinkedBlockingQueue<>();
    private final BlockingQueue<Chunk> ready = new LinkedBlockingQueue<>();
    private final CountDownLatch readerDone = new CountDownLatch(1);
    private boolean readStarted;
    private volatile boolean stopped;
    private int next;
    private Chunk current;
    private int position;

    /** One chunk as it was read: its bytes and their digest (computed or to be), or why it could not be read. */
    private record Chunk(int index, ByteBuffer buffer, int length, RunnableFuture<byte[]> digest, Throwable failure) {
    }

    ChunkVerifyingInputStream(InputStream in, ReadableByteChannel channel, String path, String what, long length,
                              ChunkDigests chunks, ChunkVerification verification) {
        super("Payload stream is closed (" + path + ")");
        if ((in == null) == (channel == null)) {
            throw new IllegalArgumentException("A payload is read from a stream or from a channel (" + path + ")");
        }
        this.in = in;
        this.channel = channel;
        this.path = path;
        this.what = what;
        this.length = length;
        this.chunks = chunks;
        this.count = chunks.count();
        this.bufferLength = (int) Math.min(chunks.chunkSize(), length);
        this.verification = verification;
        this.pipelined = !verification.readsWhole(length, count);
    }

    @Override
    protected int remaining() {
        return current == null ? 0 : current.length - position;
    }

    @Override
    protected void copy(byte[] b, int off, int n) {
        current.buffer.get(position, b, off, n);
        position += n;
    }

    @Override
    protected void drop(int n) {
        position += n;
    }

    /** The bytes were verified before they were copied out, so keeping them needs nothing more. */
    @Override
    public int readKept(byte[] b, int off, int len) throws IOException {
        return read(b, off, len);
    }

    /** Verified chunks are skipped without a copy. */
    @Override
    public long discard(long n) throws IOException {
        return skip(n);
    }

    /**
     * Makes {@link #current} the next verified chunk; false at the end of the payload (which was
     * checked to end there).
     */
    @Override
    protected boolean next() throws IOException {
        if (current != null) {
            release(current.buffer);
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
            if (!readStarted) {
                startReading();
                readStarted = true;
            }
            chunk = take();
            requireVerified(chunk);
        } catch (IOException | RuntimeException | Error e) {
            fail(e);
            stopReadAhead();
            throw e;
        }
        next++;
        current = chunk;
        position = 0;
        return true;
    }

    /** A consumed chunk's buffer: back to the read-ahead, or to the pool when the payload was read whole. */
    private void release(ByteBuffer buffer) {
        if (pipelined) {
            free.add(buffer);
        } else {
            verification.giveBack(buffer);
        }
    }

    /**
     * Reads a short payload whole on this thread, or starts the read-ahead of a long one with its
     * buffers.
     */
    private void startReading() throws IOException {
        if (!pipelined) {
            readChunks(count);
            return;
        }
        for (int i = 0; i < verification.buffersPerStream(); i++) {
            free.add(verification.borrow(bufferLength, channel != null));
        }
        try {
            verification.readAhead(this::readAheadLoop);
        } catch (RejectedExecutionException e) {
            throw new IOException("Cannot read payload ahead: its storage is closed (" + path + ")", e);
        }
    }

    private Chunk take() throws InterruptedIOException {
        try {
            return ready.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting for chunk " + next + " of " + path);
        }
    }

    /**
     * The read-ahead of a long payload: every chunk, each into a buffer given back by the consumer;
     * an error of the JVM (such as an OutOfMemoryError) is queued for the consumer, which would
     * otherwise wait for a chunk that never comes.
     */
    private void readAheadLoop() {
        try {
            readChunks(count);
        } catch (Error e) {
            ready.add(failed(-1, e));
        } finally {
            readerDone.countDown();
        }
    }

    /**
     * Reads chunks {@code 0..n-1} in order, each into a buffer (a free one of the read-ahead, waiting
     * for it, or a fresh one from the pool when the payload is read whole), hands its hash to the
     * verifier threads and queues it for the consumer; after the last chunk the file must end.
     * Stops at the first failure, which is queued in place of the chunk. The last chunk of a payload
     * read whole is not handed over: the consumer hashes it when it gets there, since this thread is
     * the consumer and the verifiers still have the others to hash.
     */
    private void readChunks(int n) {
        for (int i = 0; i < n; i++) {
            ByteBuffer buffer;
            if (pipelined) {
                try {
                    buffer = free.take();
                } catch (InterruptedException e) {
                    ready.add(failed(i, new InterruptedIOException("Reading " + path + " ahead was interrupted")));
                    Thread.currentThread().interrupt();
                    return;
                }
                if (stopped) {
                    return;
                }
            } else {
                buffer = verification.borrow(bufferLength, channel != null);
            }
            int len = chunks.length(i, length);
            try {
                int got = fill(buffer, len);
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
            RunnableFuture<byte[]> digest = new FutureTask<>(() -> {
                MessageDigest sha = SHA256.get();
                sha.update(buffer.duplicate().position(0).limit(len));
                return sha.digest();
            });
            if (pipelined || i < n - 1) {
                try {
                    verification.verify(digest);
                } catch (RejectedExecutionException e) {
                    // the storage is closing: the consumer hashes the chunk itself when it needs it
                }
            }
            ready.add(new Chunk(i, buffer, len, digest, null));
        }
    }

    private static Chunk failed(int index, Throwable failure) {
        return new Chunk(index, null, 0, null, failure);
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
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IOException("Hashing chunk " + chunk.index + " of " + path + " failed: " + e.getCause(),
                    e.getCause());
        }
        if (!chunks.matches(chunk.index, actual)) {
            long offset = chunks.offset(chunk.index);
            throw new SavepointCorruptedException(path, offset, "Payload chunk " + chunk.index + " of " + count
                    + " (bytes " + offset + " to " + (offset + chunk.length - 1) + ") of " + what
                    + " does not match the SHA-256 the manifest records for chunk " + chunk.index + "; expected and"
                    + " found are chunk " + chunk.index + "'s own digests (keepsake inspect --chunks lists each"
                    + " chunk's), not the payload's sha256, which is derived from all its chunks",
                    chunks.sha256Hex(chunk.index),
                    Hex.encodeHexString(actual), null);
        }
    }

    /**
     * The chunk's digest; computed on this thread when no verifier has started it yet (a task that
     * has started or finished does not run again), otherwise waited for.
     */
    private byte[] awaitDigest(RunnableFuture<byte[]> digest) throws ExecutionException, InterruptedIOException {
        if (!digest.isDone()) {
            digest.run();
        }
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

    /**
     * Reads the next {@code len} bytes of the file into the start of {@code buffer}; fewer only at
     * the file's end.
     */
    private int fill(ByteBuffer buffer, int len) throws IOException {
        if (in != null) {
            return in.readNBytes(buffer.array(), buffer.arrayOffset(), len);
        }
        buffer.clear().limit(len);
        while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
            // a channel of a file blocks until it has read at least a byte or reached the end
        }
        return buffer.position();
    }

    /** Whether the file has another byte. */
    private boolean hasMore() throws IOException {
        if (in != null) {
            return in.read() != -1;
        }
        ByteBuffer probe = ByteBuffer.allocate(1);
        int n;
        do {
            n = channel.read(probe);
        } while (n == 0);
        return n > 0;
    }

    /** Checks that the file has no byte at {@code offset}, the manifest's length. */
    private void requireEnd(long offset) throws IOException {
        if (hasMore()) {
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

    /**
     * Stops reading ahead, waits for the read-ahead thread to leave the file, gives the buffers back
     * to the pool and closes the file. A verifier may still be hashing a buffer given back (its
     * result is never looked at), so a buffer's next user only ever writes bytes it reads itself.
     */
    @Override
    public void close() throws IOException {
        if (!markClosed()) {
            return;
        }
        stopReadAhead();
        if (pipelined && readStarted) {
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
        if (current != null) {
            verification.giveBack(current.buffer);
            current = null;
        }
        for (Chunk c : ready) {
            if (c.buffer != null) {
                verification.giveBack(c.buffer);
            }
        }
        for (ByteBuffer buffer : free) {
            verification.giveBack(buffer);
        }
        ready.clear();
        free.clear();
        if (in != null) {
            in.close();
        } else {
            channel.close();
        }
    }
}
