package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.KeepsakeStorage;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.time.Duration;
import io.keepsake.fixtures.faults.CountingFileSystem;
import io.keepsake.storage.localfile.LocalFileSystem;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.keepsake.bench.LatencyRounds.nanos;

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
public final class ObjectStoreSection extends AbstractSection {

    /** The system property that sets the measured rounds (the mode's otherwise). */
    public static final String ROUNDS_PROPERTY = "keepsake.bench.objectstore.rounds";

    /** The system property that sets the discarded warm-up rounds (the mode's otherwise). */
    public static final String WARMUP_PROPERTY = "keepsake.bench.objectstore.warmup";

    /** The system property that runs the section in the tiny mode too (its smoke test), on the tiny sizes. */
    public static final String TINY_PROPERTY = "keepsake.bench.objectstore.tiny";

    private static final String NAMESPACE = "/keepsake/";
    private static final String SEATUNNEL_NAMESPACE = "/seatunnel/checkpoint/";
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
    /** The keys of the rows' cells, in the report's order. */
    private static final List<String> ROWS = List.of("checkpoint", "savepoint-small", "savepoint-large",
            "restore-small", "restore-large", "lookup-few", "lookup-many", "list-few", "list-many");

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

        /** An empty cell per row, in the rows' order. */
        static Map<String, Cell> perRow(Collection<String> rows, int rounds) {
            Map<String, Cell> cells = new LinkedHashMap<>();
            for (String row : rows) {
                cells.put(row, new Cell(rounds));
            }
            return cells;
        }
    }

    /** The section. */
    public ObjectStoreSection() {
        super("Object store with latency (Keepsake vs SeaTunnel-on-S3A; Keepsake on Azure vs the store's floor)",
                planned());
    }

    /** The rows at the full run's sizes. */
    private static List<Planned> planned() {
        List<Planned> rows = new ArrayList<>();
        for (String row : storeRows("170 KB", "1 MiB", "64 MiB")) {
            rows.add(new Planned(row + " at 20 ms", STORE_GOAL));
        }
        for (String row : otherRows("1 MiB", "64 MiB", 10, 10_000)) {
            rows.add(new Planned(row + " at 20 ms", REQUEST_GOAL));
        }
        rows.add(new Planned("Keepsake recoverLatest, 10,000 vs 10 savepoints, at 20 ms", LOOKUP_GOAL));
        rows.add(new Planned("Keepsake list of a job, 10,000 vs 10 savepoints, at 20 ms", LOOKUP_GOAL));
        rows.add(new Planned("every row at 0 ms: requests", REQUEST_GOAL));
        rows.addAll(AzureObjectStoreRows.planned());
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

    /** The states of a savepoint row's pipelines, {@code bytesEach} each, their bytes seeded from {@code seed}. */
    static List<CompletedCheckpoint> savepointStates(int bytesEach, int seed) {
        List<CompletedCheckpoint> states = new ArrayList<>();
        for (int p = 1; p <= PIPELINES; p++) {
            states.add(BenchStates.reportState(bytesEach, JOB, p, 1, seed + p));
        }
        return states;
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
        private final LatencyRounds rounds;
        private final PluginKeepsake keepsake;
        private final SeaTunnelS3aPeer seatunnel;
        private final List<CompletedCheckpoint> small;
        private final List<CompletedCheckpoint> large;
        private final List<String> notes = new ArrayList<>();
        private long checkpointId = 1;
        /** The checkpoint the next checkpoint row rotates away: savepoint rows draw ids from the same counter. */
        private long lastCheckpoint;

        Run(LocalS3 s3, LatencyProxy proxy, Sizes sizes) throws Exception {
            this.s3 = s3;
            this.proxy = proxy;
            this.sizes = sizes;
            this.rounds = new LatencyRounds(proxy, "S3");
            this.keepsake = new PluginKeepsake(keys(proxy.endpoint()), "objectstore-pipeline");
            this.seatunnel = SeaTunnelS3aPeer.start(proxy.endpoint(), LocalS3.BUCKET, LocalS3.ACCESS, LocalS3.SECRET,
                    SEATUNNEL_NAMESPACE);
            rounds.progress("stores open, SeaTunnel's child JVM started");
            this.small = savepointStates(sizes.smallBytes, 100);
            this.large = savepointStates(sizes.largeBytes, 200);
        }

        Result measure() throws Exception {
            String fewJob = Long.toString(JOB + 1);
            String manyJob = Long.toString(JOB + 2);
            long seedMillis = seed(fewJob, manyJob);
            Map<String, Cell> zero = Cell.perRow(ROWS, sizes.rounds);
            Map<String, Cell> twenty = Cell.perRow(ROWS, sizes.rounds);
            boolean listManyAtLatency = true;
            rounds.run(sizes.warmup, sizes.rounds, zero, twenty, (cells, index, keepsakeFirst) -> {
                checkpointRow(cells.get("checkpoint"), index, keepsakeFirst);
                savepointRows(cells.get("savepoint-small"), cells.get("restore-small"), small, sizes.smallBytes,
                        index, keepsakeFirst);
                savepointRows(cells.get("savepoint-large"), cells.get("restore-large"), large, sizes.largeBytes,
                        index, keepsakeFirst);
                lookupRow(cells.get("lookup-few"), fewJob, index, keepsakeFirst);
                lookupRow(cells.get("lookup-many"), manyJob, index, keepsakeFirst);
                listRow(cells.get("list-few"), fewJob, index);
            });
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
            rounds.progress("lists of " + sizes.many + " savepoints done");
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
            rounds.progress("seeded the lookup jobs in " + seedMillis + " ms");
            // the first checkpoint, so that every timed store rotates one away
            PipelineState first = keepsake.checkpointState(sizes.checkpointBytes, checkpointId);
            keepsake.store(first);
            seatunnel.store(BenchStates.JOB, 1, checkpointId, first.getStates().length, checkpointId);
            lastCheckpoint = checkpointId;
            return seedMillis;
        }

        // ---- the rows ------------------------------------------------------------------------------

        private void checkpointRow(Cell cell, int index, boolean keepsakeFirst) throws Exception {
            long id = ++checkpointId;
            long previous = lastCheckpoint;
            PipelineState state = keepsake.checkpointState(sizes.checkpointBytes, id);
            int stateBytes = state.getStates().length;
            rounds.both(cell, index, keepsakeFirst, nanos(() -> keepsake.storeAndRotate(state, previous)),
                    () -> seatunnel.store(BenchStates.JOB, 1, id, stateBytes, id)
                            + seatunnel.delete(BenchStates.JOB, 1, List.of(previous)));
            lastCheckpoint = id;
        }

        private void savepointRows(Cell save, Cell restore, List<CompletedCheckpoint> states, int bytesEach,
                                   int index, boolean keepsakeFirst) throws Exception {
            long id = ++checkpointId;
            String stJob = Long.toString(JOB + 10);
            String[] savepoint = new String[1];
            rounds.both(save, index, keepsakeFirst, nanos(() -> savepoint[0] = keepsake.save(states)),
                    () -> seatunnel.storeAll(stJob, PIPELINES, id, bytesEach, id));
            // the engine's CheckpointManager restores its pipelines from a parallel stream
            rounds.both(restore, index, keepsakeFirst, nanos(() -> keepsake.restore(savepoint[0])),
                    () -> seatunnel.restoreAll(stJob, PIPELINES));
            rounds.untimed(() -> {
                keepsake.deleteSavepoint(savepoint[0]);
                for (int p = 1; p <= PIPELINES; p++) {
                    seatunnel.delete(stJob, p, List.of(id));
                }
            });
        }

        private void lookupRow(Cell cell, String job, int index, boolean keepsakeFirst) throws Exception {
            rounds.both(cell, index, keepsakeFirst, nanos(() -> keepsake.recoverLatest(job)),
                    () -> seatunnel.restoreLatest(job, 1));
        }

        private Measure listRow(Cell cell, String job, int index) throws Exception {
            Measure m = rounds.timed(nanos(() -> sink += keepsake.storage().listSavepoints(job).size()));
            if (index >= 0) {
                cell.keepsake[index] = m.nanos();
                cell.seatunnel[index] = Double.NaN;
                cell.keepsakeLast = m;
            }
            return m;
        }

        // ---- Keepsake and SeaTunnel operations ----------------------------------------------------

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
                        PluginKeepsake.seedOne(storage, job, i);
                    }
                }
                String root = keepsake.storage().savepointRoot();
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

        /**
         * Seeds {@code count} checkpoint files of pipeline 1 of {@code job}: the newest through
         * SeaTunnel's storage at 0 ms, then copies of it under the names SeaTunnel gives checkpoints
         * 1..count-1, written straight into S3Proxy's store.
         */
        private void seedSeaTunnel(String job, int count) throws Exception {
            proxy.timeToFirstByte(Duration.ZERO);
            rounds.awaitQuiet();
            proxy.clearLog();
            seatunnel.store(job, 1, count, 1024, count);
            rounds.awaitQuiet();
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
            seatunnel.close();
            keepsake.close();
        }
    }
}
