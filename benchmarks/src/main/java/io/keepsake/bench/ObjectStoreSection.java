package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.RestoredState;
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
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import io.keepsake.fixtures.faults.CountingFileSystem;
import io.keepsake.storage.localfile.LocalFileSystem;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Keepsake beside SeaTunnel 2.3.8's own S3 checkpoint storage (Hadoop's S3A) on an object store
 * with real latency: S3Proxy in this JVM behind a {@link LatencyProxy} that adds a time to first
 * byte to every request and caps each connection's throughput, at 0 ms and at 20 ms of added time
 * to first byte, in one run and interleaved rounds (the two sides alternate going first). Per row
 * and latency: the time (median, min-max), the requests, the sequential round trips and the bytes
 * moved, read off the proxy's log of the last measured round.
 *
 * <p>Rows: a checkpoint store of ~170 KB of engine state with its rotation past
 * {@code max-retained} (1), as the engine's checkpoint coordinator calls them one after the other;
 * a savepoint of 4 pipelines and its restore, small and large; and the newest state of a job with
 * few and with many savepoints. Keepsake's checkpoint store goes through the SeaTunnel plugin's
 * {@code KeepsakeCheckpointStorage} on {@code storage.type s3}; its savepoints through the engine
 * session ({@link SavepointSaveSession}) on the same storage, restored with
 * {@link SavepointRestorer}. SeaTunnel's side runs in a child JVM ({@link SeaTunnelS3aPeer}).
 *
 * <p>After these rows, {@link AzureObjectStoreRows} measures Keepsake's Azure backend on Azurite behind
 * its own proxy of the same kind, beside the Azure SDK's floor.
 *
 * <p>Requests an operation leaves running after it returns (a rotation or tidying done in the
 * background) are waited for, counted in its requests and bytes, and left out of its round trips
 * and time: the round trips are those of the requests that started before the call returned.
 */
public final class ObjectStoreSection implements ReportSection {

    /** The system property that sets the measured rounds (the mode's otherwise). */
    public static final String ROUNDS_PROPERTY = "keepsake.bench.objectstore.rounds";

    /** The system property that sets the discarded warm-up rounds (the mode's otherwise). */
    public static final String WARMUP_PROPERTY = "keepsake.bench.objectstore.warmup";

    /** The system property that runs the section in the tiny mode too (its smoke test), on the tiny sizes. */
    public static final String TINY_PROPERTY = "keepsake.bench.objectstore.tiny";

    private static final String NAMESPACE = "/keepsake/";
    private static final String SEATUNNEL_NAMESPACE = "/seatunnel/checkpoint/";
    private static final Duration QUIET = Duration.ofMillis(150);
    static final Duration LATENCY = Duration.ofMillis(20);
    private static final long JOB = BenchStates.JOB_ID;
    static final int PIPELINES = 4;
    /** Sequential round trips past which a list at 20 ms is not run: it would take minutes, and miss its goal. */
    private static final int LIST_ROUND_TRIP_LIMIT = 500;

    static final String STORE_GOAL = ">= 2x faster (SeaTunnel time / Keepsake time) at 20 ms; fewer requests";
    static final String REQUEST_GOAL = "fewer requests than SeaTunnel-on-S3A";
    static final String LIST_NOTE = "no goal: the whole list reads every savepoint's metadata, so it grows"
            + " with them (the newest one is found by the recoverLatest row)";
    static final String LOOKUP_GOAL = "<= 2x (time with many / time with few) at 20 ms";

    /**
     * The sizes of one run.
     *
     * @param rounds          measured rounds
     * @param warmup          discarded rounds before them
     * @param checkpointBytes the checkpoint's raw state bytes
     * @param smallBytes      each pipeline's state in the small savepoint
     * @param largeBytes      each pipeline's state in the large savepoint
     * @param few             savepoints of the small lookup job
     * @param many            savepoints of the large lookup job
     */
    record Sizes(int rounds, int warmup, int checkpointBytes, int smallBytes, int largeBytes, int few, int many) {

