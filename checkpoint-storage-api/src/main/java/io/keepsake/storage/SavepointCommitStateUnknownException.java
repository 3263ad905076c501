package io.keepsake.storage;

/**
 * The publishing step failed in a way that does not tell whether it took effect. Do not clean
 * up: list the job's savepoints to learn the outcome.
 */
public class SavepointCommitStateUnknownException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message and the cause. */
    public SavepointCommitStateUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
