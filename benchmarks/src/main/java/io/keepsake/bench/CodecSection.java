package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.wire.CheckpointWireCodec;

import java.util.List;
import java.util.Map;

/**
 * engine-wire-v1 encode + decode of one pipeline's checkpoint, in memory, against SeaTunnel
 * 2.3.8's double protostuff path (the {@code CompletedCheckpoint} serialized by
 * {@code ProtoStuffSerializer}, wrapped in a {@code PipelineState}, serialized again by its
 * storage; decoding undoes both), interleaved per round; and the encoded sizes.
 */
public final class CodecSection extends AbstractSection {

    private static final String GOAL = ">= 1.5x faster, size <= 1.02x";

    /** The section. */
    public CodecSection() {
        super("Codec", "engine-wire-v1 encode + decode vs SeaTunnel's double protostuff path", GOAL);
    }

    @Override
    public Result run(ReportOptions options) throws Exception {
        CompletedCheckpoint state = BenchStates.reportState(options.codecBytes(), BenchStates.JOB_ID, 1, 1, 99L);
        var engine = SeaTunnelPath.toEngine(state);
        CheckpointWireCodec codec = new CheckpointWireCodec();
        SeaTunnelPath seaTunnel = new SeaTunnelPath(BenchFiles.baseDirectory().resolve("codec-unused"));
        int batch = options.codecBatch();
        Map<String, double[]> samples = Interleaved.run(options.codecRounds(), options.codecRounds(), List.of(
                Interleaved.Contender.of("keepsake", () -> {
                    for (int i = 0; i < batch; i++) {
                        sink += codec.decode(codec.encode(state), "codec section").checkpointId();
                    }
                }),
                Interleaved.Contender.of("seatunnel", () -> {
                    for (int i = 0; i < batch; i++) {
                        sink += seaTunnel.decodeFile(seaTunnel.encodeFile(engine)).getCheckpointId();
                    }
                })));
        long wireBytes = codec.encode(state).length;
        long fileBytes = seaTunnel.encodeFile(engine).length;
        Spread speed = Spread.of(Spread.ratios(samples.get("seatunnel"), samples.get("keepsake")));
        double sizeRatio = (double) wireBytes / fileBytes;
        String label = ReportOptions.size(options.codecBytes());
        List<GoalRow> rows = List.of(new GoalRow("engine-wire-v1 encode + decode vs SeaTunnel's double protostuff"
                + " path, " + label, GOAL, speed.medianRatio() + " faster, size " + Spread.ratio(sizeRatio) + "x",
                speed.ratioSpread() + "; size " + wireBytes + " B vs " + fileBytes + " B (exact)",
                GoalRow.Verdict.of(speed.median() >= 1.5 && sizeRatio <= 1.02)));
        List<String> notes = List.of("Codec: each sample is " + batch + " encode + decode pairs of one " + label
                + " checkpoint (" + BenchStates.REPORT_ACTIONS + " x " + BenchStates.REPORT_PARALLELISM
                + " subtasks); speed = SeaTunnel time / Keepsake time; size = v1 payload bytes / SeaTunnel checkpoint"
                + " file bytes (the serialized PipelineState); " + options.codecRounds() + " discarded warm-up samples"
                + " first. Medians per sample Keepsake / SeaTunnel: "
                + Spread.of(samples.get("keepsake")).medianMillis() + " / "
                + Spread.of(samples.get("seatunnel")).medianMillis() + ".");
        return new Result(rows, notes);
    }
}
