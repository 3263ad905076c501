package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointHandle;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a restore hands the engine: one checkpoint per pipeline, where it came from, and the
 * warnings the operator should see (a legacy fallback, a skipped corrupted savepoint).
 *
 * @param source      a savepoint bundle or the legacy checkpoint scan
 * @param savepoint   the savepoint restored from, when the source is a savepoint
 * @param checkpoints the checkpoints by pipeline id
 * @param warnings    what the operator should know about this restore
 */
public record RestoredSavepoint(Source source, Optional<SavepointHandle> savepoint,
                                Map<Integer, CompletedCheckpoint> checkpoints, List<String> warnings) {

    /** Where restored state came from. */
    public enum Source {
        /** A complete, verified savepoint bundle. */
        SAVEPOINT,
        /** The job's latest legacy checkpoints, because it had no savepoint bundle at all. */
        LEGACY_CHECKPOINTS
    }

    public RestoredSavepoint {
        checkpoints = Collections.unmodifiableMap(new TreeMap<>(checkpoints));
        warnings = List.copyOf(warnings);
    }
}
