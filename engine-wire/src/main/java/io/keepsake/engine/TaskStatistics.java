package io.keepsake.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Acknowledgement statistics of one job vertex for a checkpoint: one slot per subtask (null where
 * the subtask has not acknowledged), a completed flag per subtask, and the latest acknowledgement.
 *
 * <p>Invariant checked on construction: {@code subtaskStats} and {@code subtaskCompleted} have the
 * same length. The list and the array are copied; {@link #subtaskCompleted()} returns a copy.
 *
 * @param jobVertexId                  the job vertex; never null (boxed to mirror the engine's map key)
 * @param subtaskStats                 one slot per subtask, null where none acknowledged; never null
 * @param subtaskCompleted             one flag per subtask; never null
 * @param numAcknowledgedSubtasks      how many subtasks acknowledged; never negative
 * @param latestAckedSubtaskStatistics the latest acknowledgement, or null
 */
public record TaskStatistics(Long jobVertexId, List<SubtaskStatistics> subtaskStats, boolean[] subtaskCompleted,
                             int numAcknowledgedSubtasks, SubtaskStatistics latestAckedSubtaskStatistics) {

    /** Validates the components (and copies collections). */
    public TaskStatistics {
        Checks.notNull(jobVertexId, "task statistics", "jobVertexId");
        Checks.notNull(subtaskStats, "task statistics " + jobVertexId, "subtaskStats");
        Checks.notNull(subtaskCompleted, "task statistics " + jobVertexId, "subtaskCompleted");
        Checks.check(subtaskStats.size() == subtaskCompleted.length, "task statistics " + jobVertexId,
                "subtaskStats has " + subtaskStats.size() + " slots but subtaskCompleted has",
                subtaskCompleted.length);
        Checks.check(numAcknowledgedSubtasks >= 0, "task statistics " + jobVertexId,
                "numAcknowledgedSubtasks is negative", numAcknowledgedSubtasks);
        subtaskStats = Collections.unmodifiableList(new ArrayList<>(subtaskStats));
        subtaskCompleted = subtaskCompleted.clone();
    }

    /** Returns a copy of the per-subtask completed flags. */
    @Override
    public boolean[] subtaskCompleted() {
        return subtaskCompleted.clone();
    }

    /** Returns the number of subtask slots. */
    public int parallelism() {
        return subtaskCompleted.length;
    }

    /** Returns whether the given subtask completed, without copying the flags. */
    public boolean isSubtaskCompleted(int subtask) {
        return subtaskCompleted[subtask];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskStatistics other
                && jobVertexId.equals(other.jobVertexId)
                && numAcknowledgedSubtasks == other.numAcknowledgedSubtasks
                && subtaskStats.equals(other.subtaskStats)
                && Arrays.equals(subtaskCompleted, other.subtaskCompleted)
                && Objects.equals(latestAckedSubtaskStatistics, other.latestAckedSubtaskStatistics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(jobVertexId, subtaskStats, numAcknowledgedSubtasks, latestAckedSubtaskStatistics) * 31
                + Arrays.hashCode(subtaskCompleted);
    }

    @Override
    public String toString() {
        return "TaskStatistics[jobVertexId=" + jobVertexId + ", subtaskStats=" + subtaskStats
                + ", subtaskCompleted=" + Arrays.toString(subtaskCompleted)
                + ", numAcknowledgedSubtasks=" + numAcknowledgedSubtasks
                + ", latestAckedSubtaskStatistics=" + latestAckedSubtaskStatistics + "]";
    }
}
