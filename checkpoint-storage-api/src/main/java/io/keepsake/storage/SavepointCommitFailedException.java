package io.keepsake.storage;

/** The commit did not happen and nothing became visible; the staging area is safe to clean. */
public class SavepointCommitFailedException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message and the cause. */
    public SavepointCommitFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
