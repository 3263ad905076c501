package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.wire.CheckpointWireCodec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Verified restore of one pipeline's savepoint on the local disk, at each of the
 * report's sizes, from the page cache, every contender in the same interleaved rounds:
 * <ul>
 *   <li>Keepsake, format version 2 ({@link SavepointRestorer#restoreSavepoint}: metadata read and
 *       checked, the payload's 1 MiB chunks checked on {@code savepoint.verify-threads} threads
 *       while a read-ahead thread fills the buffers, engine-wire-v1 decoded), with the default
 *       thread count (one per processor), and at the largest size also with 1, 2 and 4 threads;</li>
 *   <li>Keepsake, format version 1 (the same state saved as version 1: one SHA-256 stream per
 *       payload), beside version 2;</li>
 *   <li>SeaTunnel 2.3.8's restore ({@code getLatestCheckpointByJobIdAndPipelineId} and both levels
 *       deserialized, nothing verified);</li>
 *   <li>the three parts of a restore's CPU work, each alone on one thread: the raw read of the
 *       version 2 savepoint's files with a {@link FileChannel} into one reused direct buffer of
 *       {@value #RAW_READ_BUFFER} bytes (the fastest plain read tried: a heap buffer costs a copy
 *       through a temporary direct one, and larger buffers leave the core's cache), one SHA-256
 *       pass over the payload's bytes in memory, and the decode of the payload from memory
 *       (engine-wire-v1, through the same stream decoder a restore uses, nothing verified).</li>
 * </ul>
 * The last three give, round by round, the CPU bound: a verified restore reads every byte, hashes
 * every byte of the savepoint's files once and decodes the payload, so it cannot take less than
 * the sum of those three times (the hash scaled from the payload to all the files) spread evenly
 * over every core.
 */
public final class RestoreSection extends AbstractSection {

    private static final String JOB = "7700000000000003";
    private static final String V2_FIXTURE = "restore-v2";
    private static final String V1_FIXTURE = "restore-v1";
    private static final String BOUND_GOAL = ">= 0.8x of the CPU bound";
    private static final String PEER_GOAL = "> 1x (faster than SeaTunnel's unverified restore)";
    private static final String V1_GOAL = "none: reported (version 1 beside version 2)";
    /** The raw read's buffer: 256 KiB, direct. */
    static final int RAW_READ_BUFFER = 256 * 1024;
    /** The thread counts of the scaling table besides the machine's own processor count. */
    private static final List<Integer> TABLE_THREADS = List.of(1, 2, 4);

    /** The section. */
    public RestoreSection() {
        super("Verified restore on the local disk (format version 2)", List.of(
                new Planned(boundComparison("each size"), BOUND_GOAL),
                new Planned(peerComparison("each size"), PEER_GOAL),
                new Planned(v1Comparison("each size"), V1_GOAL)));
    }

    // About 52 lines: one loop over the disk sizes whose rows, notes and table grow together.
    @Override
    public Result run(ReportOptions options) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        List<GoalRow> rows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<String> tables = new ArrayList<>();
        List<Long> sizes = options.diskSizes();
        for (int i = 0; i < sizes.size(); i++) {
            long size = sizes.get(i);
            List<Integer> threads = i == sizes.size() - 1 ? tableThreads(cores) : List.of();
            Path trial = BenchFiles.newTrialDirectory("restore");
            try {
                Measured m = measure(size, DiskSection.warmupRounds(options.diskWarmup(), size),
                        options.diskRounds().get(i), threads, trial);
                String label = ReportOptions.size(size);
                double[] bound = cpuBound(m.samples().get("raw"), m.samples().get("sha256"), m.samples().get("decode"),
                        m.payloadBytes(), m.fileBytes(), cores);
                rows.add(boundRow(label, cores, m.samples().get("v2"), bound, m.samples().get("raw"),
                        hashTimes(m.samples().get("sha256"), m.payloadBytes(), m.fileBytes(), 1),
                        m.samples().get("decode")));
                rows.add(peerRow(label, m.samples().get("v2"), m.samples().get("seatunnel")));
                rows.add(v1Row(label, m.samples().get("v2"), m.samples().get("v1")));
                notes.add(label + ": median times per restore, version 2 / version 1 / SeaTunnel / raw read "
                        + Spread.medianTimes(m.samples(), "v2", "v1", "seatunnel", "raw")
                        + "; one SHA-256 stream over the "
                        + m.payloadBytes() + " B payload " + Spread.of(m.samples().get("sha256")).medianMillis()
                        + ", the decode of the payload from memory " + Spread.of(m.samples().get("decode")).medianMillis()
                        + ", so the CPU bound (read + hash of the savepoint's " + m.fileBytes() + " B + decode, over "
                        + cores + " cores) is " + Spread.millis(Spread.of(bound).median()) + " ms (median over the"
                        + " rounds); " + chunks(m.payloadBytes()) + ".");
                if (!threads.isEmpty()) {
                    tables.add(threadTable(label, cores, m.samples(), bound));
                }
            } finally {
                BenchFiles.deleteRecursively(trial);
            }
        }
        notes.add("Restore ratios are speed ratios within a round: the other's time / Keepsake version 2's time"
                + " (above 1: version 2 is faster). The CPU bound of a round is the CPU work every verified restore"
                + " does, measured part by part in that round, each part alone on one thread, divided by the "
                + cores + " cores: (the raw read of the version 2 savepoint's files (payload and metadata,"
                + " FileChannel into one reused direct " + ReportOptions.size(RAW_READ_BUFFER) + " buffer) + SHA-256"
                + " of those files' bytes at the rate of the round's one SHA-256 stream over the payload in memory"
                + " + the decode of the payload from memory) / " + cores + "; the bound assumes the work splits"
                + " evenly over the cores with nothing lost to waiting or handing over, which no restore reaches;"
                + " `savepoint.verify-threads` is " + StorageOptions.defaultVerifyThreads()
                + " (one per processor) for the rows. Each size is one pipeline of " + BenchStates.REPORT_ACTIONS
                + " actions x " + BenchStates.REPORT_PARALLELISM + " subtasks of random bytes, read from the page"
                + " cache (files written once before the rounds); warm-up rounds discarded per size as in the save"
                + " section (enough to run about 256 MiB through each contender first). The thread table is at the"
                + " largest size only, each count on its own storage over the same files, in the rounds of the rows.");
        return new Result(rows, notes, tables);
    }

    /**
     * The verifier thread counts of the scaling table: 1, 2, 4 and the processors available,
     * each once, in increasing order.
     */
    static List<Integer> tableThreads(int cores) {
        TreeSet<Integer> counts = new TreeSet<>(TABLE_THREADS);
        counts.add(cores);
        return List.copyOf(counts);
    }

    /**
     * What one size measured.
     *
     * @param samples      nanoseconds per round of each contender: {@code v2} (default threads),
     *                     {@code v1}, {@code seatunnel}, {@code raw}, {@code sha256} and {@code threads-N}
     * @param payloadBytes the payload's length, the bytes the SHA-256 contender hashes
     * @param fileBytes    the version 2 savepoint's files (payload and metadata), the bytes the raw read reads
     */
    record Measured(Map<String, double[]> samples, long payloadBytes, long fileBytes) {
    }

    private Measured measure(long size, int warmup, int rounds, List<Integer> threads, Path trial) throws Exception {
        CompletedCheckpoint state = BenchStates.reportState(size, Long.parseLong(JOB), 1, 1, 20_240_611L);
        byte[] payload = new CheckpointWireCodec().encode(state);
        SeaTunnelPath seaTunnel = new SeaTunnelPath(trial.resolve("seatunnel"));
        seaTunnel.save(SeaTunnelPath.toEngine(state));
        StorageOptions defaults = StorageOptions.of(trial.resolve("keepsake-checkpoints").toString(),
                trial.resolve("keepsake-savepoints").toString(), 0);
        List<KeepsakeStorage> opened = new ArrayList<>();
        try {
            KeepsakeStorage storage = open(opened, defaults);
            SavepointHandle fixture = DiskSection.save(storage, JOB, V2_FIXTURE, state);
            DiskSection.save(open(opened, defaults.withFormatVersion(1)), JOB, V1_FIXTURE, state);
            List<Path> files = files(Path.of(fixture.location().replaceFirst("^file:", "")));
            long fileBytes = 0;
            for (Path file : files) {
                fileBytes += Files.size(file);
            }
            SavepointRestorer restorer = new SavepointRestorer(storage);
            ByteBuffer buffer = ByteBuffer.allocateDirect(RAW_READ_BUFFER);
            CheckpointWireCodec codec = new CheckpointWireCodec();
            List<Interleaved.Contender> contenders = new ArrayList<>(List.of(
                    Interleaved.Contender.of("v2", () -> sink += restorer.restoreSavepoint(JOB, V2_FIXTURE)
                            .checkpoints().size()),
                    Interleaved.Contender.of("v1", () -> sink += restorer.restoreSavepoint(JOB, V1_FIXTURE)
                            .checkpoints().size()),
                    Interleaved.Contender.of("seatunnel", () -> sink += seaTunnel.restore(JOB, 1)
                            .getTaskStates().size()),
                    Interleaved.Contender.of("raw", () -> sink += readAll(files, buffer)),
                    Interleaved.Contender.of("sha256", () -> sink += sha256(payload)),
                    Interleaved.Contender.of("decode", () -> sink += codec.decode(new java.io.ByteArrayInputStream(
                            payload), payload.length, "payload in memory").taskStates().size())));
            for (int count : threads) {
                if (count != defaults.verifyThreads()) {
                    SavepointRestorer own = new SavepointRestorer(open(opened, defaults.withVerifyThreads(count)));
                    contenders.add(Interleaved.Contender.of("threads-" + count, () -> sink += own
                            .restoreSavepoint(JOB, V2_FIXTURE).checkpoints().size()));
                }
            }
            Map<String, double[]> samples = new TreeMap<>(Interleaved.run(warmup, rounds, contenders));
            if (threads.contains(defaults.verifyThreads())) {
                samples.put("threads-" + defaults.verifyThreads(), samples.get("v2"));
            }
            return new Measured(samples, payload.length, fileBytes);
        } finally {
            for (KeepsakeStorage s : opened) {
                s.close();
            }
        }
    }

    private static KeepsakeStorage open(List<KeepsakeStorage> opened, StorageOptions options) {
        KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), options);
        opened.add(storage);
        return storage;
    }

    private static List<Path> files(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.sorted().toList();
        }
    }

    /**
     * Per round, how long hashing {@code hashedBytes} takes at best on {@code cores} cores, at the
     * rate that round's single SHA-256 stream showed over {@code sampledBytes}.
     */
    static double[] hashTimes(double[] sha256, long sampledBytes, long hashedBytes, int cores) {
        double[] times = new double[sha256.length];
        for (int i = 0; i < times.length; i++) {
            times[i] = sha256[i] * hashedBytes / (double) sampledBytes / cores;
        }
        return times;
    }

    /**
     * Per round, the time no verified restore can beat on {@code cores} cores: its CPU work (the raw
     * read of its files, hashing them at the rate of that round's SHA-256 stream over
     * {@code sampledBytes}, decoding the payload) divided evenly over the cores.
     */
    static double[] cpuBound(double[] raw, double[] sha256, double[] decode, long sampledBytes, long hashedBytes,
                             int cores) {
        double[] hash = hashTimes(sha256, sampledBytes, hashedBytes, 1);
        double[] bound = new double[Math.min(raw.length, Math.min(hash.length, decode.length))];
        for (int i = 0; i < bound.length; i++) {
            bound[i] = (raw[i] + hash[i] + decode[i]) / cores;
        }
        return bound;
    }

    private static String boundComparison(String label) {
        return "restore, format version 2 (read + verify + decode) vs the CPU bound ((raw read + SHA-256 + decode)"
                + " / cores), " + label;
    }

    private static String peerComparison(String label) {
        return "restore, format version 2 vs SeaTunnel 2.3.8 restore (unverified), " + label;
    }

    private static String v1Comparison(String label) {
        return "restore, format version 2 vs format version 1 (one SHA-256 stream), " + label;
    }

    /**
     * The CPU bound row: bound time / restore time per round, met when the median is at least 0.8;
     * the spread also gives the bound's parts (medians, each on one thread) and the ratio to the
     * raw read alone.
     */
    static GoalRow boundRow(String label, int cores, double[] restore, double[] bound, double[] raw, double[] hash,
                            double[] decode) {
        Spread ratio = Spread.of(Spread.ratios(bound, restore));
        Spread vsRaw = Spread.of(Spread.ratios(raw, restore));
        return GoalRow.ratio(boundComparison(label), BOUND_GOAL, ratio, "; bound " + Spread.of(bound).medianMillis()
                + " = (read " + Spread.of(raw).medianMillis() + " + hash " + Spread.of(hash).medianMillis()
                + " + decode " + Spread.of(decode).medianMillis()
                + ") / " + cores + " cores; vs the raw read alone " + vsRaw.medianRatio(),
                GoalRow.Verdict.of(ratio.median() >= 0.8));
    }

    /** SeaTunnel's time / version 2's time per round, met when the median is above 1. */
    static GoalRow peerRow(String label, double[] restore, double[] seaTunnel) {
        Spread ratio = Spread.of(Spread.ratios(seaTunnel, restore));
        return GoalRow.ratio(peerComparison(label), PEER_GOAL, ratio, GoalRow.Verdict.of(ratio.median() > 1.0));
    }

    /** Version 1's time / version 2's time per round, reported. */
    static GoalRow v1Row(String label, double[] restore, double[] v1) {
        Spread ratio = Spread.of(Spread.ratios(v1, restore));
        return GoalRow.ratio(v1Comparison(label), V1_GOAL, ratio, GoalRow.Verdict.REPORTED);
    }

    /**
     * The scaling table: restore time of version 2 against {@code savepoint.verify-threads}, each
     * count's speed against one thread and its share of the CPU bound, within the same rounds.
     *
     * @param samples nanoseconds per round, {@code threads-N} for each count N
     * @param bound   the CPU bound of each round
     */
    static String threadTable(String label, int cores, Map<String, double[]> samples, double[] bound) {
        SortedMap<Integer, double[]> byThreads = new TreeMap<>();
        samples.forEach((name, times) -> {
            if (name.startsWith("threads-")) {
                byThreads.put(Integer.parseInt(name.substring("threads-".length())), times);
            }
        });
        double[] one = byThreads.get(1);
        StringBuilder md = new StringBuilder();
        md.append("Restore of ").append(label).append(" (format version 2) against `savepoint.verify-threads`, on ")
                .append(cores).append(cores == 1 ? " core" : " cores")
                .append(" (available processors; the default is one thread per processor), all counts in the same"
                        + " rounds:\n\n");
        md.append("| verify threads | restore (median) | spread | speed vs 1 thread | of the CPU bound |\n");
        md.append("| --- | --- | --- | --- | --- |\n");
        byThreads.forEach((count, times) -> {
            Spread time = Spread.of(times);
            Spread speedup = Spread.of(Spread.ratios(one, times));
            Spread ofBound = Spread.of(Spread.ratios(bound, times));
            md.append("| ").append(count).append(count == cores ? " (default here)" : "").append(" | ")
                    .append(time.medianMillis()).append(" | ").append(time.millisSpread()).append(" | ")
                    .append(speedup.medianRatio()).append(" (IQR ").append(Spread.ratio(speedup.q1())).append('-')
                    .append(Spread.ratio(speedup.q3())).append(") | ").append(ofBound.medianRatio()).append(" |\n");
        });
        return md.toString();
    }

    /** How many chunks a version 2 payload of {@code bytes} has, and what that means for the verifier threads. */
    private static String chunks(long bytes) {
        long count = ChunkDigests.chunkCount(bytes, ChunkDigests.CHUNK_SIZE);
        return "the payload is " + count + (count == 1 ? " chunk, read and checked on the restoring thread"
                : " chunks of at most " + ReportOptions.size(ChunkDigests.CHUNK_SIZE)
                        + ", checked on the verifier threads");
    }

    /** One SHA-256 pass over {@code bytes}: the least a verified restore does. */
    static long sha256(byte[] bytes) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(bytes)[0];
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("Cannot measure SHA-256: the JVM has no SHA-256", e);
        }
    }

    /** Reads every file into the reused buffer and returns the bytes read. */
    static long readAll(List<Path> files, ByteBuffer buffer) throws IOException {
        long total = 0;
        for (Path file : files) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                int n;
                while ((n = channel.read(buffer.clear())) >= 0) {
                    total += n;
                }
            }
        }
        return total;
    }
}
