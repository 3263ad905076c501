package io.keepsake.storage;

/** Version constants of the savepoint bundle format and of this library. */
public final class Versions {

    /** The savepoint format version every writer writes. Version 1: the first bundle format. */
    public static final int CURRENT_FORMAT_VERSION = 1;

    /** Recorded as producerVersion in metadata this library writes. */
    public static final String PRODUCER_VERSION = "keepsake-0.1.0";

    private Versions() {
    }
}
