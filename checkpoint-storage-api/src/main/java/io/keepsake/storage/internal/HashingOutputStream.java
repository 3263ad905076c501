package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts and hashes bytes on their way to the wrapped stream, so a payload is never read again to
 * checksum it: by default the plain SHA-256 of everything written, or any {@link PayloadDigest}
 * (the chunk digests of format version 2).
 *
 * <p>A write of {@link #PARALLEL_MIN_BYTES} or more (the encoder hands state arrays over whole) is
 * hashed on another thread while this thread writes the same bytes to the wrapped stream; the
 * write returns only when both are done, so the caller may reuse its array at once, the digest
 * sees every byte exactly once and in order, and no copy is made. On two cores a large payload
 * then costs about the longer of hashing and writing instead of their sum. Smaller writes are
 * hashed inline: handing them over would cost more than it saves. Not thread-safe: one writer.
 */
public class HashingOutputStream extends FilterOutputStream {

    /** Writes from this size on are hashed on another thread while they are written: 256 KiB. */
    public static final int PARALLEL_MIN_BYTES = 256 * 1024;

    private static final Executor HASHERS = hashers();

    private final PayloadDigest digest;
    private long length;

    /** A stream that computes the plain SHA-256 of what passes. */
    public HashingOutputStream(OutputStream out) {
        this(out, PayloadDigest.whole());
    }

    /** A stream that feeds what passes to {@code digest}. */
    HashingOutputStream(OutputStream out, PayloadDigest digest) {
        super(out);
        this.digest = digest;
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
        digest.update((byte) b);
        length++;
    }

    /**
     * Writes and hashes {@code len} bytes; from {@link #PARALLEL_MIN_BYTES} on, the hash runs on
     * another thread while they are written, and this returns (or throws) only once it is done.
     */
    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (len < PARALLEL_MIN_BYTES) {
            out.write(b, off, len);
            digest.update(b, off, len);
            length += len;
            return;
        }
        CompletableFuture<Void> hashed = startHashing(() -> digest.update(b, off, len));
        try {
            out.write(b, off, len);
        } finally {
            awaitHash(hashed);
        }
        length += len;
    }

    /**
     * Runs every task, the first on this thread and the others on the hashing threads, and returns
     * when all are done (without giving up on an interrupt: the tasks use the caller's array).
     *
     * @throws IllegalStateException when a task failed
     */
    static void runAll(List<Runnable> tasks) {
        List<CompletableFuture<Void>> others = new ArrayList<>();
        for (Runnable task : tasks.subList(1, tasks.size())) {
            others.add(startHashing(task));
        }
        try {
            tasks.get(0).run();
        } finally {
            for (CompletableFuture<Void> done : others) {
                try {
                    awaitHash(done);
                } catch (IOException e) {
                    throw new IllegalStateException(e.getMessage(), e.getCause());
                }
            }
        }
    }

    /**
     * Starts {@code task} on a hashing thread, or runs it on this one when no thread can start;
     * the future completes when it ends, exceptionally when it throws.
     */
    private static CompletableFuture<Void> startHashing(Runnable task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable run = () -> {
            try {
                task.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        };
        try {
            HASHERS.execute(run);
        } catch (RejectedExecutionException e) {
            run.run();
        }
        return done;
    }

    /** Waits for the hash of one write, without giving up on an interrupt (the caller's array is in use until then). */
    private static void awaitHash(CompletableFuture<Void> hashed) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    hashed.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw new IOException("Hashing a payload failed: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Bytes written so far. */
    public long length() {
        return length;
    }

    /**
     * The manifest's digest of everything written, lowercase hex: the SHA-256 unless another
     * {@link PayloadDigest} was given; call once, after the last write.
     */
    public String sha256Hex() {
        return digest.finishHex(length);
    }

    /** The chunk digests, after {@link #sha256Hex}; null when the digest has none. */
    public ChunkDigests chunks() {
        return digest.chunks();
    }

    /** A fresh SHA-256 digest. */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    private static Executor hashers() {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "keepsake-payload-write-hash-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }
}