        static Sizes of(ReportOptions options) {
            Sizes s = switch (options.mode()) {
                case "full" -> new Sizes(3, 1, 170 * 1024, 1 << 20, 64 << 20, 10, 10_000);
                case "quick" -> new Sizes(1, 1, 170 * 1024, 1 << 20, 8 << 20, 10, 200);
                default -> new Sizes(1, 0, 64 * 1024, 64 * 1024, 512 * 1024, 3, 12);
            };
            String rounds = System.getProperty(ROUNDS_PROPERTY);
            String warmup = System.getProperty(WARMUP_PROPERTY);
            return new Sizes(rounds == null ? s.rounds : Integer.parseInt(rounds.trim()),
                    warmup == null ? s.warmup : Integer.parseInt(warmup.trim()), s.checkpointBytes, s.smallBytes,
                    s.largeBytes, s.few, s.many);
        }
    }

    /** What one timed call did: its time and the proxy's log of its requests. */
    record Measure(long nanos, int requests, int roundTrips, long bytes, int background) {

        static Measure of(long nanos, List<LatencyProxy.Request> log, long returnedAt) {
            List<LatencyProxy.Request> critical = log.stream().filter(r -> r.startNanos() - returnedAt <= 0).toList();
            return new Measure(nanos, log.size(), LatencyProxy.sequentialRoundTrips(critical),
                    LatencyProxy.bytesMoved(log), log.size() - critical.size());
        }
    }

    /** One row's samples at one latency: per side, the time of each round and the last round's log. */
    static final class Cell {
        final double[] keepsake;
        final double[] seatunnel;
        Measure keepsakeLast;
        Measure seatunnelLast;

        Cell(int rounds) {
            keepsake = new double[rounds];
            seatunnel = new double[rounds];
        }
    }

    private long sink;

    @Override
    public String title() {
        return "Object store with latency (Keepsake vs SeaTunnel-on-S3A; Keepsake on Azure vs the store's floor)";
    }

    @Override
    public List<GoalRow> notRun(String why) {
        List<GoalRow> rows = new ArrayList<>();
        for (String row : storeRows("170 KB", "1 MiB", "64 MiB")) {
            rows.add(GoalRow.notRun(row + " at 20 ms", STORE_GOAL, why));
        }
        for (String row : otherRows("1 MiB", "64 MiB", 10, 10_000)) {
            rows.add(GoalRow.notRun(row + " at 20 ms", REQUEST_GOAL, why));
        }
        rows.add(GoalRow.notRun("Keepsake recoverLatest, 10,000 vs 10 savepoints, at 20 ms", LOOKUP_GOAL, why));
        rows.add(GoalRow.notRun("Keepsake list of a job, 10,000 vs 10 savepoints, at 20 ms", LOOKUP_GOAL, why));
        rows.add(GoalRow.notRun("every row at 0 ms: requests", REQUEST_GOAL, why));
        rows.addAll(AzureObjectStoreRows.notRun(why));
        return rows;
    }

    static List<String> storeRows(String checkpoint, String small, String large) {
        return List.of("checkpoint store + rotation, " + checkpoint,
                "savepoint, " + PIPELINES + " x " + small,
                "savepoint, " + PIPELINES + " x " + large);
    }

    static List<String> otherRows(String small, String large, int few, int many) {
        return List.of("restore, " + PIPELINES + " x " + small,
                "restore, " + PIPELINES + " x " + large,
                String.format(Locale.ROOT, "newest state, %,d savepoints", few),
                String.format(Locale.ROOT, "newest state, %,d savepoints", many));
    }

