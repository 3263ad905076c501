package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads that check format-version-2 payloads of one storage: a fixed number of verifier
 * threads ({@code savepoint.verify-threads}, by default one per available processor) shared by
 * every payload stream the storage opens, and one read-ahead thread per stream being read. Each
 * {@link ChunkVerifyingInputStream} holds at most {@link #buffersPerStream()} chunk buffers, or a
 * payload of at most {@link #READ_WHOLE_MAX_BYTES} whole, so the memory a stream takes is bounded
 * whatever the payload's size; streams give their buffers back when they are done with them, and
 * the storage keeps up to {@link #READ_WHOLE_MAX_BYTES} of them for the next stream, so that
 * restoring one savepoint after another does not allocate (and zero) its buffers again. Threads are daemons,
 * started when first needed and ended after 30 idle seconds, so a storage that never reads a
 * chunked payload starts none. Thread-safe.
 */
public final class ChunkVerification implements AutoCloseable {

    private static final AtomicInteger POOLS = new AtomicInteger();

    /**
     * A payload of at most this many bytes is read whole by the thread that reads it, its chunks
     * hashed by the verifier threads meanwhile, without a read-ahead thread: 4 MiB.
     */
    public static final int READ_WHOLE_MAX_BYTES = 4 << 20;

    /** Buffers below this size are cheaper to allocate than to keep: 64 KiB. */
    static final int POOLED_MIN_BYTES = 64 * 1024;

    private final int threads;
    private final int readWholeMaxBytes;
    private final ThreadPoolExecutor verifiers;
    private final ThreadPoolExecutor readers;
    /** Chunk buffers streams gave back, at most {@link #READ_WHOLE_MAX_BYTES} bytes of them in both queues. */
    private final Queue<ByteBuffer> heapPool = new ConcurrentLinkedQueue<>();
    private final Queue<ByteBuffer> directPool = new ConcurrentLinkedQueue<>();
    private final AtomicLong pooledBytes = new AtomicLong();

    /**
     * Verification with {@code threads} verifier threads.
     *
     * @throws IllegalArgumentException when {@code threads} is below 1
     */
    public ChunkVerification(int threads) {
        this(threads, READ_WHOLE_MAX_BYTES);
    }

    /**
     * Verification with {@code threads} verifier threads that reads payloads of at most
     * {@code readWholeMaxBytes} whole (and payloads of at most {@link #buffersPerStream()} chunks
     * whatever their size): for tests that need the read-ahead with small chunks.
     */
    ChunkVerification(int threads, int readWholeMaxBytes) {
        if (threads < 1) {
            throw new IllegalArgumentException("Cannot verify chunks on " + threads + " threads");
        }
        this.threads = threads;
        this.readWholeMaxBytes = readWholeMaxBytes;
        int pool = POOLS.incrementAndGet();
        this.verifiers = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                daemons("keepsake-chunk-verify-" + pool + "-"));
        this.verifiers.allowCoreThreadTimeOut(true);
        this.readers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemons("keepsake-chunk-read-" + pool + "-"));
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** The default number of verifier threads: one per available processor. */
    public static int defaultThreads() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** Whether a payload of {@code length} bytes in {@code chunks} chunks is read whole by its reader, without a read-ahead. */
    boolean readsWhole(long length, int chunks) {
        return length <= readWholeMaxBytes || chunks <= buffersPerStream();
    }

    /** The number of verifier threads. */
    public int threads() {
        return threads;
    }

    /**
     * Chunk buffers one stream holds at most: one being read ahead, one per verifier thread being
     * hashed, and one being handed to the consumer.
     */
    public int buffersPerStream() {
        return threads + 2;
    }

    /**
     * Opens a stream that delivers the bytes of {@code raw} only after their chunk verified
     * against {@code entry}'s chunk digests; it closes {@code raw}.
     *
     * @param path names the file in errors
     * @param what names the payload, savepoint and job in errors
     */
    public ChunkVerifyingInputStream open(InputStream raw, String path, String what, ManifestEntry entry) {
        return new ChunkVerifyingInputStream(raw, null, path, what, entry.length(), entry.chunks(), this);
    }

    /**
     * Like {@link #open(InputStream, String, String, ManifestEntry)}, reading a channel of the file
     * into direct buffers; it closes {@code raw}.
     */
    public ChunkVerifyingInputStream open(ReadableByteChannel raw, String path, String what, ManifestEntry entry) {
        return new ChunkVerifyingInputStream(null, raw, path, what, entry.length(), entry.chunks(), this);
    }

    /**
     * Queues one chunk's hash for a verifier thread; the stream may run it itself first.
     *
     * @throws RejectedExecutionException when the storage is closed
     */
    void verify(RunnableFuture<byte[]> hash) {
        verifiers.execute(hash);
    }

    /**
     * A buffer of at least {@code length} bytes, direct or on the heap: a pooled one of that kind
     * when it is large enough, otherwise a new one. Its contents are whatever its last user left.
     */
    ByteBuffer borrow(int length, boolean direct) {
        if (length >= POOLED_MIN_BYTES) {
            ByteBuffer pooled = (direct ? directPool : heapPool).poll();
            if (pooled != null) {
                pooledBytes.addAndGet(-pooled.capacity());
                if (pooled.capacity() >= length) {
                    return pooled.clear();
                }
            }
        }
        return direct ? ByteBuffer.allocateDirect(length) : ByteBuffer.allocate(length);
    }

    /**
     * Keeps a buffer for the next stream, unless it is small or the pool would hold more than
     * {@link #READ_WHOLE_MAX_BYTES} bytes with it.
     */
    void giveBack(ByteBuffer buffer) {
        if (buffer.capacity() < POOLED_MIN_BYTES) {
            return;
        }
        if (pooledBytes.addAndGet(buffer.capacity()) <= READ_WHOLE_MAX_BYTES) {
            (buffer.isDirect() ? directPool : heapPool).offer(buffer);
        } else {
            pooledBytes.addAndGet(-buffer.capacity());
        }
    }

    /** Runs one stream's read-ahead on a thread of its own. */
    Future<?> readAhead(Runnable reader) {
        return readers.submit(reader);
    }

    /** Ends the threads once their work is done; streams opened after this fail to read ahead. */
    @Override
    public void close() {
        verifiers.shutdown();
        readers.shutdown();
    }
}
