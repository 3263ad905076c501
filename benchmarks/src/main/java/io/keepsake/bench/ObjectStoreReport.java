package io.keepsake.bench;

import io.keepsake.bench.ObjectStoreSection.Cell;
import io.keepsake.bench.ObjectStoreSection.Measure;
import io.keepsake.bench.ObjectStoreSection.Sizes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;

import static io.keepsake.bench.ObjectStoreSection.LATENCY;
import static io.keepsake.bench.ObjectStoreSection.LIST_NOTE;
import static io.keepsake.bench.ObjectStoreSection.LOOKUP_GOAL;
import static io.keepsake.bench.ObjectStoreSection.PIPELINES;
import static io.keepsake.bench.ObjectStoreSection.REQUEST_GOAL;
import static io.keepsake.bench.ObjectStoreSection.STORE_GOAL;

/**
 * What the object-store section reports from the cells of one run: its goal rows, its table of
 * every row at both latencies, and its notes on how the two sides were driven.
 */
final class ObjectStoreReport {

    private final Sizes sizes;
    private final Map<String, Cell> zero;
    private final Map<String, Cell> twenty;
    /** Each row's key to its name in the report, in the table's order. */
    private final Map<String, String> names = new LinkedHashMap<>();

    ObjectStoreReport(Sizes sizes, Map<String, Cell> zero, Map<String, Cell> twenty) {
        this.sizes = sizes;
        this.zero = zero;
        this.twenty = twenty;
        String sm = ReportOptions.size(sizes.smallBytes());
        String lg = ReportOptions.size(sizes.largeBytes());
        List<String> store = ObjectStoreSection.storeRows(ReportOptions.size(sizes.checkpointBytes()), sm, lg);
        List<String> other = ObjectStoreSection.otherRows(sm, lg, sizes.few(), sizes.many());
        names.put("checkpoint", store.get(0));
        names.put("savepoint-small", store.get(1));
        names.put("savepoint-large", store.get(2));
        names.put("restore-small", other.get(0));
        names.put("restore-large", other.get(1));
        names.put("lookup-few", other.get(2));
        names.put("lookup-many", other.get(3));
        names.put("list-few", String.format(Locale.ROOT, "list of a job (Keepsake only), %,d savepoints",
                sizes.few()));
        names.put("list-many", String.format(Locale.ROOT, "list of a job (Keepsake only), %,d savepoints",
                sizes.many()));
    }

    /** The goal rows; {@code listManyAtLatency} is whether the list of many savepoints ran at 20 ms. */
    List<GoalRow> rows(boolean listManyAtLatency) {
        List<GoalRow> rows = new ArrayList<>();
        for (String key : List.of("checkpoint", "savepoint-small", "savepoint-large")) {
            Cell c = twenty.get(key);
            Spread speedup = Spread.of(Spread.ratios(c.seatunnel, c.keepsake));
            boolean fewer = c.keepsakeLast.requests() < c.seatunnelLast.requests();
            rows.add(new GoalRow(names.get(key) + " at 20 ms", STORE_GOAL, speedup.medianRatio() + "; "
                    + requests(c), speedup.ratioSpread() + "; " + times(c),
                    GoalRow.Verdict.of(speedup.median() >= 2.0 && fewer)));
        }
        for (String key : List.of("restore-small", "restore-large", "lookup-few", "lookup-many")) {
            Cell c = twenty.get(key);
            Spread speedup = Spread.of(Spread.ratios(c.seatunnel, c.keepsake));
            rows.add(new GoalRow(names.get(key) + " at 20 ms", REQUEST_GOAL, requests(c) + "; "
                    + speedup.medianRatio() + " faster", speedup.ratioSpread() + "; " + times(c),
                    GoalRow.Verdict.of(c.keepsakeLast.requests() < c.seatunnelLast.requests())));
        }
        Cell few = twenty.get("lookup-few");
        Cell many = twenty.get("lookup-many");
        Spread lookup = Spread.of(Spread.ratios(many.keepsake, few.keepsake));
        rows.add(new GoalRow(String.format(Locale.ROOT, "Keepsake recoverLatest, %,d vs %,d savepoints, at 20 ms",
                sizes.many(), sizes.few()), LOOKUP_GOAL, lookup.medianRatio() + "; requests "
                + many.keepsakeLast.requests() + " vs " + few.keepsakeLast.requests(), lookup.ratioSpread(),
                GoalRow.Verdict.of(lookup.median() <= 2.0)));
        rows.add(listRow(listManyAtLatency));
        rows.add(requestsAtZeroRow());
        return rows;
    }

