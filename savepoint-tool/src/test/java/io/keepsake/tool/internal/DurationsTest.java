package io.keepsake.tool.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @Test
    void acceptsIsoAndSimpleForms() {
        assertThat(Durations.parse("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("p7d")).isEqualTo(Duration.ofDays(7));
        assertThat(Durations.parse("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(Durations.parse("45s")).isEqualTo(Duration.ofSeconds(45));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("0s")).isEqualTo(Duration.ZERO);
    }

    @Test
    void refusesNegativeAndMalformedValues() {
        assertThatThrownBy(() -> Durations.parse("-PT1H")).hasMessageContaining("negative");
        assertThatThrownBy(() -> Durations.parse("1w")).hasMessageContaining("Cannot parse duration");
        assertThatThrownBy(() -> Durations.parse("")).hasMessageContaining("Cannot parse duration");
        assertThatThrownBy(() -> Durations.parse("PT")).hasMessageContaining("Cannot parse duration");
    }
}
