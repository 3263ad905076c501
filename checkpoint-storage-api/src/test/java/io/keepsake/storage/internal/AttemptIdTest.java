package io.keepsake.storage.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AttemptIdTest {

    private static final AttemptId ATTEMPT = new AttemptId("sp-1764570000000-1a2b3c4d", "0f1e2d3c4b5a6978");

    @Test
    void itsTextAndEveryNameOfItsFilesReadBackToTheSameAttempt() {
        assertThat(ATTEMPT).hasToString("sp-1764570000000-1a2b3c4d.0f1e2d3c4b5a6978");
        assertThat(AttemptId.parse(ATTEMPT.toString())).hasValue(ATTEMPT);
        assertThat(ATTEMPT.leaseName()).isEqualTo("sp-1764570000000-1a2b3c4d.0f1e2d3c4b5a6978.lease");
        assertThat(AttemptId.ofLeaseName(ATTEMPT.leaseName())).hasValue(ATTEMPT);
        assertThat(ATTEMPT.outcomeName()).isEqualTo("sp-1764570000000-1a2b3c4d.0f1e2d3c4b5a6978.outcome");
        assertThat(AttemptId.ofOutcomeName(ATTEMPT.outcomeName())).hasValue(ATTEMPT);
        String temp = ATTEMPT.outcomeName() + StagedFiles.TEMP_MARK + "00112233445566ff";
        assertThat(AttemptId.ofOutcomeName(temp)).hasValue(ATTEMPT);
        assertThat(AttemptId.isTemporaryOutcomeName(temp)).isTrue();
        assertThat(ATTEMPT.payloadName(-3)).isEqualTo("pipeline--3.sp-1764570000000-1a2b3c4d.0f1e2d3c4b5a6978.wire");
        assertThat(AttemptId.ofPayloadName(ATTEMPT.savepointId(), ATTEMPT.payloadName(-3))).hasValue(ATTEMPT);
    }

    @Test
    void namesOfOtherShapesAreNotAttempts() {
        assertThat(AttemptId.parse("sp-1.0F1E2D3C4B5A6978")).isEmpty();
        assertThat(AttemptId.parse("sp-1.0f1e2d3c4b5a697")).isEmpty();
        assertThat(AttemptId.parse(".0f1e2d3c4b5a6978")).isEmpty();
        assertThat(AttemptId.parse("sp\n1.0f1e2d3c4b5a6978")).isEmpty();
        assertThat(AttemptId.ofLeaseName(ATTEMPT.outcomeName())).isEmpty();
        assertThat(AttemptId.ofOutcomeName(ATTEMPT.outcomeName() + StagedFiles.TEMP_MARK + "0011")).isEmpty();
        assertThat(AttemptId.ofPayloadName("sp-other", ATTEMPT.payloadName(1))).isEmpty();
        assertThat(AttemptId.ofPayloadName(ATTEMPT.savepointId(), "pipeline-1.wire")).isEmpty();
        assertThatThrownBy(() -> new AttemptId("sp-1", "XYZ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("XYZ");
    }

    @Test
    void aDrawnAttemptIsForItsSavepoint() {
        AttemptId next = AttemptId.next("sp-1");
        assertThat(next.savepointId()).isEqualTo("sp-1");
        assertThat(AttemptId.parse(next.toString())).hasValue(next);
    }
}