    /** The list of many savepoints beside the list of few; a lower bound from its round trips where it did not run at 20 ms. */
    private GoalRow listRow(boolean listManyAtLatency) {
        Cell listFew = twenty.get("list-few");
        String name = String.format(Locale.ROOT, "Keepsake list of a job, %,d vs %,d savepoints, at 20 ms",
                sizes.many(), sizes.few());
        if (listManyAtLatency) {
            Cell listMany = twenty.get("list-many");
            Spread list = Spread.of(measuredRatios(listMany.keepsake, listFew.keepsake));
            return new GoalRow(name, LIST_NOTE, list.medianRatio() + "; requests "
                    + listMany.keepsakeLast.requests() + " vs " + listFew.keepsakeLast.requests(),
                    list.ratioSpread(), GoalRow.Verdict.REPORTED);
        }
        Measure m0 = zero.get("list-many").keepsakeLast;
        double bound = m0.roundTrips() * (double) LATENCY.toNanos();
        double fewMedian = Spread.of(measured(listFew.keepsake)).median();
        return new GoalRow(name, LIST_NOTE, ">= " + Spread.ratio(bound / fewMedian)
                + "x (not run at 20 ms)", m0.roundTrips() + " sequential round trips at 0 ms x 20 ms = "
                + Spread.millis(bound) + " ms at least, vs " + Spread.millis(fewMedian) + " ms with "
                + sizes.few(), GoalRow.Verdict.REPORTED);
    }

    private GoalRow requestsAtZeroRow() {
        boolean fewerAtZero = true;
        List<String> more = new ArrayList<>();
        for (String key : List.of("checkpoint", "savepoint-small", "savepoint-large", "restore-small",
                "restore-large", "lookup-few", "lookup-many")) {
            Cell c = zero.get(key);
            if (c.keepsakeLast.requests() >= c.seatunnelLast.requests()) {
                fewerAtZero = false;
                more.add(names.get(key));
            }
        }
        return new GoalRow("every row at 0 ms: requests", REQUEST_GOAL, fewerAtZero ? "fewer on every row"
                : "not fewer on: " + String.join(", ", more), "see the object-store table", GoalRow.Verdict.of(
                fewerAtZero));
    }

    /** The Markdown table: every row at both latencies, both sides. */
    String table() {
        StringBuilder table = new StringBuilder();
        table.append("Object store: S3Proxy behind LatencyProxy (")
                .append(LatencyProxy.DEFAULT_BYTES_PER_SECOND >> 20).append(" MiB/s per connection each way),")
                .append(" Keepsake / SeaTunnel-on-S3A per row; times are medians (min-max) of ")
                .append(sizes.rounds()).append(" interleaved rounds; requests, sequential round trips and bytes")
                .append(" are the last round's, from the proxy's log (requests left running in the background in")
                .append(" brackets).\n\n");
        table.append("| row | added time to first byte | Keepsake time | SeaTunnel-on-S3A time | SeaTunnel / Keepsake"
                + " | requests | sequential round trips | bytes moved |\n");
        table.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (String key : names.keySet()) {
            for (int l = 0; l < 2; l++) {
                Cell c = (l == 0 ? zero : twenty).get(key);
                table.append("| ").append(names.get(key)).append(" | ").append(l == 0 ? "0 ms" : "20 ms")
                        .append(" | ").append(time(c.keepsake)).append(" | ").append(time(c.seatunnel))
                        .append(" | ").append(c.seatunnelLast == null || Double.isNaN(c.seatunnel[0]) ? "-"
                                : Spread.of(Spread.ratios(c.seatunnel, c.keepsake)).medianRatio())
                        .append(" | ").append(pair(c, Measure::requests, true))
                        .append(" | ").append(pair(c, Measure::roundTrips, false))
                        .append(" | ").append(bytes(c)).append(" |\n");
            }
        }
        return table.toString();
    }

