package io.keepsake.storage;

import java.util.Objects;

/**
 * One entry a garbage collection would remove, as {@link SavepointStorage#planGarbage} finds it
 * without deleting anything.
 *
 * @param jobId            the job it belongs to
 * @param path             the entry, in the backend's path syntax; for {@link Kind#STALE_UPLOAD} the
 *                         upload's path followed by {@code " (upload <id>)"}, for
 *                         {@link Kind#STALE_ATTEMPT_FILES} the attempt's files as a pattern
 *                         ({@code <folder>/pipeline-*.<attemptId>.wire})
 * @param kind             what the entry is, which decides how it is removed
 * @param modificationTime epoch millis
 */
public record GcCandidate(String jobId, String path, Kind kind, long modificationTime) {

    /** Requires every component. */
    public GcCandidate {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
    }

    /** What a candidate is; {@link #label()} is how reports name it. */
    public enum Kind {
        /** A staging folder of an attempt that neither published nor aborted. */
        STAGING_ATTEMPT("staging attempt"),
        /** A lease file no writer renewed within the lease timeout. */
        EXPIRED_LEASE("expired lease"),
        /** A savepoint folder without {@code _metadata.ser}. */
        INCOMPLETE_SAVEPOINT("incomplete savepoint directory"),
        /** A folder an earlier collection set aside before removing it. */
        COLLECTION_LEFTOVER("collection leftover"),
        /** A hidden temporary file of a checkpoint write that never finished. */
        CHECKPOINT_TEMP("checkpoint temporary file"),
        /** An index marker whose savepoint folder does not exist. */
        ORPHANED_INDEX_MARKER("orphaned index marker"),
        /** A newest marker whose savepoint is not published and that no attempt writes. */
        ORPHANED_NEWEST_MARKER("orphaned newest marker"),
        /** A multipart upload begun and never completed or aborted. */
        STALE_UPLOAD("stale multipart upload"),
        /** The payload files one dead attempt left in a savepoint folder. */
        STALE_ATTEMPT_FILES("stale attempt files"),
        /** A dead writer's decision to publish, whose savepoint is looked at and settled. */
        UNFINISHED_PUBLICATION("unfinished publication"),
        /** An attempt's "collected" outcome once none of its files is left. */
        SETTLED_OUTCOME("settled attempt outcome"),
        /** A temporary file of an outcome write that never finished. */
        OUTCOME_TEMP("outcome temporary file"),
        /** The record of a deletion that has completed. */
        SETTLED_DELETION("settled deletion record"),
        /** A savepoint folder without any entry. */
        EMPTY_SAVEPOINT("empty savepoint directory");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** How reports (the {@code keepsake gc} listing among them) name this kind. */
        public String label() {
            return label;
        }
    }
}
