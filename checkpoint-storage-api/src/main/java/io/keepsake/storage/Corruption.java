package io.keepsake.storage;

import java.io.Serializable;

/**
 * Where bytes failed to decode or verify and what was expected and found there, as both
 * corruption errors ({@link SavepointCorruptedException}, {@link CheckpointCorruptedException})
 * carry it; each part may be null.
 */
record Corruption(String file, String expected, String actual) implements Serializable {

    /** {@code message}, then {@code (expected …, found …)} when either is known, then {@code in <file>} when it is. */
    String describe(String message) {
        StringBuilder b = new StringBuilder(message);
        if (expected != null || actual != null) {
            b.append(" (expected ").append(expected).append(", found ").append(actual).append(')');
        }
        if (file != null) {
            b.append(" in ").append(file);
        }
        return b.toString();
    }
}
