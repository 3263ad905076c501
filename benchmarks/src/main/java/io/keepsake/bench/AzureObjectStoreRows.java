package io.keepsake.bench;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.specialized.BlockBlobClient;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.keepsake.bench.ObjectStoreSection.Cell;
import io.keepsake.bench.ObjectStoreSection.Measure;
import io.keepsake.bench.ObjectStoreSection.Sizes;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.wire.CheckpointWireCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import static io.keepsake.bench.LatencyRounds.nanos;
import static io.keepsake.bench.ObjectStoreSection.PIPELINES;

/**
 * The object-store section's Azure rows: Keepsake's Azure backend on Azurite behind the same
 * {@link LatencyProxy} as the S3 rows, at 0 ms and 20 ms of added time to first byte, beside the
 * store's floor measured in the same interleaved rounds: the same bytes written and read with the
 * Azure SDK directly through the same proxy (one Put Blob per payload, from as many threads as
 * Keepsake's pipelines; one GET per payload). SeaTunnel has no Azure path that runs here, so the
 * floor is what each row is judged against; the rows report their ratio and have no goal.
 *
 * <p>Rows: the checkpoint store + rotation through the SeaTunnel plugin on {@code storage.type
 * azure} (floor: a Put Blob of the serialized state and a Delete Blob of the previous one), the
 * savepoints of 4 pipelines through the engine session and their restores (floor: 4 parallel Put
 * Blobs, 4 parallel GETs), and the newest state of a job with few savepoints (floor: one GET of
 * the newest payload, its name known).
 */
final class AzureObjectStoreRows {

    static final String GOAL = "reported: Keepsake time / the Azure SDK's floor (same bytes, same proxy)";
    private static final String CONTAINER = "bench";
    private static final String PREFIX = "keepsake";
    private static final String FLOOR_PREFIX = "floor/";
    private static final long JOB = BenchStates.JOB_ID;

    private final Sizes sizes;
    private final Map<String, String> names = new LinkedHashMap<>();

    AzureObjectStoreRows(Sizes sizes) {
        this.sizes = sizes;
        names.putAll(rowNames(ReportOptions.size(sizes.checkpointBytes()), ReportOptions.size(sizes.smallBytes()),
                ReportOptions.size(sizes.largeBytes()), sizes.few()));
    }

    /** Each row's key and its name in the report, in the table's order. */
    static Map<String, String> rowNames(String checkpoint, String small, String large, int few) {
        Map<String, String> m = new LinkedHashMap<>();
        List<String> store = ObjectStoreSection.storeRows(checkpoint, small, large);
        List<String> other = ObjectStoreSection.otherRows(small, large, few, few);
        m.put("checkpoint", "Azure: " + store.get(0));
        m.put("savepoint-small", "Azure: " + store.get(1));
        m.put("savepoint-large", "Azure: " + store.get(2));
        m.put("restore-small", "Azure: " + other.get(0));
        m.put("restore-large", "Azure: " + other.get(1));
        m.put("lookup-few", "Azure: " + other.get(2));
        return m;
    }

    /** The rows at the full run's sizes. */
    static List<AbstractSection.Planned> planned() {
        List<AbstractSection.Planned> rows = new ArrayList<>();
        for (String name : rowNames("170 KB", "1 MiB", "64 MiB", 10).values()) {
            rows.add(new AbstractSection.Planned(name + " at 20 ms", GOAL));
        }
        return rows;
    }

    /** Measures the rows; when Azurite or a measurement fails, the rows say so and the S3 rows stand. */
    ReportSection.Result runOrSayWhy() {
        try (AzuriteServer azurite = AzuriteServer.start();
             LatencyProxy proxy = LatencyProxy.start(URI.create("http://127.0.0.1:" + azurite.port()),
                     Duration.ZERO, LatencyProxy.DEFAULT_BYTES_PER_SECOND);
             Run run = new Run(azurite, proxy)) {
            return run.measure();
        } catch (Exception e) {
            List<GoalRow> failed = planned().stream().map(row -> row.notRun("failed: " + e)).toList();
            return new ReportSection.Result(failed, List.of("Object store, Azure rows: failed: " + e));
        }
    }

    /** One run on one Azurite: the stores, the seeded job, and the rounds. */
    private final class Run implements AutoCloseable {
        private final LatencyProxy proxy;
        private final LatencyRounds rounds;
        private final PluginKeepsake keepsake;
        private final BlobContainerClient floor;
        private final List<CompletedCheckpoint> small = ObjectStoreSection.savepointStates(sizes.smallBytes(), 100);
        private final List<CompletedCheckpoint> large = ObjectStoreSection.savepointStates(sizes.largeBytes(), 200);
        private final List<byte[]> smallBytes = new ArrayList<>();
        private final List<byte[]> largeBytes = new ArrayList<>();
        private long checkpointId = 1;
        /** The checkpoint the next store rotates away (the savepoints take ids from the same counter). */
        private long lastCheckpoint = 1;
        /** What the floor's timed reads returned, kept so that no read is optimised away. */
        private final LongAdder sink = new LongAdder();

