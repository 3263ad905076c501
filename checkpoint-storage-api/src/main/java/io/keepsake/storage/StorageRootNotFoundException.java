package io.keepsake.storage;

/**
 * A storage opened without creating its roots ({@link StorageOptions#CREATE_ROOTS}{@code =false})
 * found a root missing, or not a directory; or a root sits where the backend cannot create one
 * (an S3 bucket that does not exist), whatever {@code create-roots} says. Nothing was created.
 * Thrown by a factory's {@code create}; the message names the configuration key and the path.
 */
public class StorageRootNotFoundException extends CheckpointStorageException {
    private static final long serialVersionUID = 1L;

    /** An error with the message shown to the caller. */
    public StorageRootNotFoundException(String message) {
        super(message);
    }

    /** An error with the message shown to the caller and the backend's error. */
    public StorageRootNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
