package io.keepsake.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Runs the goals report's plumbing on tiny sizes (every section but the HDFS mini cluster, the
 * heap section's forked JVMs included) and checks the table's shape: every goal row is there, in
 * the goals table's order, with a figure, a spread and a verdict. Timings are not checked.
 */
class BenchmarkReportTest {

    /** The rows' comparisons start so, in this order, for the tiny mode's two disk sizes. */
    private static final List<String> ROW_PREFIXES = List.of(
            "restore (read + verify + decode) vs raw read of the same files, 64 KiB",
            "restore vs SeaTunnel 2.3.8 restore (unverified), 64 KiB",
            "restore (read + verify + decode) vs raw read of the same files, 256 KiB",
            "restore vs SeaTunnel 2.3.8 restore (unverified), 256 KiB",
            "save (encode + SHA-256 + write + fsync + commit) vs raw write + fsync, 64 KiB",
            "save vs SeaTunnel 2.3.8 save (no fsync, no checksum), 64 KiB",
            "save (encode + SHA-256 + write + fsync + commit) vs raw write + fsync, 256 KiB",
            "save vs SeaTunnel 2.3.8 save (no fsync, no checksum), 256 KiB",
            "extra heap while saving 4 MiB",
            "extra heap while restoring 4 MiB",
            "`keepsake verify` of 4 MiB with -Xmx128m",
            "newest savepoint of a job with 3 vs 12 savepoints",
            "small savepoint (4 pipelines x 64 KiB) vs the fsynced legacy store",
            "engine-wire-v1 encode + decode vs SeaTunnel's double protostuff path, 64 KiB",
            "HDFS savepoint on the mini cluster",
            "S3 save", "S3 restore", "S3 requests per savepoint");

    @Test
    void tinyRunPrintsEveryGoalRowWithAFigureASpreadAndAVerdict() {
        ReportOptions options = ReportOptions.tiny(BenchFiles.baseDirectory());
        BenchmarkReport.Run run = BenchmarkReport.run(options, BenchmarkReport.sections(), line -> { });

        List<GoalRow> rows = run.rows();
        assertThat(rows).hasSize(ROW_PREFIXES.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(rows.get(i).comparison()).startsWith(ROW_PREFIXES.get(i));
            assertThat(rows.get(i).goal()).isNotBlank();
        }
        List<GoalRow> measured = rows.subList(0, rows.size() - 4);
        assertThat(measured).allSatisfy(row -> {
            assertThat(row.verdict()).as(row.comparison() + ": " + row.spread()).isNotEqualTo(GoalRow.Verdict.NOT_RUN);
            assertThat(row.measured()).matches(".*\\d.*|passes");
            assertThat(row.spread()).isNotBlank();
        });
        assertThat(measured.subList(0, 8)).allSatisfy(row ->
                assertThat(row.spread()).matches("IQR [0-9.]+-[0-9.]+, min-max [0-9.]+-[0-9.]+, 2 rounds"));
        // Verify streams: a 4 MiB savepoint always fits in 128 MiB.
        assertThat(rows.get(10).measured()).isEqualTo("passes");
        // The lookup found the newest savepoint and counted the metadata files it opened.
        assertThat(rows.get(11).measured()).matches("[0-9.]+x; \\d+ vs \\d+ metadata files");
        // The mini cluster and the S3 server are off in the tiny mode.
        assertThat(rows.subList(rows.size() - 4, rows.size())).allSatisfy(row -> {
            assertThat(row.verdict()).isEqualTo(GoalRow.Verdict.NOT_RUN);
            assertThat(row.spread()).contains("switched off");
        });

        String markdown = BenchmarkReport.render(run, options);
        List<String> tableLines = markdown.lines().filter(line -> line.startsWith("| ")).toList();
        assertThat(tableLines).hasSize(2 + rows.size());
        assertThat(tableLines.get(0)).isEqualTo("| comparison | goal | measured (median) | spread | verdict |");
        assertThat(tableLines.subList(2, tableLines.size())).allSatisfy(line ->
                assertThat(line.chars().filter(c -> c == '|').count()).isEqualTo(6));
        assertThat(markdown).contains("- Machine: ").contains("- Disk: ").contains("Not met in this run: ");
    }

    @Test
    void spreadGivesMedianQuartilesAndExtremes() {
        Spread spread = Spread.of(new double[] {5, 1, 4, 2, 3});
        assertThat(spread.median()).isEqualTo(3.0);
        assertThat(spread.q1()).isEqualTo(2.0);
        assertThat(spread.q3()).isEqualTo(4.0);
        assertThat(spread.min()).isEqualTo(1.0);
        assertThat(spread.max()).isEqualTo(5.0);
        assertThat(Spread.of(new double[] {1, 2}).median()).isEqualTo(1.5);
        assertThat(Spread.ratios(new double[] {2, 9}, new double[] {4, 3})).containsExactly(0.5, 3.0);
        assertThat(spread.ratioSpread()).isEqualTo("IQR 2.00-4.00, min-max 1.00-5.00, 5 rounds");
    }

    @Test
    void lineFitRecoversConstantAndSlope() {
        double[] fit = HdfsSection.fit(new double[] {1, 2, 4, 8}, new double[] {17, 21, 29, 45});
        assertThat(fit[0]).isCloseTo(13.0, within(1e-9));
        assertThat(fit[1]).isCloseTo(4.0, within(1e-9));
    }
}
