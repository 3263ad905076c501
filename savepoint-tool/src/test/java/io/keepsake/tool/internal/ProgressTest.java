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
        Progress p = new Progress(new PrintWriter(err), true, "verify", 4L << 20, clock::get);

        clock.addAndGet(Progress.QUIET_NANOS - Progress.INTERVAL_NANOS);
        p.advance(1L << 20);
        assertThat(err.toString()).as("too soon to draw").isEmpty();
        clock.addAndGet(Progress.INTERVAL_NANOS);
        p.advance(1L << 20);
        clock.addAndGet(Progress.INTERVAL_NANOS / 2);
        p.advance(1L << 20);
        clock.addAndGet(Progress.INTERVAL_NANOS / 2);
        p.close();
        p.close();

        String[] draws = err.toString().split("\r", -1);
        assertThat(draws).hasSize(3);
        assertThat(draws[1]).startsWith("verify: 2.0 MiB of 4.0 MiB (50%)");
        assertThat(draws[2]).startsWith("verify: 3.0 MiB of 4.0 MiB (75%)").endsWith("\n");
    }

    @Test
    void workFinishedWithinTheQuietSecondPrintsNothingWhateverItsSize() {
        StringWriter err = new StringWriter();
        AtomicLong clock = new AtomicLong();
        Progress p = new Progress(new PrintWriter(err), true, "verify", 4L << 30, clock::get);

        for (int i = 0; i < 3; i++) {
            clock.addAndGet(Progress.INTERVAL_NANOS);
            p.advance(1L << 30);
        }
        clock.set(Progress.QUIET_NANOS - 1);
        p.advance(1L << 30);
        p.close();

        assertThat(err.toString()).as("4 GiB done in under a second").isEmpty();
        assertThat(p.done()).isEqualTo(4L << 30);
    }

    @Test
    void aKnownTotalBelowOneMebibytePrintsNothingHoweverLongItTakes() {
        StringWriter err = new StringWriter();
        AtomicLong clock = new AtomicLong();
        Progress p = new Progress(new PrintWriter(err), true, "verify", Progress.QUIET_BYTES - 1, clock::get);

        clock.addAndGet(10 * SECOND);
        p.advance(Progress.QUIET_BYTES / 2);
        clock.addAndGet(10 * SECOND);
        p.advance(Progress.QUIET_BYTES / 2 - 1);
        p.close();

        assertThat(err.toString()).isEmpty();
    }

    @Test
    void workLastingPastTheQuietSecondIsReportedEvenWhenItsOnlyAdvanceCameEarly() {
        StringWriter err = new StringWriter();
        AtomicLong clock = new AtomicLong();
        Progress p = new Progress(new PrintWriter(err), true, "migrate", 0, clock::get);

        p.advance(2048);
        clock.set(Progress.QUIET_NANOS);
        p.close();

        assertThat(err.toString()).isEqualTo("\rmigrate: 2.0 KiB, 2.0 KiB/s\n");
    }

    @Test
    void theEtaWaitsForEnoughWorkAndTimeToEstimateIt() {
        long total = 1000L << 20;
        assertThat(Progress.format("verify", 10L << 20, total, 10 * SECOND))
                .as("1% done: too little to estimate").isEqualTo("verify: 10.0 MiB of 1000.0 MiB (1%), 1.0 MiB/s");
        assertThat(Progress.format("verify", 900L << 20, total, SECOND))
                .as("one second: too soon to estimate").isEqualTo("verify: 900.0 MiB of 1000.0 MiB (90%), 900.0 MiB/s");
        assertThat(Progress.format("verify", 50L << 20, total, 2 * SECOND))
                .isEqualTo("verify: 50.0 MiB of 1000.0 MiB (5%), 25.0 MiB/s, ETA 38s");
    }

    @Test
    void aDrawnLineGainsItsEtaOnceEnoughIsDone() {
        StringWriter err = new StringWriter();
        AtomicLong clock = new AtomicLong();
        Progress p = new Progress(new PrintWriter(err), true, "verify", 100L << 20, clock::get);

        clock.set(Progress.QUIET_NANOS);
        p.advance(1L << 20);
        clock.set(Progress.ETA_AFTER_NANOS);
        p.advance(1L << 20);
        clock.addAndGet(Progress.INTERVAL_NANOS);
        p.advance(8L << 20);

        String[] draws = err.toString().split("\r", -1);
        assertThat(draws).hasSize(4);
        assertThat(draws[1]).doesNotContain("ETA").startsWith("verify: 1.0 MiB of 100.0 MiB (1%)");
        assertThat(draws[2]).doesNotContain("ETA").startsWith("verify: 2.0 MiB of 100.0 MiB (2%)");
        assertThat(draws[3]).startsWith("verify: 10.0 MiB of 100.0 MiB (10%)").contains(", ETA ");
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