        Run(AzuriteServer azurite, LatencyProxy proxy) throws Exception {
            this.proxy = proxy;
            this.rounds = new LatencyRounds(proxy, "Azure");
            azurite.createContainer(CONTAINER);
            URI endpoint = URI.create(proxy.endpoint() + "/" + AzuriteServer.ACCOUNT);
            Map<String, String> keys = AzuriteServer.factoryKeysFor(endpoint, "azure://" + CONTAINER + "/" + PREFIX);
            this.keepsake = new PluginKeepsake(keys, "azure-objectstore-pipeline");
            this.floor = new BlobServiceClientBuilder().endpoint(endpoint.toString())
                    .credential(new StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
                    .buildClient().getBlobContainerClient(CONTAINER);
            for (int p = 0; p < PIPELINES; p++) {
                smallBytes.add(encode(small.get(p)));
                largeBytes.add(encode(large.get(p)));
            }
        }

        ReportSection.Result measure() throws Exception {
            String fewJob = Long.toString(JOB + 1);
            seed(fewJob);
            Map<String, Cell> zero = Cell.perRow(names.keySet(), sizes.rounds());
            Map<String, Cell> twenty = Cell.perRow(names.keySet(), sizes.rounds());
            rounds.run(sizes.warmup(), sizes.rounds(), zero, twenty, (cells, index, keepsakeFirst) -> {
                checkpointRow(cells.get("checkpoint"), index, keepsakeFirst);
                savepointRows(cells.get("savepoint-small"), cells.get("restore-small"), small, smallBytes,
                        index, keepsakeFirst);
                savepointRows(cells.get("savepoint-large"), cells.get("restore-large"), large, largeBytes,
                        index, keepsakeFirst);
                lookupRow(cells.get("lookup-few"), fewJob, index, keepsakeFirst);
            });
            return new ReportSection.Result(rows(twenty), List.of(note()), List.of(table(zero, twenty)));
        }

        /** Seeds the lookup job through the storage at 0 ms, and stores the first checkpoint and its floor blob. */
        private void seed(String job) throws Exception {
            proxy.timeToFirstByte(Duration.ZERO);
            for (int i = 1; i <= sizes.few(); i++) {
                CompletedCheckpoint state = PluginKeepsake.seedOne(keepsake.storage(), job, i);
                if (i == sizes.few()) {
                    upload(FLOOR_PREFIX + "newest-" + job, encode(state));
                }
            }
            PipelineState first = keepsake.checkpointState(sizes.checkpointBytes(), checkpointId);
            keepsake.store(first);
            upload(FLOOR_PREFIX + "checkpoint-" + checkpointId, first.getStates());
            rounds.progress("seeded " + sizes.few() + " savepoints of job " + job);
        }

        private void checkpointRow(Cell cell, int index, boolean keepsakeFirst) throws Exception {
            long id = ++checkpointId;
            long previous = lastCheckpoint;
            lastCheckpoint = id;
            PipelineState state = keepsake.checkpointState(sizes.checkpointBytes(), id);
            rounds.both(cell, index, keepsakeFirst, nanos(() -> keepsake.storeAndRotate(state, previous)), nanos(() -> {
                upload(FLOOR_PREFIX + "checkpoint-" + id, state.getStates());
                floor.getBlobClient(FLOOR_PREFIX + "checkpoint-" + previous).delete();
            }));
        }

        private void savepointRows(Cell save, Cell restore, List<CompletedCheckpoint> states, List<byte[]> payloads,
                                   int index, boolean keepsakeFirst) throws Exception {
            String[] savepoint = new String[1];
            String floorName = FLOOR_PREFIX + "savepoint-" + (++checkpointId) + "/pipeline-";
            rounds.both(save, index, keepsakeFirst, nanos(() -> savepoint[0] = keepsake.save(states)),
                    () -> keepsake.parallel(PIPELINES, p -> upload(floorName + p, payloads.get(p - 1))));
            rounds.both(restore, index, keepsakeFirst, nanos(() -> keepsake.restore(savepoint[0])),
                    () -> keepsake.parallel(PIPELINES, p -> sink.add(floor.getBlobClient(floorName + p)
                            .downloadContent().getLength())));
            rounds.untimed(() -> {
                keepsake.deleteSavepoint(savepoint[0]);
                for (int p = 1; p <= PIPELINES; p++) {
                    floor.getBlobClient(floorName + p).delete();
                }
            });
        }

        private void lookupRow(Cell cell, String job, int index, boolean keepsakeFirst) throws Exception {
            rounds.both(cell, index, keepsakeFirst, nanos(() -> keepsake.recoverLatest(job)),
                    nanos(() -> sink.add(floor.getBlobClient(FLOOR_PREFIX + "newest-" + job).downloadContent()
                            .getLength())));
        }

        /** One Put Blob of {@code bytes} (a block blob of any size up to Put Blob's limit, in one request). */
        private void upload(String name, byte[] bytes) {
            BlockBlobClient blob = floor.getBlobClient(name).getBlockBlobClient();
            blob.upload(new ByteArrayInputStream(bytes), bytes.length, true);
        }

        @Override
        public void close() {
            keepsake.close();
        }
    }

