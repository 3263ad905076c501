package io.keepsake.storage.internal;

import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The attempts this process has in flight, and the leases that make them recognisable to every
 * other process on the same roots (I8). An attempt holds a lease file,
 * {@code <job>/.staging/<attemptId>.lease}, rewritten by a background thread every quarter of the
 * lease timeout; garbage collection in any process leaves alone every attempt whose lease was
 * written less than one timeout ago. A writer publishes only while its last renewal is younger
 * than half the timeout, so a process that stalled (or lost its lease file) fails its commit
 * instead of racing a collector that already gave it up. Shared by every view of one storage.
 *
 * <p>An attempt that published may leave its last deletes (its decision, then its lease) to a
 * background executor of the storage ({@link #endAfterCommit}): its lease is no longer renewed from
 * the moment it committed, but it stays registered here, so a collection in this process keeps
 * taking the attempt for alive, until those deletes ran; a collection or delete started in this
 * process first waits a bounded time for them and for the tidy of the newest markers that
 * followed ({@link #awaitTidying}). {@link #close} waits a bounded time for both too; whatever is left then is garbage collection's, as after a crash
 * between publication and tidying. It also remembers which savepoint roots this storage found or made marked
 * ({@link RootMarker}), so that the marker is looked for once per root and instance.
 * Thread-safe.
 */
public final class InFlightAttempts implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InFlightAttempts.class);

    private static final String OWNER = ownerDescription();

    /**
     * The name of the thread that renews leases; its file-system calls come from a timer, not from
     * the protocol, so a test counting the protocol's calls leaves them out by this name.
     */
    public static final String RENEWER_THREAD_NAME = "keepsake-lease-renewer";

    /** How every lease file Keepsake writes begins: collections remove only lease files that do. */
    static final byte[] LEASE_PREFIX = "attempt lease, owner ".getBytes(StandardCharsets.UTF_8);

    private final StorageFileSystem fs;
    private final long timeoutMillis;
    /** Keyed by lease path, one per attempt (attempts at one id share their work directory without atomic rename). */
    private final Map<String, Lease> byLeasePath = new ConcurrentHashMap<>();
    private ScheduledExecutorService renewer;
    private ScheduledFuture<?> renewal;
    /** The savepoint roots known to hold their marker. */
    private final Set<String> markedRoots = ConcurrentHashMap.newKeySet();
    /** Runs the deletes that follow a publication; null until the first one, unless given. */
    private Executor tidying;
    /** True when {@link #tidying} was given, not created here (its owner ends it). */
    private final boolean tidyingGiven;
    private volatile boolean closed;

    /**
     * The name of the thread that runs the deletes after a publication; a test counting the calls
     * a commit waits for leaves them out by this name.
     */
    public static final String TIDYING_THREAD_NAME = "keepsake-tidying";

    /** How long {@link #close} waits for the deletes after publications still queued. */
    static final long CLOSE_WAIT_MILLIS = 10_000;

    /** A registry whose leases expire {@code timeoutMillis} after their last renewal. */
    public InFlightAttempts(StorageFileSystem fs, long timeoutMillis) {
        this(fs, timeoutMillis, null);
    }

    /**
     * Like {@link #InFlightAttempts(StorageFileSystem, long)}, running the deletes after each
     * publication on {@code tidying} (null: a thread of its own): for a schedule explorer that runs
     * them as an actor of their own.
     */
    public InFlightAttempts(StorageFileSystem fs, long timeoutMillis, Executor tidying) {
        this.fs = fs;
        this.timeoutMillis = timeoutMillis;
        this.tidying = tidying;
        this.tidyingGiven = tidying != null;
    }

    /** True when this storage already found or wrote the marker of {@code root}. */
    boolean rootKnownMarked(String root) {
        return markedRoots.contains(root);
    }

    /** Records that {@code root} holds its marker. */
    void rootMarked(String root) {
        markedRoots.add(root);
    }

    /** How long a lease protects an attempt without renewal. */
    public long timeoutMillis() {
        return timeoutMillis;
    }

    /** One attempt's lease. */
    static final class Lease {
        final String workDirectory;
        final String path;
        volatile long renewedNanos;
        volatile boolean lost;
        /** Set, under the lease's lock, once the attempt ended; a renewal never writes the file after it. */
        boolean released;

        Lease(String workDirectory, String path) {
            this.workDirectory = workDirectory;
            this.path = path;
        }
    }

    /**
     * Records an attempt as in flight and writes its lease file (creating the staging folder).
     *
     * @throws IOException when the lease cannot be written; the attempt is then not registered
     */
    Lease acquire(String workDirectory, String leasePath) throws IOException {
        Lease lease = new Lease(workDirectory, leasePath);
        // Under the lease's lock, so that a renewal that sees the new entry waits for its first write
        // instead of finding no file and taking the lease for lost.
        synchronized (lease) {
            byLeasePath.put(leasePath, lease);
            try {
                write(lease, true);
            } catch (IOException | RuntimeException e) {
                byLeasePath.remove(leasePath, lease);
                lease.released = true;
                if (!(e instanceof FileAlreadyExistsException)) {
                    removeUnregistered(leasePath, e);
                }
                throw e;
            }
        }
        startRenewing();
        return lease;
    }

    /**
     * Removes the file of a lease whose first write failed: a file system may have created it before
     * the write, sync or close failed (HDFS fails a close whose last block is not yet reported,
     * after the file exists). Nobody renews or removes it otherwise, and until it ages past the
     * timeout every collection would take its attempt for alive. The name is this attempt's alone.
     */
    private void removeUnregistered(String leasePath, Exception cause) {
        try {
            fs.delete(leasePath, false);
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(e);
            LOG.debug("Cannot remove the lease {} whose write failed; garbage collection will once it expires",
                    leasePath, e);
        }
    }

    /** Records an attempt as finished (committed or aborted) and removes its lease file, best effort. */
    void release(Lease lease) {
        if (lease == null) {
            return;
        }
        byLeasePath.remove(lease.path, lease);
        // A renewal that already listed this lease must not write its file again after it is deleted
        // (an orphaned fresh lease would hold up gc for a whole timeout): the two take the lease's lock.
        synchronized (lease) {
            lease.released = true;
            try {
                fs.delete(lease.path, false);
            } catch (IOException | RuntimeException e) {
                LOG.debug("Cannot remove lease {}; garbage collection will", lease.path, e);
            }
        }
    }

    /**
     * Ends an attempt that published: from now on its lease is not renewed, and {@code tidy} (the
     * removal of its decision), then the removal of its lease file, run on the storage's background
     * executor, after which the attempt is no longer registered. Until then a collection in this
     * process still takes the attempt for alive, and one in another process sees a lease renewed
     * less than a timeout ago: nobody acts on the decision meanwhile except the holder of a delete
     * of the published savepoint, which removes the decision itself first. A removal that fails or
     * never runs (the storage closed, the process died) leaves the files to garbage collection.
     */
    void endAfterCommit(Lease lease, Runnable tidy) {
        if (lease == null) {
            return;
        }
        synchronized (lease) {
            lease.released = true;
        }
        Runnable task = () -> {
            try {
                tidy.run();
                deleteLeaseFile(lease);
            } finally {
                byLeasePath.remove(lease.path, lease);
            }
        };
        try {
            tidyingExecutor().execute(task);
        } catch (RejectedExecutionException closing) {
            byLeasePath.remove(lease.path, lease);
            LOG.debug("Storage closing: the decision and lease of a published attempt are left to garbage collection"
                    + " ({})", lease.path);
        }
    }

    private synchronized Executor tidyingExecutor() {
        if (tidying == null) {
            if (closed) {
                throw new RejectedExecutionException("closed");
            }
            tidying = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, TIDYING_THREAD_NAME);
                t.setDaemon(true);
                return t;
            });
        }
        return tidying;
    }

    /**
     * Waits, up to {@link #CLOSE_WAIT_MILLIS} in all, until the background work queued after this
     * storage's publications so far ran: the deletes of each attempt's decision and lease, then the
     * tidy of the jobs' newest markers ({@link NewestMarkers#tidyLater}). A collection or delete
     * started in this process waits so, to begin from what they leave (as it did when they ran
     * inside the commit). The deletes are not waited for when the executor was given: a schedule
     * explorer runs them as an actor racing the others.
     */
    void awaitTidying() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        Executor own;
        synchronized (this) {
            own = tidyingGiven || closed ? null : tidying;
        }
        if (own != null) {
            CountDownLatch done = new CountDownLatch(1);
            try {
                own.execute(done::countDown);
                if (!done.await(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    LOG.debug("The deletes after earlier publications are still running; going on without them");
                }
            } catch (RejectedExecutionException closing) {
                // closed meanwhile: what is left is garbage collection's
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        awaitNewestMarkers(deadline);
    }

    private void awaitNewestMarkers(long deadlineNanos) {
        long left = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
        if (!NewestMarkerTidying.awaitTidied(fs, left)) {
            LOG.debug("The newest markers' tidy after earlier publications is still running; going on without it");
        }
    }

    private void deleteLeaseFile(Lease lease) {
        try {
            fs.delete(lease.path, false);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot remove lease {}; garbage collection will", lease.path, e);
        }
    }

    /** True while an attempt writing into {@code directory} is in flight in this process. */
    boolean contains(String directory) {
        for (Lease lease : byLeasePath.values()) {
            if (lease.workDirectory.equals(directory)) {
                return true;
            }
        }
        return false;
    }

    /** True while the attempt whose lease file is {@code leasePath} is in flight in this process. */
    boolean containsLease(String leasePath) {
        return byLeasePath.containsKey(leasePath);
    }

    /**
     * Why the attempt may no longer publish, or empty when its lease is safely held: it was lost
     * (its file vanished or could not be renewed) or not renewed for half the timeout.
     */
    Optional<String> problem(Lease lease) {
        if (lease.lost) {
            return Optional.of("its lease was lost (" + lease.path + ")");
        }
        long ageMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lease.renewedNanos);
        if (ageMillis * 2 > timeoutMillis) {
            return Optional.of("its lease was last renewed " + ageMillis + " ms ago, too close to the "
                    + timeoutMillis + " ms timeout after which other processes may collect it (" + lease.path + ")");
        }
        return Optional.empty();
    }

    /** True when a lease file last written at {@code modificationTime} still protects its attempt. */
    boolean isFresh(FileStatus leaseFile, long nowMillis) {
        return leaseFile.modificationTime() > nowMillis - timeoutMillis;
    }

    private void write(Lease lease, boolean first) throws IOException {
        if (!first && lease.released) {
            return;
        }
        if (!first && fs.stat(lease.path).isEmpty()) {
            lease.lost = true;
            return;
        }
        byte[] content = (new String(LEASE_PREFIX, StandardCharsets.UTF_8) + OWNER + ", timeout " + timeoutMillis + " ms\n")
                .getBytes(StandardCharsets.UTF_8);
        long before = System.nanoTime();
        try (SyncableOutputStream out = first ? StagedFiles.createWithParents(fs, lease.path)
                : fs.createInExistingDirectory(lease.path, false)) {
            out.write(content);
            StagedFiles.endVolatileFile(fs, out);
        }
        lease.renewedNanos = before;
    }

    private synchronized void startRenewing() {
        if (renewal != null) {
            return;
        }
        renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, RENEWER_THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(1, timeoutMillis / 4);
        renewal = renewer.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
    }

    private void renewAll() {
        for (Lease lease : byLeasePath.values()) {
            if (lease.lost) {
                continue;
            }
            try {
                synchronized (lease) {
                    write(lease, false);
                }
            } catch (IOException | RuntimeException e) {
                lease.lost = true;
                LOG.warn("Cannot renew lease {}; its savepoint will not be published", lease.path, e);
            }
        }
    }

    /**
     * Stops renewing (the leases of attempts still in flight then expire) and waits up to
     * {@link #CLOSE_WAIT_MILLIS} in all for the deletes queued after publications and for the tidy
     * of the newest markers; what is left then is garbage collection's (or the next commit's tidy).
     */
    @Override
    public void close() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        Executor own;
        synchronized (this) {
            closed = true;
            if (renewer != null) {
                renewer.shutdownNow();
            }
            own = tidyingGiven ? null : tidying;
        }
        if (own instanceof ExecutorService service) {
            service.shutdown();
            try {
                if (!service.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    LOG.info("Closing storage before the decisions and leases of published savepoints were removed;"
                            + " garbage collection removes them");
                    service.shutdownNow();
                }
            } catch (InterruptedException e) {
                service.shutdownNow();
                Thread.currentThread().interrupt();
                return;
            }
        }
        awaitNewestMarkers(deadline);
    }

    private static String ownerDescription() {
        String host = System.getenv("HOSTNAME");
        return "pid " + ProcessHandle.current().pid() + (host == null || host.isBlank() ? "" : " on " + host);
    }
}
