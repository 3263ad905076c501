package io.keepsake.reader;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Checkpoints of a given job and pipeline with seeded, varied state: null slots, a coordinator, statistics. */
final class TestCheckpoints {

    private TestCheckpoints() {
    }

    static CompletedCheckpoint of(long jobId, int pipelineId, long checkpointId, CheckpointType type) {
        Random r = new Random(jobId * 31 + pipelineId * 7L + checkpointId);
        Map<ActionStateKey, ActionState> states = new LinkedHashMap<>();
        for (int a = 0; a < 2; a++) {
            ActionStateKey key = ActionStateKey.of("pipeline-" + pipelineId + "-action-" + a + "-源");
            int parallelism = 3;
            List<ActionSubtaskState> slots = new ArrayList<>();
            for (int i = 0; i < parallelism; i++) {
                if (i == 1 && a == 1) {
                    slots.add(null);
                    continue;
                }
                byte[] chunk = new byte[r.nextInt(300)];
                r.nextBytes(chunk);
                slots.add(new ActionSubtaskState(key, i, Arrays.asList(chunk, new byte[0])));
            }
            ActionSubtaskState coordinator = a == 0 ? new ActionSubtaskState(key, -1, List.of(new byte[] {1, 2, 3})) : null;
            states.put(key, new ActionState(key, slots, coordinator, parallelism));
        }
        Map<Long, TaskStatistics> stats = new LinkedHashMap<>();
        long vertex = 100L + pipelineId;
        SubtaskStatistics acked = new SubtaskStatistics(0, 1_700_000_000_000L + checkpointId, 512, SubtaskStatus.RUNNING);
        stats.put(vertex, new TaskStatistics(vertex, Arrays.asList(acked, null), new boolean[] {true, false}, 1, acked));
        return new CompletedCheckpoint(jobId, pipelineId, checkpointId, 1_700_000_000_000L + checkpointId * 10, type,
                1_700_000_000_500L + checkpointId * 10, states, stats);
    }

    static CompletedCheckpoint savepointOf(long jobId, int pipelineId, long checkpointId) {
        return of(jobId, pipelineId, checkpointId, CheckpointType.SAVEPOINT_TYPE);
    }
}
