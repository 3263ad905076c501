package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;
import io.keepsake.storage.internal.FrozenSchema;
import io.keepsake.wire.LegacyV0Groups.BoolArrayMessage;
import io.keepsake.wire.LegacyV0Groups.ListSchema;
import io.keepsake.wire.LegacyV0Groups.MapSchema;
import io.keepsake.wire.LegacyV0Groups.ValueReader;
import io.protostuff.Input;
import io.protostuff.Schema;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static io.keepsake.wire.LegacyV0Groups.required;

/**
 * Reads the legacy v0 layout ({@link LegacyLayout} lists its rules) through a {@link BoundedInput}.
 * Each {@code *Message} class is the mutable form of one legacy message: its schema reads the
 * fields into it, skipping unknown ones as protostuff does, and its {@code build()} checks that
 * the required fields came and makes the runtime value. Lists, maps and arrays are read by
 * {@link LegacyV0Groups}. Stateless and thread-safe.
 */
final class LegacyV0Reader {

    private LegacyV0Reader() {
    }

    /** Reads a whole {@code CompletedCheckpoint} from {@code input}. */
    static CompletedCheckpoint decode(BoundedInput input) throws IOException {
        return input.readMessage(new CheckpointMessage(), CHECKPOINT).build();
    }

    /** The field table of a legacy message; its schema reads only (writing goes through {@link LegacyV0Writer}). */
    private static <T> FrozenSchema.Table<T> table(String messageName, Class<T> typeClass, Supplier<T> factory) {
        return FrozenSchema.table(messageName, LegacySchemaBase.FORMAT_NAME + "." + messageName, typeClass, factory);
    }

    private static <M, V> ValueReader<V> group(Schema<M> schema, Builder<M, V> builder) {
        return input -> builder.build(input.mergeObject(null, schema));
    }

    /** Turns a message read in full into its runtime value. */
    private interface Builder<M, V> {
        V build(M message) throws WireFormatException;
    }

    // ---------------------------------------------------------------- ActionStateKey: 1 name

    private static final class KeyMessage {
        String name;

        ActionStateKey build() throws WireFormatException {
            return new ActionStateKey(required(name, "an ActionStateKey", 1, "name"));
        }
    }

    private static final Schema<KeyMessage> KEY = table("ActionStateKey", KeyMessage.class, KeyMessage::new)
            .readOnly("name", (input, m) -> m.name = input.readString())
            .build();

    private static final ValueReader<ActionStateKey> KEY_VALUE = group(KEY, KeyMessage::build);

    // ---------------------------------------------------------------- ActionSubtaskState: 1 stateKey, 2 index, 3 state

    private static final class SubtaskMessage {
        ActionStateKey stateKey;
        int index;
        List<byte[]> state;

        ActionSubtaskState build() throws WireFormatException {
            return new ActionSubtaskState(required(stateKey, "an ActionSubtaskState", 1, "stateKey"), index,
                    required(state, "an ActionSubtaskState", 3, "state"));
        }
    }

    private static final ListSchema<byte[]> STATE_LIST = new ListSchema<>(Input::readByteArray,
            "ActionSubtaskState.state");

    private static final Schema<SubtaskMessage> SUBTASK = table("ActionSubtaskState", SubtaskMessage.class,
                    SubtaskMessage::new)
            .readOnly("stateKey", (input, m) -> m.stateKey = KEY_VALUE.read(input))
            .readOnly("index", (input, m) -> m.index = input.readInt32())
            .readOnly("state", (input, m) -> m.state = input.mergeObject(null, STATE_LIST))
            .build();

    private static final ValueReader<ActionSubtaskState> SUBTASK_VALUE = group(SUBTASK, SubtaskMessage::build);

    // ---------------------------------------------------------------- ActionState: 1 stateKey, 2 subtaskStates, 3 coordinatorState, 4 parallelism

    private static final class ActionMessage {
        ActionStateKey stateKey;
        List<ActionSubtaskState> subtaskStates;
        ActionSubtaskState coordinatorState;
        int parallelism;

        ActionState build() throws WireFormatException {
            return new ActionState(required(stateKey, "an ActionState", 1, "stateKey"),
                    required(subtaskStates, "an ActionState", 2, "subtaskStates"), coordinatorState, parallelism);
        }
    }

    private static final ListSchema<ActionSubtaskState> SUBTASK_LIST =
            new ListSchema<>(SUBTASK_VALUE, "ActionState.subtaskStates");

    private static final Schema<ActionMessage> ACTION = table("ActionState", ActionMessage.class, ActionMessage::new)
            .readOnly("stateKey", (input, m) -> m.stateKey = KEY_VALUE.read(input))
            .readOnly("subtaskStates", (input, m) -> m.subtaskStates = input.mergeObject(null, SUBTASK_LIST))
            .readOnly("coordinatorState", (input, m) -> m.coordinatorState = SUBTASK_VALUE.read(input))
            .readOnly("parallelism", (input, m) -> m.parallelism = input.readInt32())
            .build();

    // ---------------------------------------------------------------- SubtaskStatistics: 1 subtaskIndex, 2 ackTimestamp, 3 stateSize, 4 subtaskStatus

    private static final class SubtaskStatsMessage {
        int subtaskIndex;
        long ackTimestamp;
        long stateSize;
        SubtaskStatus subtaskStatus;

