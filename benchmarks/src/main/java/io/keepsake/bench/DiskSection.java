package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
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

/**
 * Save of one pipeline's state on the local disk, at each of the report's sizes, Keepsake (format
 * version 2, the default) beside the released SeaTunnel 2.3.8 path and the raw disk, interleaved
 * per round: a {@link SavepointSaveSession} commit (encode, each 1 MiB chunk's SHA-256 while
 * written, payload, metadata and directories fsynced, atomic publication) vs the same payload
 * bytes, encoded beforehand, written to a new file with a {@link FileChannel} and
 * {@code force(true)}, vs SeaTunnel's serialize + wrap + {@code storeCheckPoint} (commons-io write,
 * no fsync). What a save wrote is deleted after it, untimed. Restore is {@link RestoreSection}'s.
 */
public final class DiskSection extends AbstractSection {

    private static final String SAVE_JOB = "7700000000000002";
    /** The format version the save rows measure, written explicitly so that the rows name what they measure. */
    private static final int SAVE_FORMAT_VERSION = 2;
    private static final String SAVE_GOAL = ">= 0.8x (hold it)";
    private static final String SAVE_PEER_GOAL = "none: reported (SeaTunnel neither fsyncs nor checksums)";

    /** The section. */
    public DiskSection() {
        super("Save on the local disk (format version 2)", List.of(
                new Planned(saveComparison("each size"), SAVE_GOAL),
                new Planned(peerComparison("each size"), SAVE_PEER_GOAL)));
    }

    @Override
    public Result run(ReportOptions options) throws Exception {
        List<GoalRow> rows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (int i = 0; i < options.diskSizes().size(); i++) {
            long size = options.diskSizes().get(i);
            int rounds = options.diskRounds().get(i);
            Path trial = BenchFiles.newTrialDirectory("disk");
            try {
                measure(size, warmupRounds(options.diskWarmup(), size), rounds, trial, rows, notes);
            } finally {
                BenchFiles.deleteRecursively(trial);
            }
        }
        notes.add("Save ratios are speed ratios, baseline time / Keepsake time of the same round (above 1: Keepsake"
                + " is faster); Keepsake writes format version " + SAVE_FORMAT_VERSION + " (1 MiB chunks hashed as"
                + " written); each size is one pipeline of " + BenchStates.REPORT_ACTIONS + " actions x "
                + BenchStates.REPORT_PARALLELISM + " subtasks of random bytes; warm-up rounds discarded per size: at least " + options.diskWarmup()
                + ", and enough to run about 256 MiB through each contender first (256 rounds at 1 MiB: fewer leave the"
                + " encoders of both Keepsake and SeaTunnel not yet compiled by C2, several times slower).");
        notes.add("Raw write: the encoded payload written to a new file with a FileChannel and force(true), one file,"
                + " no directory fsync.");
        notes.add("SeaTunnel 2.3.8: ProtoStuffSerializer + PipelineState + LocalFileStorage from the released jars;"
                + " its save writes with commons-io and no fsync, so its save figures partly measure the page cache.");
        return new Result(rows, notes);
    }

    private static String saveComparison(String label) {
        return "save, format version " + SAVE_FORMAT_VERSION + " (encode + chunk SHA-256 + write + fsync + commit) vs"
                + " raw write + fsync, " + label;
    }

    private static String peerComparison(String label) {
        return "save vs SeaTunnel 2.3.8 save (no fsync, no checksum), " + label;
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

    private void measure(long size, int warmup, int rounds, Path trial, List<GoalRow> rows, List<String> notes)
            throws Exception {
        CompletedCheckpoint state = BenchStates.reportState(size, Long.parseLong(SAVE_JOB), 1, 1, 20_240_611L);
        var engineState = SeaTunnelPath.toEngine(state);
        byte[] payload = new CheckpointWireCodec().encode(state);
        String label = ReportOptions.size(size);

        Path rawDir = Files.createDirectories(trial.resolve("raw"));
        SeaTunnelPath seaTunnel = new SeaTunnelPath(trial.resolve("seatunnel"));
        StorageOptions storageOptions = StorageOptions.of(trial.resolve("keepsake-checkpoints").toString(),
                trial.resolve("keepsake-savepoints").toString(), 0).withFormatVersion(SAVE_FORMAT_VERSION);
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), storageOptions)) {
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

            Spread saveVsRaw = Spread.of(Spread.ratios(save.get("raw"), save.get("keepsake")));
            Spread saveVsPeer = Spread.of(Spread.ratios(save.get("seatunnel"), save.get("keepsake")));
            rows.add(GoalRow.ratio(saveComparison(label), SAVE_GOAL, saveVsRaw,
                    GoalRow.Verdict.of(saveVsRaw.median() >= 0.8)));
            rows.add(GoalRow.ratio(peerComparison(label), SAVE_PEER_GOAL, saveVsPeer, GoalRow.Verdict.REPORTED));
            notes.add(label + ": median times per save, Keepsake / SeaTunnel / raw "
                    + Spread.medianTimes(save, "keepsake", "seatunnel", "raw") + "; payload " + payload.length + " B.");
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
}
