package io.keepsake.storage;

import java.time.Duration;

/**
 * What an engine hooks to observe a storage: savepoint commits and aborts, restores, verification
 * failures and garbage collection, each with its duration and, where it means something, its
 * bytes. Register one with {@link KeepsakeStorage#addListener}; the restorer of the
 * {@code savepoint-reader} module reports restores and verification failures to the listeners of
 * the storage it reads.
 *
 * <p>Every method has a no-op default, so an implementation overrides only what it exports.
 * Methods are called synchronously on the thread doing the work, after the work is done, so they
 * must be quick and must not call back into the storage. An exception thrown by a listener is
 * logged and ignored: it never fails the operation it reports.
 */
public interface StorageListener {

    /** A listener that does nothing. */
    StorageListener NONE = new StorageListener() {
    };

    /**
     * A savepoint was committed and is durable.
     *
     * @param jobId       the job
     * @param savepointId the savepoint
     * @param bytes       the sum of its payload lengths
     * @param duration    from the beginning of the savepoint to its publication
     */
    default void onCommit(String jobId, String savepointId, long bytes, Duration duration) {
    }

    /**
     * A savepoint attempt was aborted (explicitly, by closing its writer uncommitted, or because its
     * commit failed); nothing of it is visible.
     *
     * @param jobId       the job
     * @param savepointId the savepoint that was being written
     * @param duration    from the beginning of the attempt to its abort
     */
    default void onAbort(String jobId, String savepointId, Duration duration) {
    }

    /**
     * State of a job was restored and verified.
     *
     * @param jobId       the job whose state was restored
     * @param savepointId the savepoint restored from; for a recovery whose pipelines came from several
     *                    sources (some from checkpoint files, or from more than one savepoint), the
     *                    savepoint that gave a pipeline the newest state (highest checkpoint id); null
     *                    exactly when every pipeline came from checkpoint files. Where each pipeline
     *                    came from is in the restorer's result ({@code RestoredState.origins()})
     * @param bytes       the payload bytes read and verified (0 for legacy checkpoint files, which carry no checksum)
     * @param duration    the time the restore took
     */
    default void onRestore(String jobId, String savepointId, long bytes, Duration duration) {
    }

    /**
     * A savepoint failed verification while being read: a length, checksum or decoding mismatch.
     *
     * @param jobId       the job
     * @param savepointId the savepoint
     * @param failure     what did not verify, naming the file
     */
    default void onVerifyFailure(String jobId, String savepointId, SavepointCorruptedException failure) {
    }

    /**
     * Garbage collection ran.
     *
     * @param report   what it removed and what it left
     * @param duration the time it took
     */
    default void onGc(GcReport report, Duration duration) {
    }
}
