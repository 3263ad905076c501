package io.keepsake.storage;

/**
 * Root of every error the savepoint side of Keepsake raises (a {@link KeepsakeException}). Unchecked; each subtype tells the
 * caller what it may do next. Messages name the job, the savepoint and the path where known.
 */
public class SavepointStorageException extends KeepsakeException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public SavepointStorageException(String message) {
        super(message);
    }

    /** An exception with a message and the cause. */
    public SavepointStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
