package io.keepsake.storage;

/**
 * A legacy checkpoint file (or the legacy v0 bytes in it) does not decode: it is torn, truncated
 * or not what the legacy layout says. Names the file and what was expected and found. Legacy
 * checkpoints carry no checksum, so this is as much as can be detected; the legacy SPI skips such
 * files with a warning when it lists, and refuses them when one is asked for by id.
 */
public class CheckpointCorruptedException extends KeepsakeException {
    private static final long serialVersionUID = 1L;

    /** The file that did not verify. */
    private final String file;
    /** What was expected there. */
    private final String expected;
    /** What was found there. */
    private final String actual;

    /** A corrupted legacy checkpoint at {@code file}; {@code expected} and {@code actual} may be null. */
    public CheckpointCorruptedException(String file, String message, String expected, String actual) {
        this(file, message, expected, actual, null);
    }

    /** A corrupted legacy checkpoint at {@code file}, found while decoding failed with {@code cause}. */
    public CheckpointCorruptedException(String file, String message, String expected, String actual,
                                        Throwable cause) {
        super(message + (expected != null || actual != null ? " (expected " + expected + ", found " + actual + ")" : "")
                + (file != null ? " in " + file : ""), cause);
        this.file = file;
        this.expected = expected;
        this.actual = actual;
    }

    /** The file that does not decode. */
    public String file() {
        return file;
    }

    /** What the layout requires there. */
    public String expected() {
        return expected;
    }

    /** What was found. */
    public String actual() {
        return actual;
    }
}
