package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;

import java.io.InputStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.Callable;

/**
 * The threads that check format-version-2 payloads of one storage: a fixed number of verifier
 * threads ({@code savepoint.verify-threads}, by default one per available processor) shared by
 * every payload stream the storage opens, and one read-ahead thread per stream being read. Each
 * {@link ChunkVerifyingInputStream} holds at most {@link #buffersPerStream()} chunk buffers, so the
 * memory a stream takes is that many chunks, whatever the payload's size. Threads are daemons,
 * started when first needed and ended after 30 idle seconds, so a storage that never reads a
 * chunked payload starts none. Thread-safe.
 */
public final class ChunkVerification implements AutoCloseable {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final int threads;
    private final ThreadPoolExecutor verifiers;
    private final ThreadPoolExecutor readers;

    /**
     * Verification with {@code threads} verifier threads.
     *
     * @throws IllegalArgumentException when {@code threads} is below 1
     */
    public ChunkVerification(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("Cannot verify chunks on " + threads + " threads");
        }
        this.threads = threads;
        int pool = POOLS.incrementAndGet();
        this.verifiers = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                daemons("keepsake-chunk-verify-" + pool + "-"));
        this.verifiers.allowCoreThreadTimeOut(true);
        this.readers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemons("keepsake-chunk-read-" + pool + "-"));
    }

    private static java.util.concurrent.ThreadFactory daemons(String prefix) {
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
        return new ChunkVerifyingInputStream(raw, path, what, entry.length(), entry.chunks(), this);
    }

    /** Hashes one chunk on a verifier thread. */
    Future<byte[]> verify(Callable<byte[]> hash) {
        return verifiers.submit(hash);
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
