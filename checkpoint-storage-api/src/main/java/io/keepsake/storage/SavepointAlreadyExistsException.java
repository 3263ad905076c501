package io.keepsake.storage;

/** A savepoint with this id is already committed; the existing one is left intact. */
public class SavepointAlreadyExistsException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public SavepointAlreadyExistsException(String message) {
        super(message);
    }

    /** An exception with a message and the cause. */
    public SavepointAlreadyExistsException(String message, Throwable cause) {
        super(message, cause);
    }
}
