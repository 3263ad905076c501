package io.keepsake.storage.internal;

import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The "sync, then close" of one attempt's payload files, run off the writer's thread so that the
 * payloads of a savepoint become durable in parallel (and beside the metadata write) instead of
 * one after another in each stream's {@code close()}.
 *
 * <p>Contract: {@link #submit} takes a stream whose bytes have all been written and queues its
 * {@code sync()} followed by its {@code close()} on a small shared pool ({@link #THREADS} daemon
 * threads, idle ones end). The pairing stays per stream: HDFS streams hsync before they close,
 * and an S3 stream's sync is what completes its upload. {@link #awaitAll} returns only when every
 * submitted file was synced and closed, or at the first file (in submission order) whose sync or
 * close failed, naming it, without waiting for the later ones (the writer then aborts the attempt,
 * and {@link #abandon} waits for those); a task still queued is run by the waiting thread itself,
 * so a commit never waits behind other attempts' syncs on a busy pool. {@link #abandon} (the attempt is aborted) closes queued files
 * without syncing them (an S3 upload is aborted, nothing appears), waits for those being synced,
 * and closes every file submitted afterwards without syncing it; if the waiting thread is
 * interrupted it returns at once and each late task deletes its own file once closed, so an
 * abort neither hangs on an interrupt nor leaves a file behind.
 *
 * <p>Thread-safe. What it deliberately does not do: it never retries a failed sync (a file whose
 * sync failed may have lost bytes, so the commit must fail), and it never publishes anything.
 */
final class PayloadSyncs {

    /** How many files the shared pool syncs at once, over all attempts of the JVM. */
    static final int THREADS = 4;

    private static final Logger LOG = LoggerFactory.getLogger(PayloadSyncs.class);

    private static final Executor SHARED = syncers();

    /**
     * A test-only switch: when this system property is {@code true}, attempts created while it is
     * set run each "sync, then close" on the thread that closes the payload stream instead of the
     * shared pool, so that a schedule explorer sees every file-system call on an actor's own thread.
     */
    public static final String INLINE_PROPERTY = "keepsake.test.inline-payload-syncs";

    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int CANCELLED = 2;

    private final LateDelete lateDelete;
    private final Executor executor;
    private final List<Task> tasks = new ArrayList<>();
    private volatile boolean abandoned;

    /** The syncs of one attempt on the shared pool; {@code fs} deletes a file an interrupted abandon left. */
    PayloadSyncs(StorageFileSystem fs) {
        this(path -> fs.delete(path, false), Boolean.getBoolean(INLINE_PROPERTY) ? Runnable::run : SHARED);
    }

    /** The syncs of one attempt on {@code executor} (tests hold tasks in a queue with it). */
    PayloadSyncs(LateDelete lateDelete, Executor executor) {
        this.lateDelete = lateDelete;
        this.executor = executor;
    }

    /** Deletes a file whose sync finished after its attempt was abandoned. */
    @FunctionalInterface
    interface LateDelete {
        void delete(String path) throws IOException;
    }

    /**
     * Queues "sync, then close" of {@code out}, whose writing is finished; after {@link #abandon}
     * the stream is closed at once, without a sync.
     */
    void submit(String path, SyncableOutputStream out) {
        Task task = new Task(path, out);
        synchronized (this) {
            if (!abandoned) {
                tasks.add(task);
                try {
                    executor.execute(task);
                } catch (RejectedExecutionException e) {
                    task.run();
                }
                return;
            }
        }
        task.cancel();
    }

    /**
     * Waits until every submitted file is synced and closed, running still-queued ones on this
     * thread; returns at the first failure without waiting for the files after it.
     *
     * @return the first file whose sync or close failed, with its error; empty when all are durable
     * @throws InterruptedIOException when interrupted while a file is being synced elsewhere
     */
    Optional<Failure> awaitAll() throws InterruptedIOException {
        List<Task> snapshot;
        synchronized (this) {
            snapshot = List.copyOf(tasks);
        }
        for (Task task : snapshot) {
            task.run();
        }
        for (Task task : snapshot) {
            Throwable error = task.await();
            if (error != null) {
                return Optional.of(new Failure(task.path, error));
            }
        }
        return Optional.empty();
    }

    /**
     * Closes queued files without syncing them and waits for those being synced; every later
     * {@link #submit} closes its file at once. Interrupted, it returns without waiting, and the
     * files still being synced delete themselves once closed.
     */
    void abandon() {
        List<Task> snapshot;
        synchronized (this) {
            if (abandoned) {
                return;
            }
            abandoned = true;
            snapshot = List.copyOf(tasks);
        }
        for (Task task : snapshot) {
            task.cancel();
        }
        for (Task task : snapshot) {
            try {
                task.await();
            } catch (InterruptedIOException e) {
                Thread.currentThread().interrupt();
                LOG.warn("Interrupted while payload syncs of an aborted attempt finish; each deletes its file when"
                        + " done ({})", task.path);
                return;
            }
        }
    }

    /** A file that could not be made durable, and why. */
    record Failure(String path, Throwable cause) {
    }

    private static Executor syncers() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "keepsake-payload-sync-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** One file's sync and close; runs once, on whichever thread claims it first. */
    private final class Task implements Runnable {
        private final String path;
        private final SyncableOutputStream out;
        private final AtomicInteger state = new AtomicInteger(QUEUED);
        private final CompletableFuture<Throwable> done = new CompletableFuture<>();

        Task(String path, SyncableOutputStream out) {
            this.path = path;
            this.out = out;
        }

        @Override
        public void run() {
            if (!state.compareAndSet(QUEUED, RUNNING)) {
                return;
            }
            Throwable error = null;
            try {
                out.sync();
            } catch (Throwable e) {
                error = e;
            }
            try {
                out.close();
            } catch (Throwable e) {
                if (error == null) {
                    error = e;
                } else {
                    error.addSuppressed(e);
                }
            }
            if (abandoned) {
                deleteLate();
            }
            done.complete(error);
        }

        /** Closes the file without syncing it, unless a thread already claimed it. */
        void cancel() {
            if (!state.compareAndSet(QUEUED, CANCELLED)) {
                return;
            }
            try {
                out.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("Closing an abandoned payload failed ({})", path, e);
            }
            done.complete(new IOException("The payload's sync was abandoned with its attempt (" + path + ")"));
        }

        /** The error of the sync or close, or null; waits for the thread that runs it. */
        Throwable await() throws InterruptedIOException {
            try {
                return done.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for the sync of a payload (" + path + ")");
            } catch (ExecutionException e) {
                return e.getCause();
            }
        }

        private void deleteLate() {
            try {
                lateDelete.delete(path);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot delete a payload of an aborted attempt; garbage collection will ({})", path, e);
            }
        }
    }
}
