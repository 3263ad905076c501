package io.keepsake.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Everything one action reported for a checkpoint: one slot per subtask (null where the subtask
 * reported nothing) and, optionally, its coordinator's state.
 *
 * <p>Invariants checked on construction: the slot list has exactly {@code parallelism} entries,
 * and every subtask state and the coordinator state belong to this action's key. The slot list is
 * copied and kept unmodifiable.
 *
 * @param stateKey         the action; never null
 * @param subtaskStates    one slot per subtask, null for an empty slot; never null
 * @param coordinatorState the coordinator's state, or null when there is none
 * @param parallelism      the number of subtasks; never negative
 */
public record ActionState(ActionStateKey stateKey, List<ActionSubtaskState> subtaskStates,
                          ActionSubtaskState coordinatorState, int parallelism) {

    /** Validates the components (and copies collections). */
    public ActionState {
        Checks.notNull(stateKey, "action state", "stateKey");
        Checks.notNull(subtaskStates, "action state", "subtaskStates");
        Checks.check(parallelism >= 0, "action state " + stateKey.name(), "parallelism is negative", parallelism);
        Checks.check(subtaskStates.size() == parallelism, "action state " + stateKey.name(),
                "there must be one subtask slot per subtask, parallelism is " + parallelism
                        + " but the slots are", subtaskStates.size());
        for (ActionSubtaskState subtask : subtaskStates) {
            if (subtask != null) {
                Checks.check(subtask.stateKey().equals(stateKey), "action state " + stateKey.name(),
                        "a subtask state belongs to another action", subtask.stateKey().name());
            }
        }
        if (coordinatorState != null) {
            Checks.check(coordinatorState.stateKey().equals(stateKey), "action state " + stateKey.name(),
                    "the coordinator state belongs to another action", coordinatorState.stateKey().name());
        }
        subtaskStates = Collections.unmodifiableList(new ArrayList<>(subtaskStates));
    }

    /** Returns a state with {@code parallelism} empty slots and no coordinator state. */
    public static ActionState empty(ActionStateKey stateKey, int parallelism) {
        Checks.check(parallelism >= 0, "action state", "parallelism is negative", parallelism);
        return new ActionState(stateKey, Collections.nCopies(parallelism, null), null, parallelism);
    }
}
