package io.keepsake.bench;

import java.util.List;

/**
 * The S3 backend on an in-process S3Proxy ({@link S3Benchmark}): a 256 MiB savepoint (4 pipelines
 * of 64 MiB, multipart) against the raw SDK multipart upload of the same bytes, restore against a
 * raw {@code GetObject} of the same objects, interleaved, and the HTTP requests of each.
 */
public final class S3Section extends AbstractSection {

    private static final String SAVE = "S3 save (256 MiB, SHA-256, conditional create) vs raw SDK multipart upload";
    private static final String RESTORE = "S3 restore (every byte verified) vs raw SDK GetObject";
    private static final String REQUESTS = "S3 requests per savepoint";

    /** The system property {@code --no-s3} sets to false. */
    static final String ENABLED = "keepsake.bench.s3";

    /** The section. */
    public S3Section() {
        super("S3 (in-process S3Proxy)", List.of(new Planned(SAVE, ">= 0.8x"), new Planned(RESTORE, "reported"),
                new Planned(REQUESTS, "a constant + one per part")));
    }

    @Override
    public Result run(ReportOptions options) throws Exception {
        if ("tiny".equals(options.mode()) || !Boolean.parseBoolean(System.getProperty(ENABLED, "true"))) {
            return new Result(notRun("switched off (--no-s3, or the tiny mode)"), List.of());
        }
        int rounds = "full".equals(options.mode()) ? 5 : 2;
        S3Benchmark.Measured m = S3Benchmark.measure(rounds);
        Spread save = Spread.of(m.saveRatio());
        Spread restore = Spread.of(m.restoreRatio());
        int constant = m.saveRequests() - m.parts();
        List<GoalRow> rows = List.of(
                GoalRow.ratio(SAVE, ">= 0.8x", save, GoalRow.Verdict.of(save.median() >= 0.8)),
                GoalRow.ratio(RESTORE, "reported", restore, GoalRow.Verdict.REPORTED),
                new GoalRow(REQUESTS, "a constant + one per part", constant + " + " + m.parts() + " parts = "
                        + m.saveRequests(), "raw upload of the same bytes: " + m.rawPutRequests() + "; restore "
                        + m.restoreRequests() + " vs raw " + m.rawGetRequests(), GoalRow.Verdict.REPORTED));
        return new Result(rows, List.of("S3: " + S3Benchmark.params() + ", " + rounds
                + " interleaved rounds after one warm-up, S3Proxy 4.0.0 (transient-nio2) in this JVM over loopback HTTP;"
                + " ratios are Keepsake MiB/s / raw MiB/s within a round."));
    }
}
