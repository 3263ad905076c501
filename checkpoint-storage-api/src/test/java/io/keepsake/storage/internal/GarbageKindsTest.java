package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcCandidate.Kind;
import io.keepsake.storage.spi.PendingUpload;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GarbageKindsTest {

    @Test
    void kindsKeepTheLabelsReportsShow() {
        assertThat(Arrays.stream(Kind.values()).map(Kind::label)).containsExactly(
                "staging attempt", "expired lease", "incomplete savepoint directory", "collection leftover",
                "checkpoint temporary file", "orphaned index marker", "orphaned newest marker",
                "stale multipart upload", "stale attempt files", "unfinished publication",
                "settled attempt outcome", "outcome temporary file", "settled deletion record",
                "empty savepoint directory");
    }

    @Test
    void typedRemovalsReportTheirPathsAsCandidatesShowThem() {
        assertThat(new Garbage.Upload("job", new PendingUpload("root/job/sp/f", "u1", 5)).candidate())
                .isEqualTo(new GcCandidate("job", "root/job/sp/f (upload u1)", Kind.STALE_UPLOAD, 5));
        assertThat(new Garbage.AttemptFiles("job", "root/job/sp", new AttemptId("sp", "0123456789abcdef"), 7).candidate())
                .isEqualTo(new GcCandidate("job", "root/job/sp/pipeline-*.sp.0123456789abcdef.wire",
                        Kind.STALE_ATTEMPT_FILES, 7));
        assertThat(new Garbage.Publication("job", "root/job/.staging/x.0123456789abcdef.outcome",
                new AttemptId("x", "0123456789abcdef"), 9).candidate().kind())
                .isEqualTo(Kind.UNFINISHED_PUBLICATION);
    }

    @Test
    void aKindThatNeedsTypedPartsIsNotAPlainEntry() {
        assertThatThrownBy(() -> new Garbage.Entry("job", "p (upload u)", Kind.STALE_UPLOAD, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stale multipart upload");
    }
}
