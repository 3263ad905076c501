package io.keepsake.storage.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One file-system call started on a shared pool so that the caller's next call overlaps it, and
 * joined before anything depends on it: on an object store two independent requests then cost one
 * round trip instead of two. The call touches no state of its caller (it only reads or writes the
 * file system and returns a value), and the caller joins it before it acts on what it answers or
 * aborts its attempt, so nothing the caller decides depends on which of the two finished first.
 *
 * <p>Under the test switch {@link PayloadSyncs#INLINE_PROPERTY} the call runs when joined, on the
 * joining thread, so that a schedule explorer sees every call on an actor's own thread (the order
 * then explored is the later one: the caller's own call first, this one after it).
 */
final class Overlapped<T> {

    /** A file-system call. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws IOException;
    }

    private static final ExecutorService POOL = pool();

    private final Call<T> call;
    private final CompletableFuture<T> result;

    private Overlapped(Call<T> call, CompletableFuture<T> result) {
        this.call = call;
        this.result = result;
    }

    /** Starts {@code call} now (or, under the test switch, when it is joined). */
    static <T> Overlapped<T> start(Call<T> call) {
        if (Boolean.getBoolean(PayloadSyncs.INLINE_PROPERTY)) {
            return new Overlapped<>(call, null);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        POOL.execute(() -> {
            try {
                result.complete(call.run());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return new Overlapped<>(call, result);
    }

    /** Runs {@code call} now, on this thread; {@link #join} then answers what it did. */
    static <T> Overlapped<T> now(Call<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            result.complete(call.run());
        } catch (Throwable e) {
            result.completeExceptionally(e);
        }
        return new Overlapped<>(call, result);
    }

    /**
     * Waits for the call and returns what it returned, or throws what it threw. An interrupt while
     * waiting is an {@link InterruptedIOException}; the call itself still ends on its own.
     */
    T join() throws IOException {
        if (result == null) {
            return call.run();
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    // keep waiting: the caller must not act before the call ended
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    if (cause instanceof Error error) {
                        throw error;
                    }
                    throw new IOException(cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static ExecutorService pool() {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "keepsake-overlapped-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }
}
