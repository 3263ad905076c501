package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;
import io.protostuff.runtime.RuntimeEnv;
import io.protostuff.runtime.RuntimeSchema;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the hand-pinned legacy layout against protostuff 1.8.0 itself: mirror classes declared
 * with the engine's field order are written by {@code RuntimeSchema} with
 * {@code preserve_null_elements=true}, exactly as SeaTunnel 2.3.x configures it, and the bytes must
 * equal what {@link LegacyCheckpointCodec} writes; the codec must also read what protostuff wrote.
 * The mirror classes exist only here, as the oracle; the codec never uses reflection.
 */
class LegacyRuntimeSchemaOracleTest {

    static {
        // Must precede the first use of protostuff's runtime in this JVM; checked below.
        System.setProperty("protostuff.runtime.preserve_null_elements", "true");
    }

    @Provide
    Arbitrary<CompletedCheckpoint> checkpoints() {
        return CheckpointArbitraries.checkpoints();
    }

    @Example
    void oracleRunsWithNullElementsPreserved() {
        assertThat(RuntimeEnv.PRESERVE_NULL_ELEMENTS)
                .as("protostuff.runtime.preserve_null_elements must be true before RuntimeEnv loads")
                .isTrue();
    }

    @Property
    void codecWritesTheBytesProtostuffRuntimeWrites(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        byte[] expected = ProtostuffIOUtil.toByteArray(Mirror.of(checkpoint), Mirror.SCHEMA, LinkedBuffer.allocate());

        assertThat(LegacyCheckpointCodec.encodeCheckpoint(checkpoint)).isEqualTo(expected);
    }

    @Property
    void codecReadsWhatProtostuffRuntimeWrote(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        byte[] written = ProtostuffIOUtil.toByteArray(Mirror.of(checkpoint), Mirror.SCHEMA, LinkedBuffer.allocate());

        CompletedCheckpoint decoded = LegacyCheckpointCodec.decodeCheckpoint(written, "runtime-schema");

        assertThat(decoded).isEqualTo(checkpoint);
        assertThat(decoded.restored()).isEqualTo(checkpoint.restored());
    }

    @Property
    void protostuffRuntimeReadsWhatTheCodecWrote(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        Mirror.Checkpoint read = Mirror.SCHEMA.newMessage();
        ProtostuffIOUtil.mergeFrom(LegacyCheckpointCodec.encodeCheckpoint(checkpoint), read, Mirror.SCHEMA);

        assertThat(Mirror.toModel(read)).isEqualTo(checkpoint);
    }

    /** Classes shaped like the engine's, field for field in declaration order (see the fixtures README). */
    static final class Mirror {
        static final Schema<Checkpoint> SCHEMA = RuntimeSchema.getSchema(Checkpoint.class);

        enum Type { CHECKPOINT_TYPE, SCHEMA_CHANGE_BEFORE_POINT_TYPE, SCHEMA_CHANGE_AFTER_POINT_TYPE, SAVEPOINT_TYPE,
            COMPLETED_POINT_TYPE }

        enum Status { RUNNING, SAVEPOINT_PREPARE_CLOSE, AUTO_PREPARE_CLOSE }

        static final class Checkpoint {
            long jobId;
            int pipelineId;
            long checkpointId;
            long triggerTimestamp;
            Type checkpointType;
            long completedTimestamp;
            Map<Key, Action> taskStates;
            Map<Long, Stats> taskStatistics;
            volatile boolean isRestored;
        }

        static final class Key {
            String name;

            @Override
            public boolean equals(Object o) {
                return o instanceof Key k && Objects.equals(name, k.name);
            }

            @Override
            public int hashCode() {
                return Objects.hashCode(name);
            }
        }

        static final class Action {
            Key stateKey;
            List<Subtask> subtaskStates;
            Subtask coordinatorState;
            int parallelism;
        }

        static final class Subtask {
            Key stateKey;
            int index;
            List<byte[]> state;
        }

        static final class Stats {
            Long jobVertexId;
            List<SubtaskStats> subtaskStats;
            boolean[] subtaskCompleted;
            int numAcknowledgedSubtasks;
            SubtaskStats latestAckedSubtaskStatistics;
        }

        static final class SubtaskStats {
            int subtaskIndex;
            long ackTimestamp;
            long stateSize;
            Status subtaskStatus;
        }

