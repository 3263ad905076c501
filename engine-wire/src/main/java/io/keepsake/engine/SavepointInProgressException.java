package io.keepsake.engine;

import io.keepsake.storage.SavepointStorageException;

/** A savepoint of this job is already being taken; wait for it to commit or abort. */
public class SavepointInProgressException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public SavepointInProgressException(String message) {
        super(message);
    }
}
