package io.keepsake.storage;

import java.io.OutputStream;

/**
 * A savepoint being written into its staging area. Stream one payload per pipeline, then
 * {@link #commit} publishes the whole bundle atomically; {@link #abort} or {@link #close()}
 * without a commit deletes the staging area. Use it with try-with-resources so an exception on
 * the way cannot leak a half-written savepoint. Not thread-safe: one writer, one thread at a time.
 */
public interface SavepointWriter extends AutoCloseable {

    /** The request this writer was begun with. */
    SavepointRequest request();

    /**
     * Opens the payload of one pipeline; its length and SHA-256 are computed while it is written
     * and recorded when the stream is closed. Closing the stream starts making the file durable
     * (sync, then close) on another thread, so payloads sync in parallel; {@link #commit} waits for
     * every one of them and fails with {@link SavepointCommitFailedException} when one could not.
     *
     * @throws InvalidStorageArgumentException when the pipeline already has a payload
     * @throws IllegalStateException           when the writer is committed or aborted
     */
    OutputStream openPayload(int pipelineId, long checkpointId);

    /**
     * Writes {@code _metadata.ser} last and publishes the bundle in one atomic step.
     *
     * @param completedTimestamp epoch millis recorded as the completion time
     * @return the committed savepoint
     * @throws SavepointAlreadyExistsException      when another commit of the same id won
     * @throws SavepointCommitFailedException       when nothing became visible; staging was cleaned
     * @throws SavepointCommitStateUnknownException when the outcome cannot be told; list to find out
     */
    SavepointHandle commit(long completedTimestamp);

    /** Deletes the staging area; a no-op after commit or a previous abort. */
    void abort();

    /** Aborts unless committed. */
    @Override
    void close();
}
