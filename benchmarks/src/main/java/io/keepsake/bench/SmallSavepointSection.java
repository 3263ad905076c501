package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A small savepoint of 4 pipelines through {@link SavepointSaveSession} against the same 4
 * pipelines stored through Keepsake's fsynced legacy {@code storeCheckPoint} (v0 encoding,
 * temporary file, fsync, rename, directory fsync), interleaved per round; the SeaTunnel 2.3.8
 * store of the same pipelines (no fsync) is timed beside them for context.
 */
public final class SmallSavepointSection extends AbstractSection {

    private static final String JOB = "7700000000000004";
    private static final String GOAL = "<= 1.2x (time)";

    /** The section. */
    public SmallSavepointSection() {
        super("Small savepoint", "small savepoint (4 pipelines) vs the fsynced legacy store", GOAL);
    }

    // About 53 lines: one trial (set-up, interleaved rounds, goal rows), read top to bottom.
    @Override
    public Result run(ReportOptions options) throws Exception {
        List<CompletedCheckpoint> pipelines = new ArrayList<>();
        List<Integer> ids = new ArrayList<>();
        for (int p = 1; p <= 4; p++) {
            pipelines.add(BenchStates.reportState(options.smallPipelineBytes(), Long.parseLong(JOB), p, 1, 31L * p));
            ids.add(p);
        }
        var engine = pipelines.stream().map(SeaTunnelPath::toEngine).toList();
        String label = ReportOptions.size(options.smallPipelineBytes());
        Path trial = BenchFiles.newTrialDirectory("small");
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(),
                trial.resolve("checkpoints").toString(), trial.resolve("savepoints").toString())) {
            SeaTunnelPath seaTunnel = new SeaTunnelPath(trial.resolve("seatunnel"));
            long[] sequence = {0};
            Map<String, double[]> samples = Interleaved.run(DiskSection.warmupRounds(Math.max(2, options.diskWarmup()),
                    4L * options.smallPipelineBytes()), options.smallRounds(),
                    List.of(new Interleaved.Contender("keepsake", () -> {
                        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, JOB, ids)
                                .savepointId("small-" + (++sequence[0])).open()) {
                            for (CompletedCheckpoint c : pipelines) {
                                session.report(c);
                                session.pipelineSuspended(c.pipelineId());
                            }
                            sink += session.commit().meta().manifest().size();
                        }
                    }, () -> storage.deleteSavepoint(JOB, "small-" + sequence[0])),
                    new Interleaved.Contender("legacy", () -> {
                        for (CompletedCheckpoint c : pipelines) {
                            sink += storage.storeCheckPoint(new PipelineState(JOB, c.pipelineId(), c.checkpointId(),
                                    LegacyCheckpointCodec.encodeCheckpoint(c))).length();
                        }
                    }, () -> storage.deleteCheckpoint(JOB)),
                    new Interleaved.Contender("seatunnel", () -> {
                        for (var c : engine) {
                            sink += seaTunnel.save(c).length();
                        }
                    }, () -> seaTunnel.deleteJob(JOB))));
            Spread cost = Spread.of(Spread.ratios(samples.get("keepsake"), samples.get("legacy")));
            Spread peer = Spread.of(Spread.ratios(samples.get("keepsake"), samples.get("seatunnel")));
            List<GoalRow> rows = List.of(GoalRow.ratio("small savepoint (4 pipelines x " + label
                    + ") vs the fsynced legacy store of the same pipelines", GOAL, cost,
                    GoalRow.Verdict.of(cost.median() <= 1.2)));
            List<String> notes = List.of("Small savepoint: ratio = Keepsake savepoint time / legacy store time of the"
                    + " same round (below 1: Keepsake is faster). Median times Keepsake / legacy / SeaTunnel 2.3.8: "
                    + Spread.of(samples.get("keepsake")).medianMillis() + " / "
                    + Spread.of(samples.get("legacy")).medianMillis() + " / "
                    + Spread.of(samples.get("seatunnel")).medianMillis() + "; Keepsake / SeaTunnel time "
                    + peer.medianRatio() + " (" + peer.ratioSpread() + ", SeaTunnel does not fsync).");
            return new Result(rows, notes);
        } finally {
            BenchFiles.deleteRecursively(trial);
        }
    }
}
