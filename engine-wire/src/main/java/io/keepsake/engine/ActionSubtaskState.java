package io.keepsake.engine;

import java.util.List;
import java.util.Objects;

/**
 * The state one subtask (or the action's coordinator) reported for a checkpoint: a list of opaque
 * byte arrays, one per state object the subtask snapshotted.
 *
 * <p>The list is copied on construction and kept unmodifiable; it may hold null elements, as
 * legacy data does. The byte arrays themselves are not copied: once handed to this value they
 * belong to it and must not be modified. Equality compares the arrays by content.
 *
 * @param stateKey the action this state belongs to; never null
 * @param index    the subtask index, or {@code -1} for the action's coordinator
 * @param state    the state objects in order; never null, elements may be null
 */
public record ActionSubtaskState(ActionStateKey stateKey, int index, List<byte[]> state) {

    /** The index a coordinator's state carries. */
    public static final int COORDINATOR_INDEX = -1;

    /** Validates the components (and copies collections). */
    public ActionSubtaskState {
        Checks.notNull(stateKey, "action subtask state", "stateKey");
        Checks.notNull(state, "action subtask state", "state");
        Checks.check(index >= COORDINATOR_INDEX, "action subtask state",
                "index must be -1 (coordinator) or a subtask index", index);
        state = ByteLists.copy(state);
    }

    /** Returns whether this is a coordinator's state rather than a subtask's. */
    public boolean isCoordinator() {
        return index == COORDINATOR_INDEX;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ActionSubtaskState other
                && index == other.index
                && stateKey.equals(other.stateKey)
                && ByteLists.deepEquals(state, other.state);
    }

    @Override
    public int hashCode() {
        return Objects.hash(stateKey, index) * 31 + ByteLists.deepHashCode(state);
    }

    @Override
    public String toString() {
        return "ActionSubtaskState[stateKey=" + stateKey.name() + ", index=" + index
                + ", state=" + ByteLists.describe(state) + "]";
    }
}
