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
            "recoverLatest, 12 savepoints tying on one checkpoint id vs 12 distinct ids",
            "small savepoint (4 pipelines x 64 KiB) vs the fsynced legacy store",
            "engine-wire-v1 encode + decode vs SeaTunnel's double protostuff path, 64 KiB",
            "HDFS savepoint on the mini cluster",
            "S3 save", "S3 restore", "S3 requests per savepoint",
            "SeaTunnel plugin: checkpoint store", "SeaTunnel plugin: savepoint store");

    @Test
    void tinyRunPrintsEveryGoalRowWithAFigureASpreadAndAVerdict() {
        ReportOptions options = ReportOptions.tiny(BenchFiles.baseDirectory());
        System.setProperty(SeaTunnelStoreSection.FILE_PROPERTY, "no-such-store-cost.tsv");
        BenchmarkReport.Run run = BenchmarkReport.run(options, BenchmarkReport.sections(), line -> { });

        List<GoalRow> rows = run.rows();
        assertThat(rows).hasSize(ROW_PREFIXES.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(rows.get(i).comparison()).startsWith(ROW_PREFIXES.get(i));
            assertThat(rows.get(i).goal()).isNotBlank();
        }
        List<GoalRow> measured = rows.subList(0, rows.size() - 6);
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
        assertThat(rows.get(12).measured()).matches("[0-9.]+x");
        assertThat(rows.get(12).spread()).contains("metadata files read");
        // The mini cluster and the S3 server are off in the tiny mode.
        assertThat(rows.subList(rows.size() - 6, rows.size() - 2)).allSatisfy(row -> {
            assertThat(row.verdict()).isEqualTo(GoalRow.Verdict.NOT_RUN);
            assertThat(row.spread()).contains("switched off");
        });
        // The plugin's stores are measured beside the engine by StoreCostTest, whose rounds are absent here.
        assertThat(rows.subList(rows.size() - 2, rows.size())).allSatisfy(row -> {
            assertThat(row.verdict()).isEqualTo(GoalRow.Verdict.NOT_RUN);
            assertThat(row.spread()).contains("StoreCostTest");
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
    void storeCostRowsAreRatiosWithinEachRoundOfTheEngineMeasurement(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("store-cost.tsv");
        java.nio.file.Files.writeString(file, String.join("\n",
                "# state-bytes\t169605", "# machine\t2 cores", "# measured\t2026-12-02T05:40:00Z",
                "floor\t100\t200\t400", "rename-floor\t120\t220\t420", "checkpoint\t140\t300\t1000",
                "savepoint\t280\t1200\t3000", "localfile\t10\t20\t30", ""));
        System.setProperty(SeaTunnelStoreSection.FILE_PROPERTY, file.toString());
        try {
            ReportSection.Result result = new SeaTunnelStoreSection().run(ReportOptions.tiny(dir));
            assertThat(result.rows()).hasSize(2);
            assertThat(result.rows().get(0).measured()).isEqualTo("1.50x");
            assertThat(result.rows().get(0).verdict()).isEqualTo(GoalRow.Verdict.MET);
            assertThat(result.rows().get(0).spread()).startsWith("IQR 1.45-2.00, min-max 1.40-2.50, 3 rounds; 169605 B");
            assertThat(result.rows().get(1).measured()).isEqualTo("3.00x");
            assertThat(result.rows().get(1).verdict()).isEqualTo(GoalRow.Verdict.MET);
            assertThat(result.notes()).singleElement().asString().contains("Machine: 2 cores");
        } finally {
            System.clearProperty(SeaTunnelStoreSection.FILE_PROPERTY);
        }
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
