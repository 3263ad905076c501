package io.keepsake.seatunnel;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointStorage;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code keepsake gc --older-than 0} run over and over from the test JVM, another process than the
 * cluster's members, on its own storage opened with the members' config (so it judges their attempts
 * by their {@code savepoint.lease-timeout-ms}), until {@link #close()}. It records what each run
 * removed; a run that fails ends the loop and is rethrown by {@link #close()}.
 */
final class RepeatedGc implements AutoCloseable {

    private final CheckpointStorage storage;
    private final Thread thread;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger runs = new AtomicInteger();
    private final List<String> removed = new CopyOnWriteArrayList<>();
    private volatile RuntimeException failure;

    private RepeatedGc(CheckpointStorage storage) {
        this.storage = storage;
        SavepointStorage savepoints = (SavepointStorage) storage;
        this.thread = new Thread(() -> {
            try {
                while (!stop.get()) {
                    removed.addAll(savepoints.collectGarbage(Duration.ZERO).deleted());
                    runs.incrementAndGet();
                    // Pacing only (an operator's gc is not a busy loop); the test waits on nothing here.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                }
            } catch (RuntimeException e) {
                failure = e;
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

    /** Completed gc runs so far. */
    int runs() {
        return runs.get();
    }

    /** Everything the runs removed so far. */
    List<String> removed() {
        return List.copyOf(removed);
    }

    /** Stops the loop after its current run and closes its storage; rethrows a run's failure. */
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
        if (failure != null) {
            throw new AssertionError("A gc run from another process failed after " + runs() + " runs: " + failure, failure);
        }
    }
}
