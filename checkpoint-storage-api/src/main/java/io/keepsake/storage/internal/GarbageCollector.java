package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds and removes what failed attempts left: staging attempts under {@code <job>/.staging/}
 * and savepoint folders without {@code _metadata.ser}, last modified at or before
 * {@code now - olderThan}, that no attempt in flight is using. Complete savepoints are never
 * candidates. The selection is written once and serves both the dry run and the collection.
 * Thread-safe.
 */
public final class GarbageCollector {

    private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final SavepointStore savepoints;
    private final InFlightAttempts inFlight;

    /** A collector over the savepoint root of {@code layout}. */
    public GarbageCollector(StorageLayout layout, SavepointStore savepoints, InFlightAttempts inFlight) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.savepoints = savepoints;
        this.inFlight = inFlight;
    }

    /** What a collection with {@code olderThan} would remove now; removes nothing. */
    public List<GcCandidate> plan(Duration olderThan) {
        long cutoff = cutoff(olderThan);
        List<GcCandidate> candidates = new ArrayList<>();
        for (String jobId : savepoints.jobs()) {
            String staging = layout.stagingDir(jobId);
            for (FileStatus attempt : savepoints.listOrFail(staging, "list staging of job " + jobId)) {
                String path = fs.child(staging, attempt.name());
                if (!inFlight.contains(path) && attempt.modificationTime() <= cutoff) {
                    candidates.add(new GcCandidate(jobId, path, "staging attempt", attempt.modificationTime()));
                }
            }
            for (SavepointEntry e : savepoints.scan(jobId)) {
                if (e.incomplete() && e.modificationTime() <= cutoff && !inFlight.contains(e.location())) {
                    candidates.add(new GcCandidate(jobId, e.location(), "incomplete savepoint directory",
                            e.modificationTime()));
                }
            }
        }
        return candidates;
    }

    /** Removes what {@link #plan} finds; a candidate whose removal fails is reported as kept. */
    public GcReport collect(Duration olderThan) {
        List<String> deleted = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        for (GcCandidate c : plan(olderThan)) {
            try {
                fs.delete(c.path(), true);
                deleted.add(c.path());
            } catch (IOException e) {
                kept.add(c.path() + ": " + e.getMessage());
            }
        }
        if (!deleted.isEmpty()) {
            LOG.info("Garbage collection under {} removed {} stale staging or incomplete savepoint directories",
                    layout.savepointRoot(), deleted.size());
        }
        return new GcReport(deleted, kept);
    }

    private static long cutoff(Duration olderThan) {
        if (olderThan == null || olderThan.isNegative()) {
            throw new InvalidStorageArgumentException("Cannot collect garbage: the age must be zero or more ("
                    + olderThan + ")");
        }
        long now = System.currentTimeMillis();
        try {
            return Math.subtractExact(now, olderThan.toMillis());
        } catch (ArithmeticException e) {
            return Long.MIN_VALUE;
        }
    }
}
