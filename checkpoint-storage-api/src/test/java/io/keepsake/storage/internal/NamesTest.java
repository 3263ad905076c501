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
}
