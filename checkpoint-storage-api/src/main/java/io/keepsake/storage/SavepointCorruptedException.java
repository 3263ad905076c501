package io.keepsake.storage;

/**
 * Bytes read back do not verify: wrong magic, bad checksum, wrong length, undecodable body.
 * Names the file and, where it applies, what was expected and what was found.
 */
public class SavepointCorruptedException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** The file and what was expected and found there. */
    private final Corruption corruption;
    /** The byte offset in the file where the damage was found, or -1. */
    private final long offset;

    /** An exception naming the file that did not verify, with the expected and the found value. */
    public SavepointCorruptedException(String file, String message, String expected, String actual) {
        this(file, message, expected, actual, null);
    }

    /** An exception naming the file that did not verify, with the expected and the found value. */
    public SavepointCorruptedException(String file, String message, String expected, String actual,
                                       Throwable cause) {
        this(file, -1, message, expected, actual, cause);
    }

    /**
     * An exception naming the file that did not verify and the byte offset in it where the damage
     * was found (such as the start of a chunk whose digest does not match), with the expected and the found value.
     */
    public SavepointCorruptedException(String file, long offset, String message, String expected, String actual,
                                       Throwable cause) {
        this(new Corruption(file, expected, actual), offset, message, cause);
    }

    private SavepointCorruptedException(Corruption corruption, long offset, String message, Throwable cause) {
        super(corruption.describe(message), cause);
        this.corruption = corruption;
        this.offset = offset;
    }

    /** The file that failed to verify, or null when the bytes did not come from a file. */
    public String file() {
        return corruption.file();
    }

    /** What the reader expected, or null. */
    public String expected() {
        return corruption.expected();
    }

    /** What the reader found, or null. */
    public String actual() {
        return corruption.actual();
    }

    /** The byte offset in {@link #file()} where the damage was found, or -1 when no offset applies. */
    public long offset() {
        return offset;
    }
}
