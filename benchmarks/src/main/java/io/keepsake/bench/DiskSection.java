package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
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
import java.util.stream.Stream;

/**
 * Save and restore of one pipeline's state on the local disk, at each of the report's sizes,
 * Keepsake beside the released SeaTunnel 2.3.8 path and the raw disk, interleaved per round:
 * <ul>
 *   <li>restore: {@link SavepointRestorer#restoreSavepoint} (metadata read, every payload's
 *       length and SHA-256 checked, engine-wire-v1 decoded) vs reading the same savepoint's files
 *       with a {@link FileChannel} into one reused 1 MiB buffer, vs SeaTunnel's
 *       {@code getLatestCheckpointByJobIdAndPipelineId} + both levels deserialized, nothing
 *       verified; all three from the page cache (files written once before the rounds);</li>
 *   <li>save: a {@link SavepointSaveSession} commit (encode, SHA-256 while written, payload,
 *       metadata and directories fsynced, atomic publication) vs the same payload bytes, encoded
 *       beforehand, written to a new file with a {@link FileChannel} and {@code force(true)}, vs
 *       SeaTunnel's serialize + wrap + {@code storeCheckPoint} (commons-io write, no fsync).</li>
 * </ul>
 * What a save wrote is deleted after it, untimed.
 */
public final class DiskSection implements ReportSection {

    private static final String SAVE_JOB = "7700000000000002";
    private static final String RESTORE_JOB = "7700000000000003";
    private static final String RESTORE_SAVEPOINT = "restore-fixture";
    private static final String RESTORE_GOAL = ">= 0.8x";
    private static final String RESTORE_PEER_GOAL = "> 1x (faster than SeaTunnel's unverified restore)";
    private static final String SAVE_GOAL = ">= 0.8x (hold it)";
    private static final String SAVE_PEER_GOAL = "none: reported (SeaTunnel neither fsyncs nor checksums)";

    /** Consumed results, so that no timed operation can be optimised away. */
    private long sink;

    @Override
    public String title() {
        return "Save and restore on the local disk";
    }

    @Override
    public List<GoalRow> notRun(String why) {
        return List.of(
                GoalRow.notRun("restore vs raw read of the same files", RESTORE_GOAL, why),
                GoalRow.notRun("restore vs SeaTunnel 2.3.8 restore", RESTORE_PEER_GOAL, why),
                GoalRow.notRun("save vs raw write + fsync of the same bytes", SAVE_GOAL, why),
                GoalRow.notRun("save vs SeaTunnel 2.3.8 save", SAVE_PEER_GOAL, why));
    }

    @Override
    public Result run(ReportOptions options) throws Exception {
        List<GoalRow> restoreRows = new ArrayList<>();
        List<GoalRow> saveRows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (int i = 0; i < options.diskSizes().size(); i++) {
            long size = options.diskSizes().get(i);
            int rounds = options.diskRounds().get(i);
            Path trial = BenchFiles.newTrialDirectory("disk");
            try {
                measure(size, warmupRounds(options.diskWarmup(), size), rounds, trial, restoreRows, saveRows, notes);
            } finally {
                BenchFiles.deleteRecursively(trial);
            }
        }
        List<GoalRow> rows = new ArrayList<>(restoreRows);
        rows.addAll(saveRows);
        notes.add("Ratios are speed ratios, baseline time / Keepsake time of the same round (above 1: Keepsake is"
                + " faster); each size is one pipeline of " + BenchStates.REPORT_ACTIONS + " actions x "
                + BenchStates.REPORT_PARALLELISM + " subtasks of random bytes; warm-up rounds discarded per size: at least " + options.diskWarmup()
                + ", and enough to run about 256 MiB through each contender first (256 rounds at 1 MiB: fewer leave the"
                + " decoders of both Keepsake and SeaTunnel not yet compiled by C2, several times slower).");
        notes.add("Raw read: the savepoint's files (payload and metadata) read with a FileChannel into one reused"
                + " 1 MiB buffer, nothing decoded. Raw write: the encoded payload written to a new file with a"
                + " FileChannel and force(true), one file, no directory fsync.");
        notes.add("SeaTunnel 2.3.8: ProtoStuffSerializer + PipelineState + LocalFileStorage from the released jars;"
                + " its save writes with commons-io and no fsync, so its save figures partly measure the page cache.");
        return new Result(rows, notes);
    }