    /** The goal rows at 20 ms: Keepsake's time over the floor's, with both request and round-trip counts. */
    private List<GoalRow> rows(Map<String, Cell> twenty) {
        List<GoalRow> rows = new ArrayList<>();
        for (Map.Entry<String, String> row : names.entrySet()) {
            Cell c = twenty.get(row.getKey());
            Spread ratio = Spread.of(Spread.ratios(c.keepsake, c.seatunnel));
            rows.add(new GoalRow(row.getValue() + " at 20 ms", GOAL, ratio.medianRatio() + " of the floor; requests "
                    + c.keepsakeLast.requests() + " vs " + c.seatunnelLast.requests() + ", round trips "
                    + c.keepsakeLast.roundTrips() + " vs " + c.seatunnelLast.roundTrips(), ratio.ratioSpread()
                    + "; median " + Spread.millis(Spread.of(c.keepsake).median()) + " vs "
                    + Spread.millis(Spread.of(c.seatunnel).median()) + " ms", GoalRow.Verdict.REPORTED));
        }
        return rows;
    }

    /** Every row at both latencies: Keepsake beside the floor. */
    private String table(Map<String, Cell> zero, Map<String, Cell> twenty) {
        StringBuilder table = new StringBuilder();
        table.append("Object store, Azure: Azurite behind the same LatencyProxy, Keepsake / the Azure SDK's floor (the")
                .append(" same bytes in one Put Blob per payload, one GET per payload) per row; times are medians")
                .append(" (min-max) of ").append(sizes.rounds()).append(" interleaved rounds; requests, sequential")
                .append(" round trips and bytes are the last round's (requests left running in the background in")
                .append(" brackets).\n\n");
        table.append("| row | added time to first byte | Keepsake time | floor time | Keepsake / floor | requests"
                + " | sequential round trips | bytes moved |\n");
        table.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (Map.Entry<String, String> row : names.entrySet()) {
            for (int l = 0; l < 2; l++) {
                Cell c = (l == 0 ? zero : twenty).get(row.getKey());
                table.append("| ").append(row.getValue()).append(" | ").append(l == 0 ? "0 ms" : "20 ms")
                        .append(" | ").append(ObjectStoreReport.time(c.keepsake))
                        .append(" | ").append(ObjectStoreReport.time(c.seatunnel))
                        .append(" | ").append(Spread.of(Spread.ratios(c.keepsake, c.seatunnel)).medianRatio())
                        .append(" | ").append(ObjectStoreReport.pair(c, Measure::requests, true))
                        .append(" | ").append(ObjectStoreReport.pair(c, Measure::roundTrips, false))
                        .append(" | ").append(ObjectStoreReport.bytes(c)).append(" |\n");
            }
        }
        return table.toString();
    }

    private String note() {
        return String.format(Locale.ROOT, "Object store, Azure: Keepsake's azure backend on Azurite (in-memory"
                + " persistence) behind the same LatencyProxy; the checkpoint store through the SeaTunnel plugin on"
                + " storage.type azure, savepoints through SavepointSaveSession, restores with restoreSavepoint, the"
                + " newest state with recoverLatest of a job with %d savepoints written through the storage at 0 ms."
                + " The floor in the same rounds, the Keepsake and floor calls alternating first: the Azure SDK's"
                + " BlockBlobClient.upload (one Put Blob) of the serialized checkpoint and a Delete Blob of the"
                + " previous one; one Put Blob per pipeline's encoded payload from %d threads; one GET per payload"
                + " from %d threads; one GET of the newest savepoint's payload by its known name.", sizes.few(),
                PIPELINES, PIPELINES);
    }

    private static byte[] encode(CompletedCheckpoint state) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CheckpointWireCodec().encode(state, out);
        return out.toByteArray();
    }
}
