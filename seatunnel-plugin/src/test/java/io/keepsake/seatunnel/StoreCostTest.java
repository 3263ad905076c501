package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.faults.CallCountingFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineStateCodec;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cost of one checkpoint store and one savepoint store through the plugin, on a
 * state of about 170 KB that the embedded SeaTunnel 2.3.8 engine produced (FakeSource holding many
 * splits), beside the floor: the same {@code .ser} bytes written to a new file in the same
 * directory tree with one fsync. The stores run while the engine is up, in its JVM, round by round
 * with the order rotating, and every figure is a ratio within one round. It also counts the file
 * system calls of one checkpoint store and one savepoint store. The figures go to
 * {@code target/seatunnel-figures.txt}; the test asserts only that every store took effect.
 */
class StoreCostTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(90);
    /** FakeSource splits giving a state of about 170 KB on SeaTunnel 2.3.8. */
    private static final int SPLITS = Integer.getInteger("keepsake.cost.splits", 950);
    private static final int ROUNDS = Integer.getInteger("keepsake.cost.rounds", 60);
    private static final int WARMUP = 15;

    @Test
    void checkpointAndSavepointStoresAgainstOneFsyncedWrite(@TempDir Path dir) throws Exception {
        byte[] engineFile = engineCheckpointFile(dir);
        io.keepsake.storage.PipelineState decoded = PipelineStateCodec.decode(engineFile, "engine file");
        CompletedCheckpoint checkpoint = LegacyCheckpointCodec.decodeCheckpoint(decoded.states(), "engine");
        String jobId = decoded.jobId();

        Path keepsakeRoot = dir.resolve("keepsake");
        Path seatunnelRoot = dir.resolve("seatunnel");
        Path floorDir = dir.resolve("floor");
        Files.createDirectories(floorDir);
        CheckpointStorage seatunnel = new org.apache.seatunnel.engine.checkpoint.storage.localfile.LocalFileStorageFactory()
                .create(Map.of("namespace", seatunnelRoot + "/"));
        CheckpointStorage keepsake = new KeepsakeCheckpointStorageFactory()
                .create(Map.of("namespace", keepsakeRoot.toString()));

        int total = WARMUP + ROUNDS;
        long[] floor = new long[ROUNDS];
        long[] localfile = new long[ROUNDS];
        long[] stored = new long[ROUNDS];
        long[] saved = new long[ROUNDS];
        long[] renamed = new long[ROUNDS];
        long[] sequential = new long[ROUNDS];
        Path sequentialRoot = dir.resolve("keepsake-sequential");
        Files.createDirectories(sequentialRoot);
        io.keepsake.storage.CheckpointStorage sequentialStorage = new io.keepsake.storage.localfile.LocalFileStorageFactory()
                .create(Map.of("namespace", sequentialRoot.toString()));
        CheckpointStorage keepsakeSequential = new KeepsakeCheckpointStorage(sequentialStorage,
                (SavepointStorage) sequentialStorage, false);
        Path renameDir = dir.resolve("rename-floor");
        Files.createDirectories(renameDir);
        int stateBytes = 0;
        for (int i = 0; i < total; i++) {
            PipelineState cp = seatunnelState(jobId, 10_000 + 2L * i, withId(checkpoint, 10_000 + 2L * i,
                    CheckpointType.CHECKPOINT_TYPE));
            PipelineState sp = seatunnelState(jobId, 10_001 + 2L * i, withId(checkpoint, 10_001 + 2L * i,
                    CheckpointType.SAVEPOINT_TYPE));
            byte[] floorBytes = PipelineStateCodec.encode(new io.keepsake.storage.PipelineState(jobId, 1,
                    cp.getCheckpointId(), cp.getStates()));
            stateBytes = floorBytes.length;
            long[] t = new long[6];
            for (int k = 0; k < 6; k++) {
                int which = (k + i) % 6;
                long a = System.nanoTime();
                switch (which) {
                    case 0 -> writeAndFsync(floorDir.resolve(i + ".ser"), floorBytes);
                    case 1 -> keepsake.storeCheckPoint(cp);
                    case 2 -> seatunnel.storeCheckPoint(cp);
                    case 3 -> keepsake.storeCheckPoint(sp);
                    case 4 -> writeFsyncRenameSyncDirectory(renameDir, i + ".ser", floorBytes);
                    default -> keepsakeSequential.storeCheckPoint(sp);
                }
                t[which] = System.nanoTime() - a;
            }
            if (i >= WARMUP) {
                floor[i - WARMUP] = t[0];
                stored[i - WARMUP] = t[1];
                localfile[i - WARMUP] = t[2];
                saved[i - WARMUP] = t[3];
                renamed[i - WARMUP] = t[4];
                sequential[i - WARMUP] = t[5];
            }
        }
        assertThat(new Namespace(keepsakeRoot).checkpoints(Long.parseLong(jobId))).hasSize(2 * total);
        assertThat(Savepoints.local(new Namespace(keepsakeRoot)).list(Long.parseLong(jobId))).hasSize(total);

        Figures.record("cost: state of one checkpoint file (.ser), bytes", stateBytes);
        Figures.record("cost: machine", machine());
        Figures.record("cost: median (IQR) us over " + ROUNDS + " rounds: floor (write + one fsync)", spread(floor, 1e-3));
        Figures.record("cost: median (IQR) us: write temp + fsync + rename + directory fsync (the checkpoint"
                + " protocol's own floor)", spread(renamed, 1e-3));
        Figures.record("cost: median (IQR) us: keepsake checkpoint store", spread(stored, 1e-3));
        Figures.record("cost: median (IQR) us: keepsake savepoint store (bundle + .ser)", spread(saved, 1e-3));
        Figures.record("cost: median (IQR) us: SeaTunnel localfile store (no fsync)", spread(localfile, 1e-3));
        Figures.record("cost: ratio checkpoint store / floor, median (IQR; min-max)", spread(ratio(stored, floor), 1));
        Figures.record("cost: ratio (write + fsync + rename + directory fsync) / floor, median (IQR; min-max)",
                spread(ratio(renamed, floor), 1));
        Figures.record("cost: ratio checkpoint store / (write + fsync + rename + directory fsync), median (IQR; min-max)",
                spread(ratio(stored, renamed), 1));
        Figures.record("cost: ratio savepoint store / checkpoint store, median (IQR; min-max)",
                spread(ratio(saved, stored), 1));
        Figures.record("cost: ratio savepoint store / floor, median (IQR; min-max)", spread(ratio(saved, floor), 1));
        Figures.record("cost: median (IQR) us: keepsake savepoint store, .ser written after the bundle (before"
                + " this branch)", spread(sequential, 1e-3));
        Figures.record("cost: ratio savepoint store, .ser staged while the bundle commits / .ser after the bundle,"
                + " median (IQR; min-max)", spread(ratio(saved, sequential), 1));

        writeRounds(stateBytes, Map.of("floor", floor, "rename-floor", renamed, "checkpoint", stored,
                "savepoint", saved, "localfile", localfile, "savepoint-sequential", sequential));
        countCalls(dir.resolve("counted"), jobId, checkpoint);
        cpuOnly(jobId, checkpoint);
        withoutDisk(jobId, checkpoint);
    }

    /**
     * The same stores on tmpfs ({@code /dev/shm}), where an fsync costs nothing: what is left is the
     * CPU and the system calls of each path, set beside the bare write, rename and directory sync.
     */
    private static void withoutDisk(String jobId, CompletedCheckpoint checkpoint) throws Exception {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm) || !Files.isWritable(shm)) {
            Figures.record("cost: on tmpfs", "not measured: no writable /dev/shm");
            return;
        }
        Path root = Files.createTempDirectory(shm, "keepsake-cost");
        try {
            Path bare = Files.createDirectories(root.resolve("bare"));
            CheckpointStorage keepsake = new KeepsakeCheckpointStorageFactory()
                    .create(Map.of("namespace", root.resolve("ns").toString(), "create-roots", "true"));
            int n = Integer.getInteger("keepsake.cost.tmpfs-rounds", 300);
            long[] plain = new long[n];
            long[] stored = new long[n];
            long[] saved = new long[n / 5];
            for (int i = 0; i < n; i++) {
                PipelineState cp = seatunnelState(jobId, 40_000 + i, withId(checkpoint, 40_000 + i,
                        CheckpointType.CHECKPOINT_TYPE));
                byte[] bytes = PipelineStateCodec.encode(new io.keepsake.storage.PipelineState(jobId, 1,
                        cp.getCheckpointId(), cp.getStates()));
                long a = System.nanoTime();
                writeFsyncRenameSyncDirectory(bare, i + ".ser", bytes);
                long b = System.nanoTime();
                keepsake.storeCheckPoint(cp);
                long c = System.nanoTime();
                plain[i] = b - a;
                stored[i] = c - b;
                if (i % 5 == 0) {
                    PipelineState sp = seatunnelState(jobId, 50_000 + i, withId(checkpoint, 50_000 + i,
                            CheckpointType.SAVEPOINT_TYPE));
                    long d = System.nanoTime();
                    keepsake.storeCheckPoint(sp);
                    saved[i / 5] = System.nanoTime() - d;
                }
            }
            Figures.record("cost: on tmpfs, median (IQR) us: write temp + fsync + rename + directory fsync",
                    spread(Arrays.copyOfRange(plain, n / 3, n), 1e-3));
            Figures.record("cost: on tmpfs, median (IQR) us: keepsake checkpoint store",
                    spread(Arrays.copyOfRange(stored, n / 3, n), 1e-3));
            Figures.record("cost: on tmpfs, median (IQR) us: keepsake savepoint store (bundle + .ser)",
                    spread(Arrays.copyOfRange(saved, saved.length / 3, saved.length), 1e-3));
        } finally {
            try (var walk = Files.walk(root)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The CPU-only steps of a store, without the disk: telling the state's type, encoding the {@code .ser}. */
    private static void cpuOnly(String jobId, CompletedCheckpoint checkpoint) {
        byte[] states = withId(checkpoint, 30_000, CheckpointType.CHECKPOINT_TYPE);
        int n = 300;
        long[] decode = new long[n];
        long[] encode = new long[n];
        for (int i = 0; i < n; i++) {
            long a = System.nanoTime();
            LegacyCheckpointCodec.decodeCheckpoint(states, "cost");
            long b = System.nanoTime();
            PipelineStateCodec.encode(new io.keepsake.storage.PipelineState(jobId, 1, 30_000, states));
            long c = System.nanoTime();
            decode[i] = b - a;
            encode[i] = c - b;
        }
        Figures.record("cost: median (IQR) us: decode of the state (to tell a savepoint)", spread(decode, 1e-3));
        Figures.record("cost: median (IQR) us: encode of the .ser bytes", spread(encode, 1e-3));
    }

    private static void writeFsyncRenameSyncDirectory(Path dir, String name, byte[] bytes) throws IOException {
        Path temp = dir.resolve("." + name + ".tmp");
        writeAndFsync(temp, bytes);
        Files.move(temp, dir.resolve(name), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        io.keepsake.storage.spi.StorageFileSystem.fsyncLocalDirectory(dir);
    }

    /**
     * Writes every round's times to {@code target/seatunnel-store-cost.tsv} for the benchmarks
     * module's {@code SeaTunnelStoreSection}: a {@code #} line per fact, then one line per contender
     * with its nanoseconds, round by round.
     */
    private static void writeRounds(int stateBytes, Map<String, long[]> rounds) throws IOException {
        StringBuilder out = new StringBuilder();
        out.append("# state-bytes\t").append(stateBytes).append('\n');
        out.append("# machine\t").append(machine()).append('\n');
        out.append("# measured\t").append(java.time.Instant.now()).append('\n');
        for (Map.Entry<String, long[]> e : new java.util.TreeMap<>(rounds).entrySet()) {
            out.append(e.getKey());
            for (long nanos : e.getValue()) {
                out.append('\t').append(nanos);
            }
            out.append('\n');
        }
        Files.writeString(Path.of("target", "seatunnel-store-cost.tsv"), out);
    }

    /** Counts the file system calls of one checkpoint store and one savepoint store (after a first store of each). */
    private static void countCalls(Path root, String jobId, CompletedCheckpoint checkpoint) throws Exception {
        Files.createDirectories(root);
        CallCountingFileSystem fs = new CallCountingFileSystem(new LocalFileSystem());
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, StorageOptions.of(root.toString(), null, 0))) {
            KeepsakeCheckpointStorage plugin = new KeepsakeCheckpointStorage(storage, (SavepointStorage) storage);
            for (int round = 0; round < 2; round++) {
                long id = 20_000 + 2L * round;
                fs.takeCounts();
                plugin.storeCheckPoint(seatunnelState(jobId, id, withId(checkpoint, id, CheckpointType.CHECKPOINT_TYPE)));
                Map<String, Long> checkpointCalls = fs.takeCounts();
                plugin.storeCheckPoint(seatunnelState(jobId, id + 1, withId(checkpoint, id + 1,
                        CheckpointType.SAVEPOINT_TYPE)));
                Map<String, Long> savepointCalls = fs.takeCounts();
                if (round == 1) {
                    Figures.record("cost: file system calls of one checkpoint store", checkpointCalls);
                    Figures.record("cost: file system calls of one savepoint store (bundle + .ser)", savepointCalls);
                }
            }
        }
    }

    private static byte[] engineCheckpointFile(Path dir) throws Exception {
        Namespace ns = new Namespace(dir.resolve("engine"));
        engine.useStorage("keepsake", Map.of("namespace", ns.root().toString()), 5);
        long jobId = engine.submit(Jobs.streamingWithSplits(dir, "cost", 3000, SPLITS));
        engine.awaitStatus(jobId, "RUNNING", WAIT);
        EmbeddedEngine.await("two checkpoints", WAIT, () -> ns.checkpoints(jobId).size() >= 2);
        List<Namespace.CheckpointFile> files = ns.checkpoints(jobId);
        byte[] bytes = Files.readAllBytes(files.get(files.size() - 1).path());
        engine.cancel(jobId);
        return bytes;
    }

    private static void writeAndFsync(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
            ch.force(true);
        }
    }

    private static PipelineState seatunnelState(String jobId, long checkpointId, byte[] states) {
        return PipelineState.builder().jobId(jobId).pipelineId(1).checkpointId(checkpointId).states(states).build();
    }

    private static byte[] withId(CompletedCheckpoint c, long checkpointId, CheckpointType type) {
        return LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(c.jobId(), c.pipelineId(), checkpointId,
                c.triggerTimestamp(), type, c.completedTimestamp(), c.taskStates(), c.taskStatistics()));
    }

    private static double[] ratio(long[] a, long[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = (double) a[i] / b[i];
        }
        return r;
    }

    private static String spread(long[] nanos, double scale) {
        double[] d = new double[nanos.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = nanos[i] * scale;
        }
        return spread(d, 1);
    }

    private static String spread(double[] values, double scale) {
        double[] s = values.clone();
        Arrays.sort(s);
        return String.format(java.util.Locale.ROOT, "%.2f (IQR %.2f-%.2f; min-max %.2f-%.2f)", at(s, 0.5) * scale,
                at(s, 0.25) * scale, at(s, 0.75) * scale, s[0] * scale, s[s.length - 1] * scale);
    }

    private static double at(double[] sorted, double q) {
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
    }

    private static String machine() {
        List<String> parts = new ArrayList<>();
        parts.add(Runtime.getRuntime().availableProcessors() + " cores");
        try {
            parts.add("load average " + Files.readString(Path.of("/proc/loadavg")).trim());
        } catch (IOException | RuntimeException e) {
            parts.add("load average unknown");
        }
        parts.add("java " + System.getProperty("java.version"));
        return String.join(", ", parts);
    }
}
