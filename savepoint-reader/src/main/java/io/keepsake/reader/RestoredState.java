package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointHandle;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a restore hands the engine: one checkpoint per pipeline, where each came from, and the
 * warnings the operator should see (a job without any savepoint bundle, a skipped corrupted
 * savepoint).
 *
 * @param source      where the pipelines' state came from, as a whole
 * @param savepoint   the savepoint restored from, when every pipeline came from that one savepoint
 * @param checkpoints the checkpoints by pipeline id
 * @param origins     where each pipeline's checkpoint came from, by pipeline id
 * @param warnings    what the operator should know about this restore
 */
public record RestoredState(Source source, Optional<SavepointHandle> savepoint,
                            Map<Integer, CompletedCheckpoint> checkpoints, Map<Integer, Origin> origins,
                            List<String> warnings) {

    /** Where restored state came from, as a whole. */
    public enum Source {
        /** Every pipeline from one complete, verified savepoint bundle. */
        SAVEPOINT,
        /** Every pipeline from the job's legacy checkpoint files (unversioned v0 format, no checksums). */
        LEGACY_CHECKPOINTS,
        /** Pipelines from different places: see {@link #origins()}. */
        MIXED
    }

    /**
     * Where one pipeline's restored checkpoint came from.
     *
     * @param checkpointId the checkpoint id restored
     * @param savepointId  the savepoint it was read from, or empty for a legacy checkpoint file
     * @param location     the savepoint directory or a description of the checkpoint file
     */
    public record Origin(long checkpointId, Optional<String> savepointId, String location) {

        /** Validates the origin. */
        public Origin {
            InvalidStorageArgumentException.requireNonNull("create restore origin", "savepointId", savepointId);
            InvalidStorageArgumentException.requireNonNull("create restore origin", "location", location);
        }
    }

    /** Copies the maps and the list. */
    public RestoredState {
        InvalidStorageArgumentException.requireNonNull("create restored state", "source", source);
        InvalidStorageArgumentException.requireNonNull("create restored state", "savepoint", savepoint);
        checkpoints = Collections.unmodifiableMap(new TreeMap<>(
                InvalidStorageArgumentException.requireNonNull("create restored state", "checkpoints", checkpoints)));
        origins = Collections.unmodifiableMap(new TreeMap<>(
                InvalidStorageArgumentException.requireNonNull("create restored state", "origins", origins)));
        warnings = List.copyOf(InvalidStorageArgumentException.requireNonNull("create restored state", "warnings", warnings));
    }

    /**
     * The lowest checkpoint id the engine may give its next checkpoint of this job: one above every
     * restored checkpoint id, so that a later recovery never prefers the state restored here over
     * what the job completes after it.
     */
    public long nextCheckpointId() {
        return checkpoints.values().stream().mapToLong(CompletedCheckpoint::checkpointId).max().orElse(0) + 1;
    }
}