    /**
     * Warm-up rounds for one size: at least {@code configured}, and at small sizes enough that the
     * code of each contender has run about 256 MiB through it (so the JIT has compiled it) before
     * anything is measured: 256 rounds at 1 MiB, the configured number at 256 MiB; none when none
     * are configured (the unit test's tiny mode).
     */
    static int warmupRounds(int configured, long size) {
        if (configured == 0) {
            return 0;
        }
        return (int) Math.max(configured, Math.min(256, (256L << 20) / size));
    }

    private void measure(long size, int warmup, int rounds, Path trial, List<GoalRow> restoreRows,
                         List<GoalRow> saveRows, List<String> notes) throws Exception {
        CompletedCheckpoint state = BenchStates.reportState(size, Long.parseLong(SAVE_JOB), 1, 1, 20_240_611L);
        CompletedCheckpoint restoreState = new CompletedCheckpoint(Long.parseLong(RESTORE_JOB), 1, 1,
                state.triggerTimestamp(), state.checkpointType(), state.completedTimestamp(), state.taskStates(),
                state.taskStatistics());
        var engineState = SeaTunnelPath.toEngine(state);
        var engineRestoreState = SeaTunnelPath.toEngine(restoreState);
        byte[] payload = new CheckpointWireCodec().encode(state);
        String label = ReportOptions.size(size);

        Path rawDir = Files.createDirectories(trial.resolve("raw"));
        SeaTunnelPath seaTunnel = new SeaTunnelPath(trial.resolve("seatunnel"));
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(),
                trial.resolve("keepsake-checkpoints").toString(), trial.resolve("keepsake-savepoints").toString())) {
            SavepointHandle fixture = save(storage, RESTORE_JOB, RESTORE_SAVEPOINT, restoreState);
            seaTunnel.save(engineRestoreState);
            Path fixtureDir = Path.of(fixture.location().replaceFirst("^file:", ""));
            List<Path> fixtureFiles;
            try (Stream<Path> files = Files.list(fixtureDir)) {
                fixtureFiles = files.sorted().toList();
            }
            SavepointRestorer restorer = new SavepointRestorer(storage);
            ByteBuffer buffer = ByteBuffer.allocate(1024 * 1024);

            Map<String, double[]> restore = Interleaved.run(warmup, rounds, List.of(
                    Interleaved.Contender.of("keepsake", () -> sink += restorer
                            .restoreSavepoint(RESTORE_JOB, RESTORE_SAVEPOINT).checkpoints().size()),
                    Interleaved.Contender.of("seatunnel", () -> sink += seaTunnel
                            .restore(RESTORE_JOB, 1).getTaskStates().size()),
                    Interleaved.Contender.of("raw", () -> sink += readAll(fixtureFiles, buffer)),
                    Interleaved.Contender.of("sha256", () -> sink += sha256(payload))));

            long[] sequence = {0};
            Path[] rawFile = {null};
            Map<String, double[]> save = Interleaved.run(warmup, rounds, List.of(
                    new Interleaved.Contender("keepsake",
                            () -> sink += save(storage, SAVE_JOB, "save-" + (++sequence[0]), state).meta().manifest().size(),
                            () -> storage.deleteSavepoint(SAVE_JOB, "save-" + sequence[0])),
                    new Interleaved.Contender("seatunnel", () -> sink += seaTunnel.save(engineState).length(),
                            () -> seaTunnel.deleteJob(SAVE_JOB)),
                    new Interleaved.Contender("raw", () -> {
                        rawFile[0] = rawDir.resolve("payload-" + (++sequence[0]));
                        sink += writeAndForce(rawFile[0], payload);
                    }, () -> Files.delete(rawFile[0]))));

            Spread restoreVsRaw = Spread.of(Spread.ratios(restore.get("raw"), restore.get("keepsake")));
            Spread restoreVsPeer = Spread.of(Spread.ratios(restore.get("seatunnel"), restore.get("keepsake")));
            Spread saveVsRaw = Spread.of(Spread.ratios(save.get("raw"), save.get("keepsake")));
            Spread saveVsPeer = Spread.of(Spread.ratios(save.get("seatunnel"), save.get("keepsake")));
            restoreRows.add(new GoalRow("restore (read + verify + decode) vs raw read of the same files, " + label,
                    RESTORE_GOAL, restoreVsRaw.medianRatio(), restoreVsRaw.ratioSpread(),
                    GoalRow.Verdict.of(restoreVsRaw.median() >= 0.8)));
            restoreRows.add(new GoalRow("restore vs SeaTunnel 2.3.8 restore (unverified), " + label, RESTORE_PEER_GOAL,
                    restoreVsPeer.medianRatio(), restoreVsPeer.ratioSpread(),
                    GoalRow.Verdict.of(restoreVsPeer.median() > 1.0)));
            saveRows.add(new GoalRow("save (encode + SHA-256 + write + fsync + commit) vs raw write + fsync, " + label,
                    SAVE_GOAL, saveVsRaw.medianRatio(), saveVsRaw.ratioSpread(),
                    GoalRow.Verdict.of(saveVsRaw.median() >= 0.8)));
            saveRows.add(new GoalRow("save vs SeaTunnel 2.3.8 save (no fsync, no checksum), " + label, SAVE_PEER_GOAL,
                    saveVsPeer.medianRatio(), saveVsPeer.ratioSpread(), GoalRow.Verdict.REPORTED));
            Spread hashVsRaw = Spread.of(Spread.ratios(restore.get("raw"), restore.get("sha256")));
            notes.add(label + ": median times per operation, restore Keepsake / SeaTunnel / raw "
                    + times(restore) + "; save " + times(save) + "; payload " + payload.length + " B. One SHA-256"
                    + " pass over the payload in memory on one core (what every verified restore must do at least"
                    + " once): " + Spread.of(restore.get("sha256")).medianMillis() + ", so a restore that hashes on"
                    + " one core can reach at most " + hashVsRaw.medianRatio() + " of the raw read ("
                    + hashVsRaw.ratioSpread() + ").");
        }
    }

    private static String times(Map<String, double[]> samples) {
        List<String> parts = new ArrayList<>();
        for (String name : List.of("keepsake", "seatunnel", "raw")) {
            parts.add(Spread.of(samples.get(name)).medianMillis());
        }
        return String.join(" / ", parts);
    }

    /** One SHA-256 pass over {@code bytes}: the least a verified restore does. */
    static long sha256(byte[] bytes) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(bytes)[0];
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("Cannot measure SHA-256: the JVM has no SHA-256", e);
        }
    }

    /** One savepoint of one pipeline through the engine's save session. */
    static SavepointHandle save(KeepsakeStorage storage, String job, String savepointId, CompletedCheckpoint state) {
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, job, List.of(state.pipelineId()))
                .savepointId(savepointId).open()) {
            session.report(state);
            session.pipelineSuspended(state.pipelineId());
            return session.commit();
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

    /** Writes the bytes to a new file, forces it to the disk and returns the bytes written. */
    static long writeAndForce(Path file, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer data = ByteBuffer.wrap(bytes);
            while (data.hasRemaining()) {
                channel.write(data);
            }
            channel.force(true);
        }
        return bytes.length;
    }

    /** What the timed operations returned, summed (read only to keep them alive). */
    long sink() {
        return sink;
    }
}
