package io.keepsake.storage;

/** Checked error of the legacy checkpoint SPI, with the meaning engines expect today. */
public class CheckpointStorageException extends Exception {
    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public CheckpointStorageException(String message) {
        super(message);
    }

    /** An exception with a message and the cause. */
    public CheckpointStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
