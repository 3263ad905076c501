package io.keepsake.storage;

/**
 * Root of every unchecked error Keepsake raises: {@link SavepointStorageException} and its subtypes
 * for the savepoint side, {@link InvalidStorageArgumentException} for input refused before
 * anything was touched, {@link CheckpointCorruptedException} for legacy checkpoint bytes that do
 * not decode, and this type itself for a failure of the legacy checkpoint side that its SPI cannot
 * declare (such as terminal cleanup). Messages name the job, the savepoint and the path where known.
 */
public class KeepsakeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public KeepsakeException(String message) {
        super(message);
    }

    /** An exception with a message and the cause. */
    public KeepsakeException(String message, Throwable cause) {
        super(message, cause);
    }
}
