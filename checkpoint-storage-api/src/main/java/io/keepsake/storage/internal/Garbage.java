package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcCandidate.Kind;
import io.keepsake.storage.spi.PendingUpload;

import java.util.Objects;
import java.util.Set;

/**
 * One removal {@link GcPlanner} plans: the {@link GcCandidate} a plan reports, with the typed parts
 * {@link GarbageCollector} needs to remove it (an upload's id, an attempt's id and folder), so that
 * nothing is parsed back out of a reported path.
 */
sealed interface Garbage {

    /** The candidate as a plan reports it. */
    GcCandidate candidate();

    /** An entry removed by its own path: every kind that has no record of its own below. */
    record Entry(GcCandidate candidate) implements Garbage {

        private static final Set<Kind> TYPED = Set.of(Kind.STALE_UPLOAD, Kind.STALE_ATTEMPT_FILES,
                Kind.UNFINISHED_PUBLICATION);

        public Entry {
            Objects.requireNonNull(candidate, "candidate");
            if (TYPED.contains(candidate.kind())) {
                throw new IllegalArgumentException("Cannot plan a " + candidate.kind().label()
                        + " as a plain entry (" + candidate.path() + ")");
            }
        }

        Entry(String jobId, String path, Kind kind, long modificationTime) {
            this(new GcCandidate(jobId, path, kind, modificationTime));
        }
    }

    /** The payload files attempt {@code attemptId} left in the savepoint folder {@code folder}. */
    record AttemptFiles(String jobId, String folder, AttemptId attemptId, long modificationTime) implements Garbage {
        @Override
        public GcCandidate candidate() {
            return new GcCandidate(jobId, OwnedRemoval.attemptFilesPath(folder, attemptId), Kind.STALE_ATTEMPT_FILES,
                    modificationTime);
        }
    }

    /** A multipart upload begun and never completed or aborted. */
    record Upload(String jobId, PendingUpload upload) implements Garbage {

        /** What joins an upload's path and its id in the path a candidate reports. */
        static final String MARK = " (upload ";

        @Override
        public GcCandidate candidate() {
            return new GcCandidate(jobId, upload.path() + MARK + upload.uploadId() + ")", Kind.STALE_UPLOAD,
                    upload.initiated());
        }
    }

    /** The outcome file {@code path} holding attempt {@code attemptId}'s decision to publish. */
    record Publication(String jobId, String path, AttemptId attemptId, long modificationTime) implements Garbage {
        @Override
        public GcCandidate candidate() {
            return new GcCandidate(jobId, path, Kind.UNFINISHED_PUBLICATION, modificationTime);
        }
    }
}
