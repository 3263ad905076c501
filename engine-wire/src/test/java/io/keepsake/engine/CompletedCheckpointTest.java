package io.keepsake.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CompletedCheckpointTest {

    private static final ActionStateKey A = ActionStateKey.of("a");
    private static final ActionStateKey B = ActionStateKey.of("b");

    private static ActionState action(ActionStateKey key, byte... state) {
        return new ActionState(key, Arrays.asList(new ActionSubtaskState(key, 0, List.of(state)), null),
                new ActionSubtaskState(key, -1, Arrays.asList(null, new byte[0])), 2);
    }

    private static TaskStatistics stats(long vertex) {
        SubtaskStatistics s = new SubtaskStatistics(0, 5, 6, SubtaskStatus.RUNNING);
        return new TaskStatistics(vertex, Arrays.asList(s, null), new boolean[] {true, false}, 1, s);
    }

    private static CompletedCheckpoint checkpoint(Map<ActionStateKey, ActionState> states, boolean restored) {
        return new CompletedCheckpoint(1, 2, 3, 4, CheckpointType.CHECKPOINT_TYPE, 5, states,
                Map.of(7L, stats(7)), restored);
    }

    @Test
    void equalityComparesByteArraysByContent() {
        CompletedCheckpoint one = checkpoint(Map.of(A, action(A, (byte) 1, (byte) 2)), false);
        CompletedCheckpoint same = checkpoint(Map.of(A, action(A, (byte) 1, (byte) 2)), false);
        CompletedCheckpoint other = checkpoint(Map.of(A, action(A, (byte) 1, (byte) 3)), false);

        assertThat(one).isEqualTo(same).hasSameHashCodeAs(same).isNotEqualTo(other);
    }

    @Test
    void restoredFlagTakesNoPartInEquality() {
        CompletedCheckpoint fresh = checkpoint(Map.of(A, action(A)), false);
        CompletedCheckpoint restored = fresh.withRestored(true);

        assertThat(restored.restored()).isTrue();
        assertThat(restored).isEqualTo(fresh).hasSameHashCodeAs(fresh);
        assertThat(fresh.withRestored(false)).isSameAs(fresh);
    }

    @Test
    void mapsKeepTheirOrderButCompareAsMaps() {
        Map<ActionStateKey, ActionState> ab = new LinkedHashMap<>();
        ab.put(A, action(A));
        ab.put(B, action(B));
        Map<ActionStateKey, ActionState> ba = new LinkedHashMap<>();
        ba.put(B, action(B));
        ba.put(A, action(A));

        assertThat(checkpoint(ab, false).taskStates().keySet()).containsExactly(A, B);
        assertThat(checkpoint(ba, false).taskStates().keySet()).containsExactly(B, A);
        assertThat(checkpoint(ab, false)).isEqualTo(checkpoint(ba, false));
    }

    @Test
    void copiesTheMapsItIsGiven() {
        Map<ActionStateKey, ActionState> states = new LinkedHashMap<>();
        states.put(A, action(A));
        CompletedCheckpoint c = checkpoint(states, false);
        states.put(B, action(B));

        assertThat(c.taskStates()).containsOnlyKeys(A);
        assertThatThrownBy(() -> c.taskStates().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void rejectsATaskStatesKeyThatNamesAnotherAction() {
        assertThatThrownBy(() -> checkpoint(Map.of(A, action(B)), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot create completed checkpoint 3 of job 1 pipeline 2: taskStates key a maps to the"
                        + " state of another action (b)");
    }

    @Test
    void rejectsATaskStatisticsKeyThatNamesAnotherVertex() {
        assertThatThrownBy(() -> new CompletedCheckpoint(1, 2, 3, 4, CheckpointType.SAVEPOINT_TYPE, 5, Map.of(),
                Map.of(8L, stats(9))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("taskStatistics key 8 maps to the statistics of another vertex (9)");
    }

    @Test
    void rejectsAMissingCheckpointType() {
        assertThatThrownBy(() -> new CompletedCheckpoint(1, 2, 3, 4, null, 5, Map.of(), Map.of()))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("checkpointType is null");
    }

    @Test
    void actionStateNeedsOneSlotPerSubtask() {
        assertThatThrownBy(() -> new ActionState(A, Arrays.asList(null, null), null, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot create action state a: there must be one subtask slot per subtask, parallelism"
                        + " is 3 but the slots are (2)");
    }

    @Test
    void actionStateRejectsASubtaskStateOfAnotherAction() {
        assertThatThrownBy(() -> new ActionState(A, List.of(new ActionSubtaskState(B, 0, List.of())), null, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a subtask state belongs to another action (b)");
    }

    @Test
    void emptyActionStateHasOnlyEmptySlots() {
        ActionState empty = ActionState.empty(A, 3);

        assertThat(empty.subtaskStates()).hasSize(3).containsOnlyNulls();
        assertThat(empty.coordinatorState()).isNull();
    }

    @Test
    void subtaskStateKeepsNullElementsAndCopiesTheList() {
        List<byte[]> state = new ArrayList<>(Arrays.asList(new byte[] {1}, null));
        ActionSubtaskState s = new ActionSubtaskState(A, 0, state);
        state.add(new byte[] {2});

        assertThat(s.state()).hasSize(2).containsNull();
        assertThat(s.toString()).contains("[1 bytes, null]");
    }

    @Test
    void subtaskStateRejectsAnIndexBelowTheCoordinators() {
        assertThatThrownBy(() -> new ActionSubtaskState(A, -2, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot create action subtask state: index must be -1 (coordinator) or a subtask index (-2)");
    }

    @Test
    void taskStatisticsCopiesItsFlagsBothWays() {
        boolean[] flags = {true, false};
        TaskStatistics stats = new TaskStatistics(1L, Arrays.asList(null, null), flags, 0, null);
        flags[1] = true;
        stats.subtaskCompleted()[0] = false;

        assertThat(stats.subtaskCompleted()).containsExactly(true, false);
        assertThat(stats).isEqualTo(new TaskStatistics(1L, Arrays.asList(null, null), new boolean[] {true, false}, 0,
                null));
    }

    @Test
    void taskStatisticsNeedsOneFlagPerSlot() {
        assertThatThrownBy(() -> new TaskStatistics(1L, Arrays.asList(null, null), new boolean[1], 0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("subtaskStats has 2 slots but subtaskCompleted has (1)");
    }

    @Test
    void actionStateKeyRejectsAnUnpairedSurrogateButTakesPairs() {
        assertThat(ActionStateKey.of("rocket 🚀").name()).isEqualTo("rocket 🚀");
        assertThatThrownBy(() -> ActionStateKey.of("bad \uD83D"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate at index 4");
    }

    @Test
    void checkpointTypeResolvesEveryStableNameAndNothingElse() {
        for (CheckpointType type : CheckpointType.values()) {
            assertThat(CheckpointType.fromName(type.typeName())).contains(type);
        }
        assertThat(CheckpointType.names()).containsExactly("checkpoint", "schema-change-before-point",
                "schema-change-after-point", "savepoint", "completed-point");
        assertThat(CheckpointType.fromName("SAVEPOINT_TYPE")).isEmpty();
        assertThat(CheckpointType.fromName(null)).isEmpty();
    }

    @Test
    void subtaskStatusResolvesConstantNames() {
        assertThat(SubtaskStatus.fromName("AUTO_PREPARE_CLOSE")).contains(SubtaskStatus.AUTO_PREPARE_CLOSE);
        assertThat(SubtaskStatus.fromName("running")).isEmpty();
        assertThat(SubtaskStatus.names()).containsExactly("RUNNING", "SAVEPOINT_PREPARE_CLOSE", "AUTO_PREPARE_CLOSE");
    }
}
