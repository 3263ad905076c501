package io.keepsake.storage;

/**
 * A legacy checkpoint file (or the legacy v0 bytes in it) does not decode: it is torn, truncated
 * or not what the legacy layout says. Names the file and what was expected and found. Legacy
 * checkpoints carry no checksum, so this is as much as can be detected; the legacy SPI skips such
 * files with a warning when it lists, and refuses them when one is asked for by id.
 */
public class CheckpointCorruptedException extends KeepsakeException {
    private static final long serialVersionUID = 1L;

    /** The file and what was expected and found there. */
    private final Corruption corruption;

    /** A corrupted legacy checkpoint at {@code file}; {@code expected} and {@code actual} may be null. */
    public CheckpointCorruptedException(String file, String message, String expected, String actual) {
        this(file, message, expected, actual, null);
    }

    /** A corrupted legacy checkpoint at {@code file}, found while decoding failed with {@code cause}. */
    public CheckpointCorruptedException(String file, String message, String expected, String actual,
                                        Throwable cause) {
        this(new Corruption(file, expected, actual), message, cause);
    }

    private CheckpointCorruptedException(Corruption corruption, String message, Throwable cause) {
        super(corruption.describe(message), cause);
        this.corruption = corruption;
    }

    /** The file that does not decode. */
    public String file() {
        return corruption.file();
    }

    /** What the layout requires there. */
    public String expected() {
        return corruption.expected();
    }

    /** What was found. */
    public String actual() {
        return corruption.actual();
    }
}
