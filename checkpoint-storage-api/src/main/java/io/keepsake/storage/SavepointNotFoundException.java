package io.keepsake.storage;

/** The requested savepoint (or job) has no complete savepoint at the given location. */
public class SavepointNotFoundException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public SavepointNotFoundException(String message) {
        super(message);
    }
}
