package io.keepsake.tool.internal;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Deterministic engine state for the demo: the {@link CompletedCheckpoint} a small pipeline
 * (source, stateless transform, sink) would report, fully determined by job, pipeline,
 * checkpoint id and type, so that the demo can rebuild what it stored and compare restored state
 * by whole-object equality. The state exercises what real state has: offsets per source
 * subtask, a coordinator (enumerator) state, empty slots, a null state object, and
 * acknowledgement statistics per vertex. Timestamps are derived from the checkpoint id, not the
 * clock. Stateless and thread-safe.
 */
public final class DemoState {

    /** The parallelism of every action in the demo pipeline. */
    public static final int PARALLELISM = 2;

    private static final long EPOCH = 1_700_000_000_000L;

    private DemoState() {
    }

    // About 55 lines: one checkpoint's states and statistics built field by field, as the engine fills them.
    /** The checkpoint of one pipeline, the same for the same arguments. */
    public static CompletedCheckpoint checkpoint(long jobId, int pipelineId, long checkpointId, CheckpointType type) {
        Random random = new Random(jobId * 1_000_003L ^ pipelineId * 7_919L ^ checkpointId * 104_729L ^ type.ordinal());
        long trigger = EPOCH + checkpointId * 60_000L + pipelineId * 7L;
        long completed = trigger + 200 + random.nextInt(800);

        Map<ActionStateKey, ActionState> states = new LinkedHashMap<>();
        Map<Long, TaskStatistics> statistics = new LinkedHashMap<>();
        SubtaskStatus status = switch (type) {
            case SAVEPOINT_TYPE -> SubtaskStatus.SAVEPOINT_PREPARE_CLOSE;
            case COMPLETED_POINT_TYPE -> SubtaskStatus.AUTO_PREPARE_CLOSE;
            default -> SubtaskStatus.RUNNING;
        };

        ActionStateKey source = ActionStateKey.of("pipeline-" + pipelineId + "/source-FakeSource");
        List<ActionSubtaskState> sourceSlots = new ArrayList<>();
        for (int i = 0; i < PARALLELISM; i++) {
            long offset = checkpointId * 1_000L + i * 17L + pipelineId;
            sourceSlots.add(new ActionSubtaskState(source, i, List.of(
                    ByteBuffer.allocate(Long.BYTES).putLong(offset).array(),
                    ("split-" + pipelineId + "-" + i).getBytes(StandardCharsets.UTF_8))));
        }
        ActionSubtaskState enumerator = new ActionSubtaskState(source, ActionSubtaskState.COORDINATOR_INDEX,
                List.of(("assigned-splits=" + PARALLELISM + ";checkpoint=" + checkpointId).getBytes(StandardCharsets.UTF_8)));
        states.put(source, new ActionState(source, sourceSlots, enumerator, PARALLELISM));

        ActionStateKey transform = ActionStateKey.of("pipeline-" + pipelineId + "/transform-Sql");
        states.put(transform, ActionState.empty(transform, PARALLELISM));

        ActionStateKey sink = ActionStateKey.of("pipeline-" + pipelineId + "/sink-Console");
        List<ActionSubtaskState> sinkSlots = new ArrayList<>();
        for (int i = 0; i < PARALLELISM; i++) {
            if (i == 1 && checkpointId % 2 == 0) {
                sinkSlots.add(null);
                continue;
            }
            byte[] pendingCommit = new byte[32 + random.nextInt(64)];
            random.nextBytes(pendingCommit);
            sinkSlots.add(new ActionSubtaskState(sink, i, Arrays.asList(pendingCommit, null)));
        }
        states.put(sink, new ActionState(sink, sinkSlots, null, PARALLELISM));

        long vertex = pipelineId * 100L;
        for (ActionState action : states.values()) {
            vertex++;
            List<SubtaskStatistics> acks = new ArrayList<>();
            boolean[] completedFlags = new boolean[PARALLELISM];
            for (int i = 0; i < PARALLELISM; i++) {
                acks.add(new SubtaskStatistics(i, trigger + 20L * (i + 1) + random.nextInt(20),
                        Formats.stateBytes(action) / PARALLELISM, status));
                completedFlags[i] = true;
            }
            statistics.put(vertex, new TaskStatistics(vertex, acks, completedFlags, PARALLELISM, acks.get(PARALLELISM - 1)));
        }
        return new CompletedCheckpoint(jobId, pipelineId, checkpointId, trigger, type, completed, states, statistics);
    }
}
