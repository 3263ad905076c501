package io.keepsake.storage;

import io.keepsake.storage.internal.Names;

/**
 * The rule every name that becomes a path component follows (job ids, savepoint ids, manifest file
 * names): one component of at most {@value #MAX_LENGTH} characters, not starting with a dot, without
 * a separator, colon or control character, valid Unicode in normalization form NFC. A caller that
 * derives an id checks it here before using it, to report the derived id as such. Stateless.
 */
public final class StorageNames {

    /** The longest accepted name. */
    public static final int MAX_LENGTH = Names.MAX_LENGTH;

    private StorageNames() {
    }

    /**
     * Returns {@code value} when it is a name the storage accepts.
     *
     * @param what how the message names the value ("upgraded savepoint id")
     * @throws InvalidStorageArgumentException when it is not, saying why and showing the value
     */
    public static String requireSafeName(String what, String value) {
        return Names.requireSafeName(what, value);
    }

    /** True when {@code value} would pass {@link #requireSafeName}. */
    public static boolean isSafeName(String value) {
        return Names.isSafeName(value);
    }
}