        static Checkpoint of(CompletedCheckpoint c) {
            Checkpoint m = new Checkpoint();
            m.jobId = c.jobId();
            m.pipelineId = c.pipelineId();
            m.checkpointId = c.checkpointId();
            m.triggerTimestamp = c.triggerTimestamp();
            m.checkpointType = Type.valueOf(c.checkpointType().name());
            m.completedTimestamp = c.completedTimestamp();
            m.taskStates = new LinkedHashMap<>();
            c.taskStates().forEach((k, v) -> m.taskStates.put(key(k), action(v)));
            m.taskStatistics = new LinkedHashMap<>();
            c.taskStatistics().forEach((k, v) -> m.taskStatistics.put(k, stats(v)));
            m.isRestored = c.restored();
            return m;
        }

        private static Key key(ActionStateKey k) {
            Key m = new Key();
            m.name = k.name();
            return m;
        }

        private static Action action(ActionState a) {
            Action m = new Action();
            m.stateKey = key(a.stateKey());
            m.subtaskStates = new ArrayList<>();
            a.subtaskStates().forEach(s -> m.subtaskStates.add(s == null ? null : subtask(s)));
            m.coordinatorState = a.coordinatorState() == null ? null : subtask(a.coordinatorState());
            m.parallelism = a.parallelism();
            return m;
        }

        private static Subtask subtask(ActionSubtaskState s) {
            Subtask m = new Subtask();
            m.stateKey = key(s.stateKey());
            m.index = s.index();
            m.state = new ArrayList<>(s.state());
            return m;
        }

        private static Stats stats(TaskStatistics t) {
            Stats m = new Stats();
            m.jobVertexId = t.jobVertexId();
            m.subtaskStats = new ArrayList<>();
            t.subtaskStats().forEach(s -> m.subtaskStats.add(s == null ? null : subtaskStats(s)));
            m.subtaskCompleted = t.subtaskCompleted();
            m.numAcknowledgedSubtasks = t.numAcknowledgedSubtasks();
            m.latestAckedSubtaskStatistics =
                    t.latestAckedSubtaskStatistics() == null ? null : subtaskStats(t.latestAckedSubtaskStatistics());
            return m;
        }

        private static SubtaskStats subtaskStats(SubtaskStatistics s) {
            SubtaskStats m = new SubtaskStats();
            m.subtaskIndex = s.subtaskIndex();
            m.ackTimestamp = s.ackTimestamp();
            m.stateSize = s.stateSize();
            m.subtaskStatus = Status.valueOf(s.subtaskStatus().name());
            return m;
        }

        static CompletedCheckpoint toModel(Checkpoint m) {
            Map<ActionStateKey, ActionState> taskStates = new LinkedHashMap<>();
            m.taskStates.forEach((k, v) -> taskStates.put(new ActionStateKey(k.name), toModel(v)));
            Map<Long, TaskStatistics> taskStatistics = new LinkedHashMap<>();
            m.taskStatistics.forEach((k, v) -> taskStatistics.put(k, toModel(v)));
            return new CompletedCheckpoint(m.jobId, m.pipelineId, m.checkpointId, m.triggerTimestamp,
                    CheckpointType.valueOf(m.checkpointType.name()), m.completedTimestamp, taskStates, taskStatistics,
                    m.isRestored);
        }

        private static ActionState toModel(Action m) {
            List<ActionSubtaskState> slots = new ArrayList<>();
            m.subtaskStates.forEach(s -> slots.add(s == null ? null : toModel(s)));
            return new ActionState(new ActionStateKey(m.stateKey.name), slots,
                    m.coordinatorState == null ? null : toModel(m.coordinatorState), m.parallelism);
        }

        private static ActionSubtaskState toModel(Subtask m) {
            return new ActionSubtaskState(new ActionStateKey(m.stateKey.name), m.index, m.state);
        }

        private static TaskStatistics toModel(Stats m) {
            List<SubtaskStatistics> slots = new ArrayList<>();
            m.subtaskStats.forEach(s -> slots.add(s == null ? null : toModel(s)));
            return new TaskStatistics(m.jobVertexId, slots, m.subtaskCompleted, m.numAcknowledgedSubtasks,
                    m.latestAckedSubtaskStatistics == null ? null : toModel(m.latestAckedSubtaskStatistics));
        }

        private static SubtaskStatistics toModel(SubtaskStats m) {
            return new SubtaskStatistics(m.subtaskIndex, m.ackTimestamp, m.stateSize,
                    SubtaskStatus.valueOf(m.subtaskStatus.name()));
        }
    }
}
