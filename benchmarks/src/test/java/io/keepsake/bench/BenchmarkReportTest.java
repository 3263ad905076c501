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
            "restore, format version 2 (read + verify + decode) vs the CPU bound ((raw read + SHA-256 + decode) /"
                    + " cores), 64 KiB",
            "restore, format version 2 vs SeaTunnel 2.3.8 restore (unverified), 64 KiB",
            "restore, format version 2 vs format version 1 (one SHA-256 stream), 64 KiB",
            "restore, format version 2 (read + verify + decode) vs the CPU bound ((raw read + SHA-256 + decode) /"
                    + " cores), 256 KiB",
            "restore, format version 2 vs SeaTunnel 2.3.8 restore (unverified), 256 KiB",
            "restore, format version 2 vs format version 1 (one SHA-256 stream), 256 KiB",
            "save, format version 2 (encode + chunk SHA-256 + write + fsync + commit) vs raw write + fsync, 64 KiB",
            "save vs SeaTunnel 2.3.8 save (no fsync, no checksum), 64 KiB",
            "save, format version 2 (encode + chunk SHA-256 + write + fsync + commit) vs raw write + fsync, 256 KiB",
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
            "SeaTunnel plugin: checkpoint store", "SeaTunnel plugin: savepoint store",
            "checkpoint store + rotation", "savepoint, 4 x", "savepoint, 4 x", "restore, 4 x", "restore, 4 x",
            "newest state", "newest state", "Keepsake recoverLatest", "Keepsake list of a job", "every row at 0 ms",
            "Azure: checkpoint store + rotation", "Azure: savepoint, 4 x", "Azure: savepoint, 4 x",
            "Azure: restore, 4 x", "Azure: restore, 4 x", "Azure: newest state");

    /** The object-store section's rows, last; switched off in the tiny mode (ObjectStoreSectionTest runs it). */
    private static final int OBJECT_STORE_ROWS = 16;

    @Test
    void tinyRunPrintsEveryGoalRowWithAFigureASpreadAndAVerdict() {
        ReportOptions options = ReportOptions.tiny(BenchFiles.baseDirectory());
        System.setProperty(SeaTunnelStoreSection.FILE_PROPERTY, "no-such-store-cost.tsv");
        BenchmarkReport.Run run = BenchmarkReport.run(options, BenchmarkReport.sections(), line -> { });

        List<GoalRow> all = run.rows();
        assertThat(all).hasSize(ROW_PREFIXES.size());
        for (int i = 0; i < all.size(); i++) {
            assertThat(all.get(i).comparison()).startsWith(ROW_PREFIXES.get(i));
        }
        assertThat(all.subList(all.size() - OBJECT_STORE_ROWS, all.size())).allSatisfy(row -> {
            assertThat(row.verdict()).isEqualTo(GoalRow.Verdict.NOT_RUN);
            assertThat(row.spread()).contains("switched off");
        });
        List<GoalRow> rows = all.subList(0, all.size() - OBJECT_STORE_ROWS);
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
        assertThat(measured.subList(0, 10)).allSatisfy(row ->
                assertThat(row.spread()).matches("IQR [0-9.]+-[0-9.]+, min-max [0-9.]+-[0-9.]+, 2 rounds(; .*)?"));
        assertThat(rows.get(0).spread()).matches(".*; bound [0-9.]+ ms = \\(read [0-9.]+ ms \\+ hash [0-9.]+ ms"
                + " \\+ decode [0-9.]+ ms\\) / \\d+ cores?; vs the raw read alone [0-9.]+x");
        // Verify streams: a 4 MiB savepoint always fits in 128 MiB.
        assertThat(rows.get(12).measured()).isEqualTo("passes");
        // The lookup found the newest savepoint and counted the metadata files it opened.
        assertThat(rows.get(13).measured()).matches("[0-9.]+x; \\d+ vs \\d+ metadata files");
        assertThat(rows.get(14).measured()).matches("[0-9.]+x");
        assertThat(rows.get(14).spread()).contains("metadata files read");
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
        List<String> lines = markdown.lines().toList();
        int header = lines.indexOf("| comparison | goal | measured (median) | spread | verdict |");
        List<String> tableLines = lines.subList(header, lines.size()).stream().takeWhile(line -> line.startsWith("| "))
                .toList();
        assertThat(tableLines).hasSize(2 + all.size());
        assertThat(tableLines.get(0)).isEqualTo("| comparison | goal | measured (median) | spread | verdict |");
        assertThat(tableLines.subList(2, tableLines.size())).allSatisfy(line ->
                assertThat(line.chars().filter(c -> c == '|').count()).isEqualTo(6));
        assertThat(markdown).contains("- Machine: ").contains("- Disk: ").contains("Not met in this run: ");

        // The thread table follows the goals table: restore at the largest size on 1, 2, 4 and the
        // processors' count of verifier threads, in the same rounds.
        int cores = Runtime.getRuntime().availableProcessors();
        int threadHeader = lines.indexOf("| verify threads | restore (median) | spread | speed vs 1 thread"
                + " | of the CPU bound |");
        assertThat(threadHeader).isGreaterThan(header);
        assertThat(lines.get(threadHeader - 2)).startsWith("Restore of 256 KiB (format version 2) against"
                + " `savepoint.verify-threads`, on " + cores + " core");
        List<String> threadRows = lines.subList(threadHeader + 2, lines.size()).stream()
                .takeWhile(line -> line.startsWith("| ")).toList();
        assertThat(threadRows).hasSize(RestoreSection.tableThreads(cores).size());
        assertThat(threadRows.get(0)).matches("\\| 1( \\(default here\\))? \\| [0-9.]+ ms \\| IQR .*, 2 rounds \\|"
                + " 1\\.00x \\(IQR 1\\.00-1\\.00\\) \\| [0-9.]+x \\|");
        assertThat(threadRows).anySatisfy(line -> assertThat(line).startsWith("| " + cores + " (default here) | "));
    }

    @Test
    void restoreRowsJudgeRoundByRoundAgainstTheCpuBoundSeaTunnelAndVersion1() {
        // Read 20, one SHA-256 stream 120 for the 100 payload bytes, decode 20: 160 of work, 80 on 2 cores.
        double[] raw = {20e6, 20e6, 60e6};
        double[] sha = {120e6, 120e6, 120e6};
        double[] decode = {20e6, 20e6, 20e6};
        double[] bound = RestoreSection.cpuBound(raw, sha, decode, 100, 100, 2);
        assertThat(bound).containsExactly(80e6, 80e6, 100e6);
        // The savepoint's files are hashed, metadata included: 110 bytes take 132 at the same rate.
        assertThat(RestoreSection.cpuBound(new double[] {0}, sha, new double[] {0}, 100, 110, 2))
                .containsExactly(66e6);
        // On one core the whole work bounds.
        assertThat(RestoreSection.cpuBound(raw, sha, decode, 100, 100, 1)).containsExactly(160e6, 160e6, 200e6);

        GoalRow atGoal = RestoreSection.boundRow("256 MiB", 2, new double[] {100e6, 100e6, 125e6}, bound, raw, sha,
                decode);
        assertThat(atGoal.measured()).isEqualTo("0.80x");
        assertThat(atGoal.verdict()).isEqualTo(GoalRow.Verdict.MET);
        assertThat(atGoal.spread()).isEqualTo("IQR 0.80-0.80, min-max 0.80-0.80, 3 rounds; bound 80.0 ms = (read"
                + " 20.0 ms + hash 120 ms + decode 20.0 ms) / 2 cores; vs the raw read alone 0.20x");
        GoalRow below = RestoreSection.boundRow("256 MiB", 2, new double[] {101e6, 101e6, 127e6}, bound, raw, sha,
                decode);
        assertThat(below.measured()).isEqualTo("0.79x");
        assertThat(below.verdict()).isEqualTo(GoalRow.Verdict.NOT_MET);

        // Faster than SeaTunnel is needed: a tie does not meet the goal.
        assertThat(RestoreSection.peerRow("1 MiB", new double[] {10, 10}, new double[] {10, 10}).verdict())
                .isEqualTo(GoalRow.Verdict.NOT_MET);
        GoalRow faster = RestoreSection.peerRow("1 MiB", new double[] {10, 10, 10}, new double[] {9, 11, 12});
        assertThat(faster.measured()).isEqualTo("1.10x");
        assertThat(faster.verdict()).isEqualTo(GoalRow.Verdict.MET);
        GoalRow v1 = RestoreSection.v1Row("1 MiB", new double[] {10, 20}, new double[] {15, 30});
        assertThat(v1.measured()).isEqualTo("1.50x");
        assertThat(v1.verdict()).isEqualTo(GoalRow.Verdict.REPORTED);
    }

    @Test
    void threadTableGivesEachCountsTimeItsSpeedAgainstOneThreadAndItsShareOfTheBound() {
        assertThat(RestoreSection.tableThreads(2)).containsExactly(1, 2, 4);
        assertThat(RestoreSection.tableThreads(1)).containsExactly(1, 2, 4);
        assertThat(RestoreSection.tableThreads(16)).containsExactly(1, 2, 4, 16);

        java.util.Map<String, double[]> samples = new java.util.TreeMap<>(java.util.Map.of(
                "v2", new double[] {200e6, 220e6, 210e6},
                "threads-1", new double[] {400e6, 400e6, 400e6},
                "threads-2", new double[] {200e6, 220e6, 210e6},
                "threads-4", new double[] {250e6, 200e6, 400e6},
                "raw", new double[] {50e6, 50e6, 50e6}));
        String table = RestoreSection.threadTable("256 MiB", 2, samples, new double[] {160e6, 160e6, 160e6});
        assertThat(table.lines().toList()).containsExactly(
                "Restore of 256 MiB (format version 2) against `savepoint.verify-threads`, on 2 cores (available"
                        + " processors; the default is one thread per processor), all counts in the same rounds:",
                "",
                "| verify threads | restore (median) | spread | speed vs 1 thread | of the CPU bound |",
                "| --- | --- | --- | --- | --- |",
                "| 1 | 400 ms | IQR 400-400 ms, min-max 400-400 ms, 3 rounds | 1.00x (IQR 1.00-1.00) | 0.40x |",
                "| 2 (default here) | 210 ms | IQR 205-215 ms, min-max 200-220 ms, 3 rounds | 1.90x (IQR 1.86-1.95)"
                        + " | 0.76x |",
                "| 4 | 250 ms | IQR 225-325 ms, min-max 200-400 ms, 3 rounds | 1.60x (IQR 1.30-1.80) | 0.64x |");
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
