package io.keepsake.wire;

import java.util.Arrays;

/** Runs a check on every strict prefix of an encoding: what a reader meets when a write was cut short. */
final class Truncations {

    private Truncations() {
    }

    /** A check of one prefix. */
    @FunctionalInterface
    interface PrefixCheck {
        void check(byte[] prefix, int length);
    }

    /** Calls {@code check} with each strict prefix of {@code bytes} (empty first) and its length. */
    static void forEachStrictPrefix(byte[] bytes, PrefixCheck check) {
        for (int length = 0; length < bytes.length; length++) {
            check.check(Arrays.copyOf(bytes, length), length);
        }
    }
}
