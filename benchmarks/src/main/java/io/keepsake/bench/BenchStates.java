package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.StateGenerators;

import java.util.ArrayList;
import java.util.List;

/**
 * The checkpoints every benchmark works on, generated deterministically with
 * {@link StateGenerators#sized(long, int, int, int)} so that each run and the smoke test see the
 * same bytes. State arrays are random, so neither format gains from compressible input.
 *
 * <p>Stateless and thread-safe.
 */
public final class BenchStates {

    /** The job every benchmark checkpoint belongs to. */
    public static final long JOB_ID = 7_700_000_000_000_001L;

    /** The job id as the storage SPIs take it. */
    public static final String JOB = Long.toString(JOB_ID);

    /** The @Param value of the ~10 KiB codec state: 2 actions x 2 subtasks x 2,500 bytes. */
    public static final String SMALL = "small";

    /** The @Param value of the ~4 MiB codec state: 4 actions x 4 subtasks x 256 KiB. */
    public static final String LARGE = "large";

    /** How many pipelines a savepoint in the save and restore benchmarks holds. */
    public static final int PIPELINES = 4;

    /** The raw state bytes of each of those pipelines: 2 actions x 4 subtasks x 128 KiB = 1 MiB. */
    public static final int PIPELINE_STATE_BYTES = 2 * 4 * 128 * 1024;

    private static final long SEED = 20_240_611L;

    private BenchStates() {
    }

    /**
     * Returns the single-pipeline checkpoint of the codec benchmark.
     *
     * @throws IllegalArgumentException when {@code size} is neither {@link #SMALL} nor {@link #LARGE}
     */
    public static CompletedCheckpoint codecCheckpoint(String size) {
        CompletedCheckpoint generated = switch (size) {
            case SMALL -> StateGenerators.sized(SEED, 2, 2, 2_500);
            case LARGE -> StateGenerators.sized(SEED, 4, 4, 256 * 1024);
            default -> throw new IllegalArgumentException("Cannot generate codec state: size must be "
                    + SMALL + " or " + LARGE + " (" + size + ")");
        };
        return inPipeline(generated, 1);
    }

    /**
     * Returns the {@link #PIPELINES} checkpoints of one job (pipelines 1..4, each with different
     * random state of {@link #PIPELINE_STATE_BYTES} bytes) that one savepoint stores.
     */
    public static List<CompletedCheckpoint> savepointPipelines() {
        List<CompletedCheckpoint> pipelines = new ArrayList<>(PIPELINES);
        for (int pipeline = 1; pipeline <= PIPELINES; pipeline++) {
            pipelines.add(inPipeline(StateGenerators.sized(SEED + pipeline, 2, 4, 128 * 1024), pipeline));
        }
        return List.copyOf(pipelines);
    }

    /** Actions of the goals report's one-pipeline states. */
    public static final int REPORT_ACTIONS = 4;

    /** Subtasks per action of the goals report's one-pipeline states. */
    public static final int REPORT_PARALLELISM = 16;

    /**
     * Returns one pipeline's checkpoint of {@value #REPORT_ACTIONS} actions x
     * {@value #REPORT_PARALLELISM} subtasks of random bytes, {@code totalBytes} of state in all,
     * with no task statistics (the SeaTunnel side cannot carry them, see {@link SeaTunnelPath}).
     *
     * @throws IllegalArgumentException when {@code totalBytes} is not a positive multiple of 64
     */
    public static CompletedCheckpoint reportState(long totalBytes, long jobId, int pipelineId, long checkpointId,
                                                  long seed) {
        int slots = REPORT_ACTIONS * REPORT_PARALLELISM;
        if (totalBytes <= 0 || totalBytes % slots != 0 || totalBytes / slots > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Cannot generate report state: the size must be a positive multiple of "
                    + slots + " (" + totalBytes + ")");
        }
        CompletedCheckpoint c = StateGenerators.sized(seed, REPORT_ACTIONS, REPORT_PARALLELISM,
                (int) (totalBytes / slots));
        return new CompletedCheckpoint(jobId, pipelineId, checkpointId, c.triggerTimestamp(), c.checkpointType(),
                c.completedTimestamp(), c.taskStates(), java.util.Map.of());
    }

    /** Returns the generated checkpoint moved into the benchmark job and the given pipeline. */
    private static CompletedCheckpoint inPipeline(CompletedCheckpoint c, int pipelineId) {
        return new CompletedCheckpoint(JOB_ID, pipelineId, c.checkpointId(), c.triggerTimestamp(), c.checkpointType(),
                c.completedTimestamp(), c.taskStates(), c.taskStatistics());
    }
}
