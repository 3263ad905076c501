package io.keepsake.engine;

/** Argument checks shared by the model's compact constructors; messages follow the project shape. */
final class Checks {

    private Checks() {
    }

    static <T> T notNull(T value, String what, String field) {
        if (value == null) {
            throw new NullPointerException("Cannot create " + what + ": " + field + " is null");
        }
        return value;
    }

    static void check(boolean condition, String what, String why, Object value) {
        if (!condition) {
            throw new IllegalArgumentException("Cannot create " + what + ": " + why + " (" + value + ")");
        }
    }
}
