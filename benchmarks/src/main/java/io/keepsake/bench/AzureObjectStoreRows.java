package io.keepsake.bench;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.specialized.BlockBlobClient;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.keepsake.bench.ObjectStoreSection.Cell;
import io.keepsake.bench.ObjectStoreSection.Measure;
import io.keepsake.bench.ObjectStoreSection.Sizes;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.seatunnel.KeepsakeCheckpointStorage;
import io.keepsake.seatunnel.KeepsakeCheckpointStorageFactory;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.Versions;
import io.keepsake.wire.CheckpointWireCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.serializer.protobuf.ProtoStuffSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

import static io.keepsake.bench.ObjectStoreSection.LATENCY;
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
    private static final Duration QUIET = Duration.ofMillis(150);
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

    /** The rows when they do not run, at the full run's sizes. */
    static List<GoalRow> notRun(String why) {
        List<GoalRow> rows = new ArrayList<>();
        for (String name : rowNames("170 KB", "1 MiB", "64 MiB", 10).values()) {
            rows.add(GoalRow.notRun(name + " at 20 ms", GOAL, why));
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
            return new ReportSection.Result(notRun("failed: " + e), List.of("Object store, Azure rows: failed: " + e));
        }
    }

    /** One run on one Azurite: the stores, the seeded job, and the rounds. */
    private final class Run implements AutoCloseable {
        private final LatencyProxy proxy;
        private final KeepsakeCheckpointStorage plugin;
        private final KeepsakeStorage keepsake;
        private final BlobContainerClient floor;
        private final ExecutorService pipelines = Executors.newFixedThreadPool(PIPELINES, r -> {
            Thread t = new Thread(r, "azure-objectstore-pipeline");
            t.setDaemon(true);
            return t;
        });
        private final ProtoStuffSerializer serializer = new ProtoStuffSerializer();
        private final List<CompletedCheckpoint> small = new ArrayList<>();
        private final List<CompletedCheckpoint> large = new ArrayList<>();
        private final List<byte[]> smallBytes = new ArrayList<>();
        private final List<byte[]> largeBytes = new ArrayList<>();
        private long checkpointId = 1;
        /** The checkpoint the next store rotates away (the savepoints take ids from the same counter). */
        private long lastCheckpoint = 1;
        /** What the timed reads returned, kept so that no read is optimised away. */
        private final LongAdder sink = new LongAdder();
        private final long started = System.nanoTime();

        Run(AzuriteServer azurite, LatencyProxy proxy) throws Exception {
            this.proxy = proxy;
            azurite.createContainer(CONTAINER);
            URI endpoint = URI.create(proxy.endpoint() + "/" + AzuriteServer.ACCOUNT);
            Map<String, String> keys = AzuriteServer.factoryKeysFor(endpoint, "azure://" + CONTAINER + "/" + PREFIX);
            this.plugin = (KeepsakeCheckpointStorage) new KeepsakeCheckpointStorageFactory().create(keys);
            this.keepsake = (KeepsakeStorage) plugin.checkpointSide();
            this.floor = new BlobServiceClientBuilder().endpoint(endpoint.toString())
                    .credential(new StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
                    .buildClient().getBlobContainerClient(CONTAINER);
            for (int p = 1; p <= PIPELINES; p++) {
                small.add(BenchStates.reportState(sizes.smallBytes(), JOB, p, 1, 100 + p));
                large.add(BenchStates.reportState(sizes.largeBytes(), JOB, p, 1, 200 + p));
                smallBytes.add(encode(small.get(p - 1)));
                largeBytes.add(encode(large.get(p - 1)));
            }
        }

        ReportSection.Result measure() throws Exception {
            String fewJob = Long.toString(JOB + 1);
            seed(fewJob);
            Map<String, Cell> zero = cells();
            Map<String, Cell> twenty = cells();
            for (int round = 0; round < sizes.warmup() + sizes.rounds(); round++) {
                int index = round - sizes.warmup();
                boolean keepsakeFirst = round % 2 == 0;
                for (int l = 0; l < 2; l++) {
                    boolean delayed = (l == 1) == keepsakeFirst; // the latencies alternate too
                    proxy.timeToFirstByte(delayed ? LATENCY : Duration.ZERO);
                    Map<String, Cell> cells = delayed ? twenty : zero;
                    checkpointRow(cells.get("checkpoint"), index, keepsakeFirst);
                    savepointRows(cells.get("savepoint-small"), cells.get("restore-small"), small, smallBytes,
                            index, keepsakeFirst);
                    savepointRows(cells.get("savepoint-large"), cells.get("restore-large"), large, largeBytes,
                            index, keepsakeFirst);
                    lookupRow(cells.get("lookup-few"), fewJob, index, keepsakeFirst);
                    progress("round " + (round + 1) + " of " + (sizes.warmup() + sizes.rounds()) + ", "
                            + (delayed ? "20" : "0") + " ms done");
                }
            }
            return new ReportSection.Result(rows(twenty), List.of(note()), List.of(table(zero, twenty)));
        }

        /** Seeds the lookup job through the storage at 0 ms, and stores the first checkpoint and its floor blob. */
        private void seed(String job) throws Exception {
            proxy.timeToFirstByte(Duration.ZERO);
            for (int i = 1; i <= sizes.few(); i++) {
                seedOne(job, i);
            }
            PipelineState first = checkpointState(checkpointId);
            plugin.storeCheckPoint(first);
            upload(FLOOR_PREFIX + "checkpoint-" + checkpointId, first.getStates());
            progress("seeded " + sizes.few() + " savepoints of job " + job);
        }

        private void seedOne(String job, int i) throws IOException {
            CompletedCheckpoint state = BenchStates.reportState(1024, Long.parseLong(job), 1, i, i);
            try (SavepointWriter w = keepsake.beginSavepoint(new SavepointRequest(job, String.format("sp-%06d", i),
                    SavepointKind.MANUAL, Versions.PRODUCER_VERSION, CheckpointWireCodec.FORMAT_NAME,
                    1_700_000_000_000L + i, Map.of()))) {
                try (OutputStream out = w.openPayload(1, i)) {
                    new CheckpointWireCodec().encode(state, out);
                }
                w.commit(1_700_000_000_000L + i);
            }
            if (i == sizes.few()) {
                upload(FLOOR_PREFIX + "newest-" + job, encode(state));
            }
        }

        private Map<String, Cell> cells() {
            Map<String, Cell> cells = new LinkedHashMap<>();
            for (String key : names.keySet()) {
                cells.put(key, new Cell(sizes.rounds()));
            }
            return cells;
        }

        private void checkpointRow(Cell cell, int index, boolean keepsakeFirst) throws Exception {
            long id = ++checkpointId;
            long previous = lastCheckpoint;
            lastCheckpoint = id;
            PipelineState state = checkpointState(id);
            List<String> rotated = List.of(Long.toString(previous));
            Timed k = () -> {
                long start = System.nanoTime();
                plugin.storeCheckPoint(state);
                plugin.deleteCheckpoint(BenchStates.JOB, "1", rotated);
                return System.nanoTime() - start;
            };
            Timed f = () -> {
                long start = System.nanoTime();
                upload(FLOOR_PREFIX + "checkpoint-" + id, state.getStates());
                floor.getBlobClient(FLOOR_PREFIX + "checkpoint-" + previous).delete();
                return System.nanoTime() - start;
            };
            both(cell, index, keepsakeFirst, k, f);
        }

        private void savepointRows(Cell save, Cell restore, List<CompletedCheckpoint> states, List<byte[]> payloads,
                                   int index, boolean keepsakeFirst) throws Exception {
            String[] savepoint = new String[1];
            String floorName = FLOOR_PREFIX + "savepoint-" + (++checkpointId) + "/pipeline-";
            Timed k = () -> {
                long start = System.nanoTime();
                savepoint[0] = saveKeepsake(states);
                return System.nanoTime() - start;
            };
            Timed f = () -> parallel(p -> upload(floorName + p, payloads.get(p - 1)));
            both(save, index, keepsakeFirst, k, f);
            Timed kr = () -> {
                long start = System.nanoTime();
                sink.add(new SavepointRestorer(keepsake).restoreSavepoint(BenchStates.JOB, savepoint[0])
                        .checkpoints().size());
                return System.nanoTime() - start;
            };
            Timed fr = () -> parallel(p -> sink.add(floor.getBlobClient(floorName + p).downloadContent().getLength()));
            both(restore, index, keepsakeFirst, kr, fr);
            // clean-up, untimed, at 0 ms
            Duration latency = proxy.timeToFirstByte();
            proxy.timeToFirstByte(Duration.ZERO);
            keepsake.deleteSavepoint(BenchStates.JOB, savepoint[0]);
            for (int p = 1; p <= PIPELINES; p++) {
                floor.getBlobClient(floorName + p).delete();
            }
            proxy.awaitQuiet(QUIET, Duration.ofMinutes(1));
            proxy.timeToFirstByte(latency);
        }

        private void lookupRow(Cell cell, String job, int index, boolean keepsakeFirst) throws Exception {
            SavepointRestorer restorer = new SavepointRestorer(keepsake);
            Timed k = () -> {
                long start = System.nanoTime();
                sink.add(restorer.recoverLatest(job).nextCheckpointId());
                return System.nanoTime() - start;
            };
            Timed f = () -> {
                long start = System.nanoTime();
                sink.add(floor.getBlobClient(FLOOR_PREFIX + "newest-" + job).downloadContent().getLength());
                return System.nanoTime() - start;
            };
            both(cell, index, keepsakeFirst, k, f);
        }

        /** Runs {@code each} for pipelines 1..n from the pipeline threads at once; returns the nanoseconds of all. */
        private long parallel(PipelineCall each) throws Exception {
            long start = System.nanoTime();
            List<Future<?>> calls = new ArrayList<>();
            for (int p = 1; p <= PIPELINES; p++) {
                int pipeline = p;
                calls.add(pipelines.submit(() -> {
                    each.run(pipeline);
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get();
            }
            return System.nanoTime() - start;
        }

        /** One Put Blob of {@code bytes} (a block blob of any size up to Put Blob's limit, in one request). */
        private void upload(String name, byte[] bytes) {
            BlockBlobClient blob = floor.getBlobClient(name).getBlockBlobClient();
            blob.upload(new ByteArrayInputStream(bytes), bytes.length, true);
        }

        /** A savepoint as the engine takes one: every pipeline reports from its own coordinator thread. */
        private String saveKeepsake(List<CompletedCheckpoint> states) throws Exception {
            List<Integer> ids = states.stream().map(CompletedCheckpoint::pipelineId).toList();
            try (SavepointSaveSession session = SavepointSaveSession.builder(keepsake, BenchStates.JOB, ids)
                    .kind(SavepointKind.MANUAL).open()) {
                List<Future<?>> reported = new ArrayList<>();
                for (CompletedCheckpoint c : states) {
                    reported.add(pipelines.submit(() -> {
                        session.report(c);
                        session.pipelineSuspended(c.pipelineId());
                    }));
                }
                for (Future<?> f : reported) {
                    f.get();
                }
                return session.commit().savepointId();
            }
        }

        private PipelineState checkpointState(long id) {
            CompletedCheckpoint c = BenchStates.reportState(sizes.checkpointBytes(), JOB, 1, id, id);
            byte[] states = serializer.serialize(SeaTunnelPath.toEngine(c));
            return SeaTunnelPath.wrap(SeaTunnelPath.toEngine(c), states);
        }

        private void both(Cell cell, int index, boolean keepsakeFirst, Timed k, Timed f) throws Exception {
            Measure km = keepsakeFirst ? timed(k) : null;
            Measure fm = timed(f);
            km = keepsakeFirst ? km : timed(k);
            if (index >= 0) {
                cell.keepsake[index] = km.nanos();
                cell.seatunnel[index] = fm.nanos();
                cell.keepsakeLast = km;
                cell.seatunnelLast = fm;
            }
        }

        /** Runs one call with an empty log, waits for what it left running, and reads the log. */
        private Measure timed(Timed call) throws Exception {
            proxy.awaitQuiet(QUIET, Duration.ofMinutes(1));
            proxy.clearLog();
            long nanos = call.run();
            long returnedAt = System.nanoTime();
            if (!proxy.awaitQuiet(QUIET, Duration.ofMinutes(2))) {
                throw new IllegalStateException("Cannot measure on Azure: requests still in flight 2 minutes after"
                        + " the call");
            }
            return Measure.of(nanos, proxy.requests(), returnedAt);
        }

        private void progress(String what) {
            System.err.println("[objectstore azure] " + (System.nanoTime() - started) / 1_000_000 + " ms: " + what);
        }

        @Override
        public void close() {
            pipelines.shutdownNow();
            plugin.checkpointSide().close();
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

    /** One timed call; returns its nanoseconds. */
    @FunctionalInterface
    private interface Timed {
        long run() throws Exception;
    }

    /** One pipeline's part of a parallel call. */
    @FunctionalInterface
    private interface PipelineCall {
        void run(int pipeline) throws Exception;
    }

    private static byte[] encode(CompletedCheckpoint state) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CheckpointWireCodec().encode(state, out);
        return out.toByteArray();
    }
}
