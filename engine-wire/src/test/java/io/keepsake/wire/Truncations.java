package io.keepsake.wire;

import org.assertj.core.api.AbstractThrowableAssert;

import java.util.Arrays;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Runs a check on every strict prefix of an encoding: what a reader meets when a write was cut short. */
final class Truncations {

    private Truncations() {
    }

    /** A check of one prefix. */
    @FunctionalInterface
    interface PrefixCheck {
        void check(byte[] prefix, int length);
    }

    /** Decodes one prefix. */
    @FunctionalInterface
    interface Decoder {
        Object decode(byte[] prefix) throws Exception;
    }

    /** Calls {@code check} with each strict prefix of {@code bytes} (empty first) and its length. */
    static void forEachStrictPrefix(byte[] bytes, PrefixCheck check) {
        for (int length = 0; length < bytes.length; length++) {
            check.check(Arrays.copyOf(bytes, length), length);
        }
    }

    /**
     * Asserts that decoding each strict prefix of {@code bytes} throws {@code type}, and runs
     * {@code failure} on the assertion of each thrown error.
     */
    static void assertEveryStrictPrefixFails(byte[] bytes, Decoder decoder, Class<? extends Throwable> type,
            Consumer<AbstractThrowableAssert<?, ? extends Throwable>> failure) {
        forEachStrictPrefix(bytes, (prefix, length) -> failure.accept(
                assertThatThrownBy(() -> decoder.decode(prefix)).as("prefix of %d bytes", length).isInstanceOf(type)));
    }
}
