package io.keepsake.tool.internal;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void formatsBytesRateAndEta() {
        assertThat(Progress.format("verify", 120L << 20, 300L << 20, 4 * SECOND))
                .isEqualTo("verify: 120.0 MiB of 300.0 MiB (40%), 30.0 MiB/s, ETA 6s");
        assertThat(Progress.format("migrate", 3L << 20, 0, 2 * SECOND)).isEqualTo("migrate: 3.0 MiB, 1.5 MiB/s");
        assertThat(Progress.format("verify", 0, 1024, 0)).isEqualTo("verify: 0 B of 1.0 KiB (0%)");
    }

    @Test
    void formatsSizesAndDurationsForPeople() {
        assertThat(Progress.bytes(512)).isEqualTo("512 B");
        assertThat(Progress.bytes(1536)).isEqualTo("1.5 KiB");
        assertThat(Progress.bytes(2L << 30)).isEqualTo("2.0 GiB");
        assertThat(Progress.duration(7)).isEqualTo("7s");
        assertThat(Progress.duration(65)).isEqualTo("1m05s");
        assertThat(Progress.duration(7380)).isEqualTo("2h03m");
    }

    @Test
    void redrawsInPlaceAtMostEveryQuarterSecondAndEndsTheLine() {
        StringWriter err = new StringWriter();
        AtomicLong clock = new AtomicLong();
        Progress p = new Progress(new PrintWriter(err), true, "verify", 4096, clock::get);

        p.advance(1024);
        assertThat(err.toString()).as("too soon to draw").isEmpty();
        clock.addAndGet(Progress.INTERVAL_NANOS);
        p.advance(1024);
        clock.addAndGet(Progress.INTERVAL_NANOS / 2);
        p.advance(1024);
        clock.addAndGet(Progress.INTERVAL_NANOS / 2);
        p.close();
        p.close();

        String[] draws = err.toString().split("\r", -1);
        assertThat(draws).hasSize(3);
        assertThat(draws[1]).startsWith("verify: 2.0 KiB of 4.0 KiB (50%)");
        assertThat(draws[2]).startsWith("verify: 3.0 KiB of 4.0 KiB (75%)").endsWith("\n");
    }

    @Test
    void aDisabledReportPrintsNothing() {
        StringWriter err = new StringWriter();
        AtomicLong clock = new AtomicLong();
        Progress p = new Progress(new PrintWriter(err), false, "verify", 10, clock::get);

        clock.addAndGet(10 * SECOND);
        p.advance(10);
        p.close();

        assertThat(err.toString()).isEmpty();
        assertThat(p.done()).isEqualTo(10);
    }
}