    /** How each side was driven, and how the lookup jobs were seeded (in {@code seedMillis}). */
    List<String> notes(long seedMillis) {
        return List.of("Object store: Keepsake's checkpoint store goes through the SeaTunnel plugin's"
                + " KeepsakeCheckpointStorage on storage.type s3 (storeCheckPoint of the engine's serialized"
                + " checkpoint, then deleteCheckpoint(job, pipeline, [previous id]) as the engine rotates past"
                + " max-retained 1); its savepoints through SavepointSaveSession on that storage, each pipeline"
                + " reported from its own thread, restored with SavepointRestorer.restoreSavepoint; the newest"
                + " state with SavepointRestorer.recoverLatest, the list with listSavepoints. SeaTunnel 2.3.8's"
                + " checkpoint-storage-hdfs on S3A runs in a child JVM: a savepoint is storeAll of "
                + PIPELINES + " checkpoint files from " + PIPELINES + " threads, a restore "
                + PIPELINES + " getLatestCheckpointByJobIdAndPipelineId calls from a parallel stream as the"
                + " engine's CheckpointManager makes them (restoreAll), the newest state one such call with the"
                + " job's files listed. SeaTunnel times are the child's own around its storage calls.",
                String.format(Locale.ROOT, "Object store: lookup jobs seeded in %,d ms without the latency"
                + " proxy: Keepsake's %,d and %,d savepoints (one 1 KiB pipeline each) written by its local"
                + " backend and their files planted in S3Proxy's blob store under the S3 savepoint root, then"
                + " listed and recovered on S3 as a check; SeaTunnel's newest checkpoint file stored through"
                + " its storage, and copies of it under the names of checkpoints 1..n-1 planted in S3Proxy's"
                + " blob store. Round trips: the longest chain of logged requests each starting after the one"
                + " before ended, among those that started before the call returned.", seedMillis,
                sizes.few(), sizes.many()));
    }

    static String time(double[] nanos) {
        double[] valid = measured(nanos);
        if (valid.length == 0) {
            return "-";
        }
        Spread s = Spread.of(valid);
        return s.medianMillis() + " (" + Spread.millis(s.min()) + "-" + Spread.millis(s.max()) + ")";
    }

    static String pair(Cell c, ToIntFunction<Measure> f, boolean background) {
        String k = c.keepsakeLast == null ? "-" : f.applyAsInt(c.keepsakeLast) + (background
                && c.keepsakeLast.background() > 0 ? " (" + c.keepsakeLast.background() + ")" : "");
        String s = c.seatunnelLast == null ? "-" : f.applyAsInt(c.seatunnelLast) + (background
                && c.seatunnelLast.background() > 0 ? " (" + c.seatunnelLast.background() + ")" : "");
        return k + " / " + s;
    }

    static String bytes(Cell c) {
        return (c.keepsakeLast == null ? "-" : mib(c.keepsakeLast.bytes())) + " / "
                + (c.seatunnelLast == null ? "-" : mib(c.seatunnelLast.bytes()));
    }

    private static String mib(long bytes) {
        return bytes >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20))
                : String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }

    private static String requests(Cell c) {
        return "requests " + c.keepsakeLast.requests() + " vs " + c.seatunnelLast.requests() + ", round trips "
                + c.keepsakeLast.roundTrips() + " vs " + c.seatunnelLast.roundTrips();
    }

    private static String times(Cell c) {
        return "median " + Spread.millis(Spread.of(c.keepsake).median()) + " vs "
                + Spread.millis(Spread.of(c.seatunnel).median()) + " ms";
    }

    /** The samples of the rounds that measured (the list of many savepoints is measured in the last round only). */
    static double[] measured(double[] samples) {
        return Arrays.stream(samples).filter(v -> v > 0 && !Double.isNaN(v)).toArray();
    }

    /** {@code a[i] / b[i]} for the rounds in which both were measured. */
    static double[] measuredRatios(double[] a, double[] b) {
        return IntStream.range(0, Math.min(a.length, b.length))
                .filter(i -> a[i] > 0 && b[i] > 0 && !Double.isNaN(a[i]) && !Double.isNaN(b[i]))
                .mapToDouble(i -> a[i] / b[i]).toArray();
    }
}
