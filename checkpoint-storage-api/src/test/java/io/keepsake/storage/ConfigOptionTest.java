package io.keepsake.storage;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigOptionTest {

    private static final ConfigOption<Integer> ATTEMPTS = ConfigOption.integer("x.attempts", "tries", 4,
            "is not a whole number").check(n -> n >= 1 && n <= 20, "must be between 1 and 20");

    @Test
    void anAbsentKeyReadsAsItsDefault() {
        assertThat(ATTEMPTS.read(Map.of(), "test storage")).isEqualTo(4);
        assertThat(ConfigOption.text("x.name", "a name", null).read(Map.of(), "test storage")).isNull();
    }

    @Test
    void theTextIsTrimmedBeforeItParses() {
        assertThat(ATTEMPTS.read(Map.of("x.attempts", " 7 "), "test storage")).isEqualTo(7);
        assertThat(ConfigOption.bool("x.flag", "a flag", false).read(Map.of("x.flag", " TRUE"), "test storage"))
                .isTrue();
    }

    @Test
    void textThatDoesNotParseIsRefusedNamingTheKeyAndTheValueAsGiven() {
        assertThatThrownBy(() -> ATTEMPTS.read(Map.of("x.attempts", "many "), "test storage"))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessage("Cannot configure test storage: x.attempts is not a whole number (many )");
    }

    @Test
    void aValueARuleRefusesIsRefusedWithThatRulesProblem() {
        assertThatThrownBy(() -> ATTEMPTS.read(Map.of("x.attempts", "21"), "test storage"))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessage("Cannot configure test storage: x.attempts must be between 1 and 20 (21)");
        assertThatThrownBy(() -> ConfigOption.bool("x.flag", "a flag", false).read(Map.of("x.flag", "yes"), "t"))
                .hasMessage("Cannot configure t: x.flag must be true or false (yes)");
    }
}
