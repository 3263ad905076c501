package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;

/**
 * Validation of every name that becomes a path component (job ids, savepoint ids, manifest file
 * names), so nothing is ever read or written outside the configured roots.
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
     *                                         or contains a separator, a colon or a control character
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
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
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
        return null;
    }

    private static String printable(String value) {
        if (value == null) {
            return "null";
        }
        String cut = value.length() > 80 ? value.substring(0, 80) + "..." : value;
        StringBuilder b = new StringBuilder();
        for (char c : cut.toCharArray()) {
            b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return "'" + b + "'";
    }
}