    @Override
    public Result run(ReportOptions options) throws Exception {
        if (("tiny".equals(options.mode()) && !Boolean.getBoolean(TINY_PROPERTY))
                || !Boolean.parseBoolean(System.getProperty(S3Section.ENABLED, "true"))) {
            return new Result(notRun("switched off (--no-s3, or the tiny mode)"), List.of());
        }
        Sizes sizes = Sizes.of(options);
        Result s3;
        try (LocalS3 store = LocalS3.start();
             LatencyProxy proxy = LatencyProxy.start(store.endpoint(), Duration.ZERO,
                     LatencyProxy.DEFAULT_BYTES_PER_SECOND);
             Run run = new Run(store, proxy, sizes)) {
            s3 = run.measure();
        }
        Result azure = new AzureObjectStoreRows(sizes).runOrSayWhy();
        return new Result(concat(s3.rows(), azure.rows()), concat(s3.notes(), azure.notes()),
                concat(s3.tables(), azure.tables()));
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** The factory keys of Keepsake's S3 backend on {@code endpoint}, as SeaTunnel users write them. */
    static Map<String, String> keys(URI endpoint) {
        Map<String, String> m = new TreeMap<>();
        m.put("storage.type", "s3");
        m.put("namespace", NAMESPACE);
        m.put("s3.bucket", "s3a://" + LocalS3.BUCKET);
        m.put("fs.s3a.endpoint", endpoint.toString());
        m.put("fs.s3a.access.key", LocalS3.ACCESS);
        m.put("fs.s3a.secret.key", LocalS3.SECRET);
        m.put("fs.s3a.path.style.access", "true");
        return m;
    }

    /** One run: the stores, the seeded jobs, and the rounds. */
    private final class Run implements AutoCloseable {
        private final LocalS3 s3;
        private final LatencyProxy proxy;
        private final Sizes sizes;
        private final KeepsakeCheckpointStorage plugin;
        private final KeepsakeStorage keepsake;
        private final SeaTunnelS3aPeer seatunnel;
        private final ExecutorService pipelines = Executors.newFixedThreadPool(PIPELINES, r -> {
            Thread t = new Thread(r, "objectstore-pipeline");
            t.setDaemon(true);
            return t;
        });
        private final ProtoStuffSerializer serializer = new ProtoStuffSerializer();
        private final List<CompletedCheckpoint> small = new ArrayList<>();
        private final List<CompletedCheckpoint> large = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();
        private long checkpointId = 1;
        /** The checkpoint the next checkpoint row rotates away: savepoint rows draw ids from the same counter. */
        private long lastCheckpoint;
        private final long started = System.nanoTime();
        private int checkpointStateBytes;

        Run(LocalS3 s3, LatencyProxy proxy, Sizes sizes) throws Exception {
            this.s3 = s3;
            this.proxy = proxy;
            this.sizes = sizes;
            this.plugin = (KeepsakeCheckpointStorage) new KeepsakeCheckpointStorageFactory().create(
                    keys(proxy.endpoint()));
            this.keepsake = (KeepsakeStorage) plugin.checkpointSide();
            this.seatunnel = SeaTunnelS3aPeer.start(proxy.endpoint(), LocalS3.BUCKET, LocalS3.ACCESS, LocalS3.SECRET,
                    SEATUNNEL_NAMESPACE);
            progress("stores open, SeaTunnel's child JVM started");
            for (int p = 1; p <= PIPELINES; p++) {
                small.add(BenchStates.reportState(sizes.smallBytes, JOB, p, 1, 100 + p));
                large.add(BenchStates.reportState(sizes.largeBytes, JOB, p, 1, 200 + p));
            }
        }

        Result measure() throws Exception {
            String fewJob = Long.toString(JOB + 1);
            String manyJob = Long.toString(JOB + 2);
            long seedMillis = seed(fewJob, manyJob);
            Map<String, Cell> zero = cells();
            Map<String, Cell> twenty = cells();
            boolean listManyAtLatency = true;
            for (int round = 0; round < sizes.warmup + sizes.rounds; round++) {
                int index = round - sizes.warmup;
                boolean keepsakeFirst = round % 2 == 0;
                for (int l = 0; l < 2; l++) {
                    boolean delayed = (l == 1) == keepsakeFirst; // the latencies alternate too
                    proxy.timeToFirstByte(delayed ? LATENCY : Duration.ZERO);
                    Map<String, Cell> cells = delayed ? twenty : zero;
                    checkpointRow(cells.get("checkpoint"), index, keepsakeFirst);
                    savepointRows(cells.get("savepoint-small"), cells.get("restore-small"), small,
                            sizes.smallBytes, index, keepsakeFirst);
                    savepointRows(cells.get("savepoint-large"), cells.get("restore-large"), large,
                            sizes.largeBytes, index, keepsakeFirst);
                    lookupRow(cells.get("lookup-few"), fewJob, index, keepsakeFirst);
                    lookupRow(cells.get("lookup-many"), manyJob, index, keepsakeFirst);
                    progress("round " + (round + 1) + " of " + (sizes.warmup + sizes.rounds) + ", "
                            + (delayed ? "20" : "0") + " ms: stores and restores done");
                    listRow(cells.get("list-few"), fewJob, index);
                }
            }
            // thousands of metadata reads one after the other: once per latency, after the rounds, and at
            // 20 ms only when its round trips at 0 ms leave it a chance to meet its goal
            int last = sizes.rounds - 1;
            proxy.timeToFirstByte(Duration.ZERO);
            Measure listAtZero = listRow(zero.get("list-many"), manyJob, last);
            if (listAtZero.roundTrips() > LIST_ROUND_TRIP_LIMIT) {
                listManyAtLatency = false;
                Arrays.fill(twenty.get("list-many").keepsake, Double.NaN);
            } else {
                proxy.timeToFirstByte(LATENCY);
                listRow(twenty.get("list-many"), manyJob, last);
            }
            progress("lists of " + sizes.many + " savepoints done");
            return result(zero, twenty, seedMillis, listManyAtLatency);
        }

        /** Seeds both lookup jobs on both sides, and stores the first checkpoint; returns the milliseconds taken. */
        private long seed(String fewJob, String manyJob) throws Exception {
            long seedStart = System.nanoTime();
            seedKeepsake(fewJob, sizes.few);
            seedKeepsake(manyJob, sizes.many);
            seedSeaTunnel(fewJob, sizes.few);
            seedSeaTunnel(manyJob, sizes.many);
            long seedMillis = (System.nanoTime() - seedStart) / 1_000_000;
            progress("seeded the lookup jobs in " + seedMillis + " ms");
            // the first checkpoint, so that every timed store rotates one away
            plugin.storeCheckPoint(checkpointState(checkpointId));
            seatunnel.store(BenchStates.JOB, 1, checkpointId, checkpointStateBytes, checkpointId);
            lastCheckpoint = checkpointId;
            return seedMillis;
        }

        /** An empty cell per row, in the report's order. */
        private Map<String, Cell> cells() {
            Map<String, Cell> cells = new LinkedHashMap<>();
            for (String row : List.of("checkpoint", "savepoint-small", "savepoint-large", "restore-small",
                    "restore-large", "lookup-few", "lookup-many", "list-few", "list-many")) {
                cells.put(row, new Cell(sizes.rounds));
            }
            return cells;
        }

        private void progress(String what) {
            System.err.println("[objectstore] " + (System.nanoTime() - started) / 1_000_000 + " ms: " + what);
        }

        // ---- the rows ------------------------------------------------------------------------------

        private void checkpointRow(Cell cell, int index, boolean keepsakeFirst) throws Exception {
            long id = ++checkpointId;
            long previous = lastCheckpoint;
            PipelineState state = checkpointState(id);
            List<String> rotated = List.of(Long.toString(previous));
            Timed k = () -> {
                long start = System.nanoTime();
                plugin.storeCheckPoint(state);
                plugin.deleteCheckpoint(BenchStates.JOB, "1", rotated);
                return System.nanoTime() - start;
            };
            Timed s = () -> seatunnel.store(BenchStates.JOB, 1, id, checkpointStateBytes, id)
                    + seatunnel.delete(BenchStates.JOB, 1, List.of(previous));
            both(cell, index, keepsakeFirst, k, s);
            lastCheckpoint = id;
        }

        private void savepointRows(Cell save, Cell restore, List<CompletedCheckpoint> states, int bytesEach,
                                   int index, boolean keepsakeFirst) throws Exception {
            long id = ++checkpointId;
            String stJob = Long.toString(JOB + 10);
            String[] savepoint = new String[1];
            Timed k = () -> {
                long start = System.nanoTime();
                savepoint[0] = saveKeepsake(states);
                return System.nanoTime() - start;
            };
            Timed s = () -> seatunnel.storeAll(stJob, PIPELINES, id, bytesEach, id);
            both(save, index, keepsakeFirst, k, s);
            Timed kr = () -> {
                long start = System.nanoTime();
                RestoredState restored = new SavepointRestorer(keepsake).restoreSavepoint(BenchStates.JOB,
                        savepoint[0]);
                sink += restored.checkpoints().size();
                return System.nanoTime() - start;
            };
            // the engine's CheckpointManager restores its pipelines from a parallel stream
            Timed sr = () -> seatunnel.restoreAll(stJob, PIPELINES);
            both(restore, index, keepsakeFirst, kr, sr);
            // clean-up, untimed, at 0 ms
            Duration latency = proxy.timeToFirstByte();
            proxy.timeToFirstByte(Duration.ZERO);
            keepsake.deleteSavepoint(BenchStates.JOB, savepoint[0]);
            for (int p = 1; p <= PIPELINES; p++) {
                seatunnel.delete(stJob, p, List.of(id));
            }
            proxy.awaitQuiet(QUIET, Duration.ofMinutes(1));
            proxy.timeToFirstByte(latency);
        }

        private void lookupRow(Cell cell, String job, int index, boolean keepsakeFirst) throws Exception {
            SavepointRestorer restorer = new SavepointRestorer(keepsake);
            Timed k = () -> {
                long start = System.nanoTime();
                sink += restorer.recoverLatest(job).nextCheckpointId();
                return System.nanoTime() - start;
            };
            Timed s = () -> seatunnel.restoreLatest(job, 1);
            both(cell, index, keepsakeFirst, k, s);
        }

        private Measure listRow(Cell cell, String job, int index) throws Exception {
            Measure m = timed(() -> {
                long start = System.nanoTime();
                sink += keepsake.listSavepoints(job).size();
                return System.nanoTime() - start;
            });
            if (index >= 0) {
                cell.keepsake[index] = m.nanos();
                cell.seatunnel[index] = Double.NaN;
                cell.keepsakeLast = m;
            }
            return m;
        }

        private void both(Cell cell, int index, boolean keepsakeFirst, Timed k, Timed s) throws Exception {
            Measure km;
            Measure sm;
            if (keepsakeFirst) {
                km = timed(k);
                sm = timed(s);
            } else {
                sm = timed(s);
                km = timed(k);
            }
            if (index >= 0) {
                cell.keepsake[index] = km.nanos();
                cell.seatunnel[index] = sm.nanos();
                cell.keepsakeLast = km;
                cell.seatunnelLast = sm;
            }
        }

        /** Runs one call with an empty log, waits for what it left running, and reads the log. */
        private Measure timed(Timed call) throws Exception {
            proxy.awaitQuiet(QUIET, Duration.ofMinutes(1));
            proxy.clearLog();
            long nanos = call.run();
            long returnedAt = System.nanoTime();
            if (!proxy.awaitQuiet(QUIET, Duration.ofMinutes(2))) {
                throw new IllegalStateException("Cannot measure: requests still in flight 2 minutes after the call");
            }
            return Measure.of(nanos, proxy.requests(), returnedAt);
        }

        // ---- Keepsake and SeaTunnel operations ----------------------------------------------------

        /** A savepoint as the engine takes one: every pipeline reports from its own coordinator thread. */
        private String saveKeepsake(List<CompletedCheckpoint> states) throws Exception {
            List<Integer> ids = new ArrayList<>();
            for (CompletedCheckpoint c : states) {
                ids.add(c.pipelineId());
            }
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

        /** SeaTunnel's engine state of the checkpoint: the coordinator's serialized checkpoint in its wrapper. */
        private PipelineState checkpointState(long id) {
            CompletedCheckpoint c = BenchStates.reportState(sizes.checkpointBytes, JOB, 1, id, id);
            byte[] states = serializer.serialize(SeaTunnelPath.toEngine(c));
            checkpointStateBytes = states.length;
            return SeaTunnelPath.wrap(SeaTunnelPath.toEngine(c), states);
        }

        /**
         * Seeds {@code count} savepoints of one pipeline of {@code job}: written by Keepsake's local
         * backend to a temporary directory (no fsync), then every file of the job planted in
         * S3Proxy's blob store under the S3 savepoint root, with a folder marker per savepoint as
         * the S3 backend writes one; checked by listing and recovering the job on S3 without the
         * latency proxy.
         */
        private void seedKeepsake(String job, int count) throws Exception {
            Path local = Files.createTempDirectory("keepsake-objectstore-seed");
            try {
                Path savepoints = local.resolve("savepoints");
                try (KeepsakeStorage storage = KeepsakeStorage.open(new CountingFileSystem(new LocalFileSystem(),
                        false), local.resolve("checkpoints").toString(), savepoints.toString())) {
                    for (int i = 1; i <= count; i++) {
                        seedOne(storage, job, i);
                    }
                }
                String root = keepsake.savepointRoot();
                String prefix = root.substring(root.indexOf("://") + 3);
                prefix = prefix.substring(prefix.indexOf('/') + 1);
                prefix = prefix.endsWith("/") ? prefix : prefix + "/";
                Path jobDir = savepoints.resolve(job);
                List<Path> files;
                try (Stream<Path> walk = Files.walk(jobDir)) {
                    files = walk.toList();
                }
                for (Path f : files) {
                    String key = prefix + savepoints.relativize(f).toString().replace('\\', '/');
                    if (Files.isRegularFile(f)) {
                        s3.plant(key, Files.readAllBytes(f));
                    } else if (f.getParent().equals(jobDir) && !f.getFileName().toString().startsWith(".")) {
                        s3.plant(key + "/", new byte[0]);
                    }
                }
            } finally {
                BenchFiles.deleteRecursively(local);
            }
            try (KeepsakeStorage direct = KeepsakeStorage.open("s3", keys(s3.endpoint()))) {
                // thousands: the rounds' list and lookup rows read them anyway
                int listed = count <= 1000 ? direct.listSavepoints(job).size() : count;
                long newest = count <= 1000 ? new SavepointRestorer(direct).recoverLatest(job).nextCheckpointId() - 1
                        : count;
                if (listed != count || newest != count) {
                    throw new IllegalStateException("Cannot seed job " + job + ": S3 lists " + listed
                            + " savepoints and recovers checkpoint " + newest + ", not " + count);
                }
            }
        }

        private void seedOne(KeepsakeStorage storage, String job, int i) throws IOException {
            CompletedCheckpoint state = BenchStates.reportState(1024, Long.parseLong(job), 1, i, i);
            try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(job, String.format("sp-%06d", i),
                    SavepointKind.MANUAL, Versions.PRODUCER_VERSION, CheckpointWireCodec.FORMAT_NAME,
                    1_700_000_000_000L + i, Map.of()))) {
                try (OutputStream out = w.openPayload(1, i)) {
                    new CheckpointWireCodec().encode(state, out);
                }
                w.commit(1_700_000_000_000L + i);
            }
        }

        /**
         * Seeds {@code count} checkpoint files of pipeline 1 of {@code job}: the newest through
         * SeaTunnel's storage at 0 ms, then copies of it under the names SeaTunnel gives checkpoints
         * 1..count-1, written straight into S3Proxy's store.
         */
        private void seedSeaTunnel(String job, int count) throws Exception {
            proxy.timeToFirstByte(Duration.ZERO);
            proxy.awaitQuiet(QUIET, Duration.ofMinutes(1));
            proxy.clearLog();
            seatunnel.store(job, 1, count, 1024, count);
            proxy.awaitQuiet(QUIET, Duration.ofMinutes(1));
            String key = proxy.requests().stream().filter(r -> r.method().equals("PUT") && r.key().endsWith(".ser"))
                    .map(LatencyProxy.Request::key).reduce((a, b) -> b).orElseThrow(() -> new IllegalStateException(
                            "Cannot seed SeaTunnel's checkpoints of job " + job + ": no PUT of a .ser file was seen"));
            int slash = key.lastIndexOf('/');
            String[] parts = key.substring(slash + 1).split("-");
            if (parts.length != 4) {
                throw new IllegalStateException("Cannot seed SeaTunnel's checkpoints of job " + job
                        + ": the file name is not <time>-<random>-<pipeline>-<checkpoint>.ser (" + key + ")");
            }
            byte[] content;
            try (S3Client raw = LocalS3.client(s3.endpoint())) {
                content = raw.getObjectAsBytes(b -> b.bucket(LocalS3.BUCKET).key(key)).asByteArray();
            }
            for (int i = 1; i < count; i++) {
                s3.plant(key.substring(0, slash + 1) + String.join("-", parts[0], Integer.toString(i), parts[2],
                        i + ".ser"), content);
            }
        }

        private Result result(Map<String, Cell> zero, Map<String, Cell> twenty, long seedMillis,
                              boolean listManyAtLatency) {
            ObjectStoreReport report = new ObjectStoreReport(sizes, zero, twenty);
            notes.addAll(report.notes(seedMillis));
            return new Result(report.rows(listManyAtLatency), notes, List.of(report.table()));
        }

        @Override
        public void close() {
            pipelines.shutdownNow();
            seatunnel.close();
            plugin.checkpointSide().close();
        }
    }

    /** One timed call; returns its nanoseconds. */
    @FunctionalInterface
    private interface Timed {
        long run() throws Exception;
    }
}
