package io.keepsake.storage;

/**
 * A checkpoint whose bytes are written and synced under a hidden name but not yet visible:
 * {@link #publish()} makes it visible and durable under its final name; {@link #close()} without
 * a publish removes what was written. Lets a caller do the slow part of a store while it does
 * something that must be durable before the checkpoint becomes visible.
 *
 * <p>Not thread-safe: publish and close from one thread.
 */
public interface StagedCheckpoint extends AutoCloseable {

    /**
     * Makes the checkpoint visible under its final name, durably, and returns that name.
     *
     * @throws CheckpointStorageException when it cannot be published; nothing is visible then
     */
    String publish() throws CheckpointStorageException;

    /** Removes the staged bytes unless they were published; never throws. */
    @Override
    void close();
}
