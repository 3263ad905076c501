package io.keepsake.storage;

/** Version constants of the savepoint bundle format and of this library. */
public final class Versions {

    /**
     * The savepoint format version a writer writes unless {@link StorageOptions#FORMAT_VERSION} says
     * otherwise, and the newest this build reads. Version 1 (Keepsake 0.1.0): the first bundle format,
     * one SHA-256 per payload. Version 2: each payload also hashed in chunks of a recorded size, its
     * digest derived from the chunk digests, so readers verify chunks on every core while reading ahead.
     */
    public static final int CURRENT_FORMAT_VERSION = 2;

    /** The oldest savepoint format version this build reads, and can still be told to write (for a rollback). */
    public static final int OLDEST_FORMAT_VERSION = 1;

    /** Recorded as producerVersion in metadata this library writes. */
    public static final String PRODUCER_VERSION = "keepsake-0.1.0";

    private Versions() {
    }
}
