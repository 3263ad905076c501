package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small, fully specified checkpoints for example-based tests. */
final class Samples {

    static final ActionStateKey SOURCE = new ActionStateKey("Source[0]-FakeSource");
    static final ActionStateKey SINK = new ActionStateKey("Sink[1]-Console ☃ 汉字 🚀");

    private Samples() {
    }

    /** Two actions (null slots, a coordinator, a null state element, empty arrays) and two statistics. */
    static CompletedCheckpoint sample() {
        ActionState source = new ActionState(SOURCE,
                Arrays.asList(new ActionSubtaskState(SOURCE, 0, List.of(bytes(1, 2, 3), new byte[0])), null,
                        new ActionSubtaskState(SOURCE, 2, Arrays.asList(null, bytes(0xFF)))),
                new ActionSubtaskState(SOURCE, -1, List.of(bytes(9, 9))), 3);
        ActionState sink = new ActionState(SINK, Arrays.asList(null, null), null, 2);
        Map<ActionStateKey, ActionState> states = new LinkedHashMap<>();
        states.put(SOURCE, source);
        states.put(SINK, sink);
        Map<Long, TaskStatistics> stats = new LinkedHashMap<>();
        SubtaskStatistics acked = new SubtaskStatistics(0, 1_700_000_000_123L, 42, SubtaskStatus.SAVEPOINT_PREPARE_CLOSE);
        stats.put(2000L, new TaskStatistics(2000L, Arrays.asList(acked, null), new boolean[] {true, false}, 1, acked));
        stats.put(Long.MIN_VALUE, new TaskStatistics(Long.MIN_VALUE, List.of(), new boolean[0], 0, null));
        return new CompletedCheckpoint(700_000_000_000_000_002L, 1, 3, 1_700_000_000_000L,
                CheckpointType.SAVEPOINT_TYPE, 1_700_000_000_500L, states, stats);
    }

    /** A checkpoint with empty maps. */
    static CompletedCheckpoint empty() {
        return new CompletedCheckpoint(1, 1, 1, 0, CheckpointType.CHECKPOINT_TYPE, 0, Map.of(), Map.of());
    }

    static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }
}
