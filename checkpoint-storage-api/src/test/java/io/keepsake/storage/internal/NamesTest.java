package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NamesTest {

    @Test
    void ordinaryIdsPass() {
        for (String ok : new String[] {"700000000000000002", "sp-0001796001599-1a2b3c4d", "a..b", "x".repeat(200), "名前"}) {
            assertThat(Names.requireSafeName("id", ok)).isEqualTo(ok);
        }
    }

    @Test
    void pathLikeIdsAreRefusedWithTheReasonAndTheValue() {
        assertThatThrownBy(() -> Names.requireSafeName("job id", "../etc"))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessage("Cannot accept job id: it starts with a dot ('../etc')");
        assertThatThrownBy(() -> Names.requireSafeName("job id", "a/b")).hasMessageContaining("separator");
        assertThatThrownBy(() -> Names.requireSafeName("job id", "a\\b")).hasMessageContaining("separator");
        assertThatThrownBy(() -> Names.requireSafeName("job id", "")).hasMessageContaining("empty");
        assertThatThrownBy(() -> Names.requireSafeName("job id", null)).hasMessageContaining("null");
        assertThatThrownBy(() -> Names.requireSafeName("job id", "x".repeat(201))).hasMessageContaining("longer");
        assertThatThrownBy(() -> Names.requireSafeName("job id", "a\u0000b")).hasMessageContaining("control")
                .hasMessageContaining("\\u0000");
    }

    /**
     * The check skips the normalizer for text below U+0300; every pair of such characters (and so,
     * as composition works on neighbours, every such text) must be NFC by the normalizer's own
     * verdict, and the first combining mark must still be judged by it.
     */
    @Test
    void textBelowTheCombiningMarksIsNfcAsTheNormalizerSays() {
        for (char a = 1; a < '\u0300'; a++) {
            for (char b = 1; b < '\u0300'; b++) {
                String pair = new String(new char[] {a, b});
                if (!java.text.Normalizer.isNormalized(pair, java.text.Normalizer.Form.NFC)) {
                    throw new AssertionError("not NFC although below U+0300: " + (int) a + ", " + (int) b);
                }
            }
        }
        assertThat(Names.isSafeName("e\u0301")).as("e + combining acute is NFD, not NFC").isFalse();
        assertThat(Names.isSafeName("\u00e9")).isTrue();
        assertThat(Names.isSafeName("A\u030a")).as("A + combining ring composes to U+00C5").isFalse();
    }
}
