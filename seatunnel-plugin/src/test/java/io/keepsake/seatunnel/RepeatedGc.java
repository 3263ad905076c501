package io.keepsake.seatunnel;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * {@code keepsake gc --older-than 0} run over and over from the test JVM, another process than the
 * cluster's members, on its own storage opened with the members' config (so it judges their attempts
 * by their {@code savepoint.lease-timeout-ms}), until {@link #close()}. It records what each run
 * removed and, as an operator's scheduled gc would, goes on after a run that failed, recording the
 * failure for {@link #requireNoFailedRun}.
 */
final class RepeatedGc implements AutoCloseable {

    private final CheckpointStorage storage;
    private final Thread thread;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger runs = new AtomicInteger();
    private final List<String> removed = new CopyOnWriteArrayList<>();
    private final List<RuntimeException> failures = new CopyOnWriteArrayList<>();

    private RepeatedGc(CheckpointStorage storage) {
        this.storage = storage;
        SavepointStorage savepoints = (SavepointStorage) storage;
        this.thread = new Thread(() -> {
            while (!stop.get()) {
                try {
                    removed.addAll(savepoints.collectGarbage(Duration.ZERO).deleted());
                } catch (RuntimeException e) {
                    failures.add(e);
                }
                runs.incrementAndGet();
                // Pacing only (an operator's gc is not a busy loop); the test waits on nothing here.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }, "gc-from-another-process");
        thread.setDaemon(true);
    }

    /** Opens a storage on the shared namespace with the members' extra config and starts the loop. */
    static RepeatedGc start(SharedBackend ns, Map<String, String> membersConfig) throws Exception {
        RepeatedGc gc = new RepeatedGc(ns.open(membersConfig));
        gc.thread.start();
        return gc;
    }

    /** Gc runs so far, failed ones included. */
    private int runs() {
        return runs.get();
    }

    /** Everything the runs removed so far. */
    private List<String> removed() {
        return List.copyOf(removed);
    }

    /**
     * Records the runs as figure {@code what} and fails unless there were runs, none failed
     * ({@link #requireNoFailedRun}) and none removed anything but what {@code leftOver} accepts, the
     * leftovers of a process that is gone: nothing of a live attempt may go.
     */
    void requireRemovedOnly(SharedBackend ns, String what, Predicate<String> leftOver) {
        Figures.record(what + ": gc runs, failed runs, removed", runs() + " " + failures.size() + " " + removed());
        if (runs() == 0) {
            throw new AssertionError("No gc run from another process completed on " + ns);
        }
        List<String> live = removed.stream().filter(leftOver.negate()).toList();
        if (!live.isEmpty()) {
            throw new AssertionError("A gc run from another process removed " + live + " on " + ns
                    + ", which no dead process left behind");
        }
        requireNoFailedRun(ns);
    }

    /**
     * Fails on any failed run but one, which deletes nothing: a run that finds the savepoint root
     * without its {@code .keepsake-root} marker but with entries refuses ("not marked as a Keepsake
     * savepoint root"), and a run that overlaps the first savepoint's writing of the marker can find
     * just that. {@code RootMarker.requireMarkedOrEmpty} looks for the marker, then lists the root, so
     * a marker written between the two is listed as an entry (seen on HDFS); S3Proxy's transient-nio2
     * store also lists an object being PUT under a temporary key {@code <key>-<uuid>} (seen by listing
     * during PUTs), which widens the window on S3.
     */
    private void requireNoFailedRun(SharedBackend ns) {
        for (RuntimeException e : failures) {
            boolean markerBeingWritten = e instanceof SavepointStorageException
                    && String.valueOf(e.getMessage()).contains("not marked as a Keepsake savepoint root");
            if (!markerBeingWritten) {
                throw new AssertionError("A gc run from another process failed (" + failures.size() + " of " + runs()
                        + " runs failed) on " + ns + ": " + e, e);
            }
        }
    }

    /** Stops the loop after its current run and closes its storage. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        try {
            thread.join(Duration.ofMinutes(1).toMillis());
            if (thread.isAlive()) {
                throw new AssertionError("The gc loop did not stop within a minute after " + runs() + " runs");
            }
        } finally {
            storage.close();
        }
    }
}
