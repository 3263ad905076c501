package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;

import java.text.Normalizer;

/**
 * Validation of every name that becomes a path component (job ids, savepoint ids, manifest file
 * names), so nothing is ever read or written outside the configured roots, and every name maps to
 * exactly one file name: names must be valid Unicode (no lone surrogate, which cannot be encoded)
 * and in normalization form NFC (so that {@code "e\u0301"} and {@code "\u00e9"}, which some file
 * systems store as one name and others as two, can never both be ids).
 */
public final class Names {

    /** The longest accepted name; well under every file system's component limit. */
    public static final int MAX_LENGTH = 200;

    private Names() {
    }

    /**
     * Returns {@code value} when it is a single safe path component.
     *
     * @throws InvalidStorageArgumentException when it is null, empty, too long, starts with a dot,
     *                                         contains a separator, a colon or a control character, is
     *                                         not valid Unicode or not in normalization form NFC
     */
    public static String requireSafeName(String what, String value) {
        String why = problem(value);
        if (why != null) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": " + why + " (" + printable(value) + ")");
        }
        return value;
    }

    /** True when {@code value} would pass {@link #requireSafeName}. */
    public static boolean isSafeName(String value) {
        return problem(value) == null;
    }

    private static String problem(String value) {
        if (value == null) {
            return "it is null";
        }
        if (value.isEmpty()) {
            return "it is empty";
        }
        if (value.length() > MAX_LENGTH) {
            return "it is longer than " + MAX_LENGTH + " characters";
        }
        if (value.charAt(0) == '.') {
            return "it starts with a dot";
        }
        boolean beyondCombiningMarks = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            beyondCombiningMarks |= c >= '\u0300';
            if (c == '/' || c == '\\') {
                return "it contains a path separator";
            }
            if (c == ':') {
                return "it contains a colon";
            }
            if (Character.isISOControl(c)) {
                return "it contains a control character";
            }
        }
        if (!isValidUnicode(value)) {
            return "it is not valid Unicode (it has a lone surrogate)";
        }
        // below U+0300, where the combining marks begin, no character decomposes or combines, so
        // such text is NFC without asking the normalizer (a listing checks every name it reads)
        if (beyondCombiningMarks && !Normalizer.isNormalized(value, Normalizer.Form.NFC)) {
            return "it is not in Unicode normalization form NFC, so it could name more than one file"
                    + " (normalize it to NFC first)";
        }
        return null;
    }

    /** True when {@code value} has no lone surrogate, so it encodes to UTF-8 and back unchanged. */
    public static boolean isValidUnicode(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns {@code value} when it is valid Unicode, for free text that is stored (properties,
     * versions): a lone surrogate would be written as {@code ?} and read back as something else.
     *
     * @throws InvalidStorageArgumentException when it is null or has a lone surrogate
     */
    public static String requireValidText(String what, String value) {
        if (value == null) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": it is null");
        }
        if (!isValidUnicode(value)) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": it is not valid Unicode (it has a"
                    + " lone surrogate) (" + printable(value) + ")");
        }
        return value;
    }

    private static String printable(String value) {
        if (value == null) {
            return "null";
        }
        String cut = value.length() > 80 ? value.substring(0, 80) + "..." : value;
        StringBuilder b = new StringBuilder();
        for (char c : cut.toCharArray()) {
            b.append(Character.isISOControl(c) || Character.isSurrogate(c) ? String.format("\\u%04x", (int) c)
                    : String.valueOf(c));
        }
        return "'" + b + "'";
    }
}
