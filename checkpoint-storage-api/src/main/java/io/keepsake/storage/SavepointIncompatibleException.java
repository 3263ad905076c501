package io.keepsake.storage;

/**
 * The bytes are intact but written in a format version (or a payload format) this build cannot
 * read. The message says which versions are supported and what to do.
 */
public class SavepointIncompatibleException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** The format version found. */
    private final int foundVersion;
    /** The oldest format version this build reads. */
    private final int minSupported;
    /** The newest format version this build reads. */
    private final int maxSupported;

    /** An exception naming the format version found and the window this build reads. */
    public SavepointIncompatibleException(String message, int foundVersion, int minSupported, int maxSupported) {
        super(message);
        this.foundVersion = foundVersion;
        this.minSupported = minSupported;
        this.maxSupported = maxSupported;
    }

    /** The version found in the bytes. */
    public int foundVersion() {
        return foundVersion;
    }

    /** The oldest version this build reads. */
    public int minSupported() {
        return minSupported;
    }

    /** The newest version this build reads. */
    public int maxSupported() {
        return maxSupported;
    }
}
