package io.keepsake.storage;

/** Checked error of the legacy checkpoint SPI, with the meaning engines expect today. */
public class CheckpointStorageException extends Exception {
    private static final long serialVersionUID = 1L;

    public CheckpointStorageException(String message) {
        super(message);
    }

    public CheckpointStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