        SubtaskStatistics build() throws WireFormatException {
            return new SubtaskStatistics(subtaskIndex, ackTimestamp, stateSize,
                    required(subtaskStatus, "a SubtaskStatistics", 4, "subtaskStatus"));
        }
    }

    private static final Schema<SubtaskStatsMessage> SUBTASK_STATS = table("SubtaskStatistics",
                    SubtaskStatsMessage.class, SubtaskStatsMessage::new)
            .readOnly("subtaskIndex", (input, m) -> m.subtaskIndex = input.readInt32())
            .readOnly("ackTimestamp", (input, m) -> m.ackTimestamp = input.readInt64())
            .readOnly("stateSize", (input, m) -> m.stateSize = input.readInt64())
            .readOnly("subtaskStatus", (input, m) -> m.subtaskStatus = LegacyLayout.subtaskStatus(input.readEnum()))
            .build();

    private static final ValueReader<SubtaskStatistics> SUBTASK_STATS_VALUE =
            group(SUBTASK_STATS, SubtaskStatsMessage::build);

    // ---------------------------------------------------------------- TaskStatistics: 1 jobVertexId, 2 subtaskStats, 3 subtaskCompleted, 4 numAcknowledgedSubtasks, 5 latestAckedSubtaskStatistics

    private static final class TaskStatsMessage {
        Long jobVertexId;
        List<SubtaskStatistics> subtaskStats;
        boolean[] subtaskCompleted;
        int numAcknowledgedSubtasks;
        SubtaskStatistics latestAcked;

        TaskStatistics build() throws WireFormatException {
            return new TaskStatistics(required(jobVertexId, "a TaskStatistics", 1, "jobVertexId"),
                    required(subtaskStats, "a TaskStatistics", 2, "subtaskStats"),
                    required(subtaskCompleted, "a TaskStatistics", 3, "subtaskCompleted"),
                    numAcknowledgedSubtasks, latestAcked);
        }
    }

    private static final ListSchema<SubtaskStatistics> SUBTASK_STATS_LIST =
            new ListSchema<>(SUBTASK_STATS_VALUE, "TaskStatistics.subtaskStats");

    private static final Schema<TaskStatsMessage> TASK_STATS = table("TaskStatistics", TaskStatsMessage.class,
                    TaskStatsMessage::new)
            .readOnly("jobVertexId", (input, m) -> m.jobVertexId = input.readInt64())
            .readOnly("subtaskStats", (input, m) -> m.subtaskStats = input.mergeObject(null, SUBTASK_STATS_LIST))
            .readOnly("subtaskCompleted", (input, m) -> m.subtaskCompleted =
                    input.mergeObject(new BoolArrayMessage(), LegacyV0Groups.BOOL_ARRAY).values)
            .readOnly("numAcknowledgedSubtasks", (input, m) -> m.numAcknowledgedSubtasks = input.readInt32())
            .readOnly("latestAckedSubtaskStatistics", (input, m) -> m.latestAcked = SUBTASK_STATS_VALUE.read(input))
            .build();

    // ---------------------------------------------------------------- CompletedCheckpoint: 1..9

    private static final MapSchema<ActionStateKey, ActionState> TASK_STATES_MAP = new MapSchema<>(KEY_VALUE,
            group(ACTION, ActionMessage::build), "CompletedCheckpoint.taskStates");

    private static final MapSchema<Long, TaskStatistics> TASK_STATISTICS_MAP = new MapSchema<>(Input::readInt64,
            group(TASK_STATS, TaskStatsMessage::build), "CompletedCheckpoint.taskStatistics");

    private static final class CheckpointMessage {
        long jobId;
        int pipelineId;
        long checkpointId;
        long triggerTimestamp;
        CheckpointType checkpointType;
        long completedTimestamp;
        Map<ActionStateKey, ActionState> taskStates;
        Map<Long, TaskStatistics> taskStatistics;
        boolean restored;

        CompletedCheckpoint build() throws WireFormatException {
            String what = "the CompletedCheckpoint";
            return new CompletedCheckpoint(jobId, pipelineId, checkpointId, triggerTimestamp,
                    required(checkpointType, what, 5, "checkpointType"), completedTimestamp,
                    required(taskStates, what, 7, "taskStates"), required(taskStatistics, what, 8, "taskStatistics"),
                    restored);
        }
    }

    private static final Schema<CheckpointMessage> CHECKPOINT = table("CompletedCheckpoint", CheckpointMessage.class,
                    CheckpointMessage::new)
            .readOnly("jobId", (input, m) -> m.jobId = input.readInt64())
            .readOnly("pipelineId", (input, m) -> m.pipelineId = input.readInt32())
            .readOnly("checkpointId", (input, m) -> m.checkpointId = input.readInt64())
            .readOnly("triggerTimestamp", (input, m) -> m.triggerTimestamp = input.readInt64())
            .readOnly("checkpointType", (input, m) -> m.checkpointType = LegacyLayout.checkpointType(input.readEnum()))
            .readOnly("completedTimestamp", (input, m) -> m.completedTimestamp = input.readInt64())
            .readOnly("taskStates", (input, m) -> m.taskStates = input.mergeObject(null, TASK_STATES_MAP))
            .readOnly("taskStatistics", (input, m) -> m.taskStatistics = input.mergeObject(null, TASK_STATISTICS_MAP))
            .readOnly("isRestored", (input, m) -> m.restored = input.readBool())
            .build();
}
