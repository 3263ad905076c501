package io.keepsake.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One pipeline's completed checkpoint as the engine holds it: identity, timing, type, the state of
 * every action and the acknowledgement statistics of every job vertex.
 *
 * <p>Invariants checked on construction: no null map keys or values, every {@code taskStates} key
 * equals its value's {@link ActionState#stateKey()}, and every {@code taskStatistics} key equals
 * its value's {@link TaskStatistics#jobVertexId()}. Both maps are copied into unmodifiable maps
 * that keep the given iteration order (a byte-exact legacy re-encode depends on it), while
 * equality is plain map equality and ignores order.
 *
 * <p>{@code restored} is a runtime-only flag (the engine sets it on a checkpoint it restored
 * from). It takes no part in {@link #equals(Object)} or {@link #hashCode()}; the legacy format
 * stores it, engine-wire-v1 does not.
 *
 * @param jobId              the job
 * @param pipelineId         the pipeline within the job
 * @param checkpointId       the checkpoint
 * @param triggerTimestamp   when the checkpoint was triggered, epoch millis
 * @param checkpointType     the kind of checkpoint; never null
 * @param completedTimestamp when the checkpoint completed, epoch millis
 * @param taskStates         the state of every action, by key; never null
 * @param taskStatistics     the statistics of every job vertex, by id; never null
 * @param restored           whether the engine restored from this checkpoint (runtime-only)
 */
public record CompletedCheckpoint(long jobId, int pipelineId, long checkpointId, long triggerTimestamp,
                                  CheckpointType checkpointType, long completedTimestamp,
                                  Map<ActionStateKey, ActionState> taskStates,
                                  Map<Long, TaskStatistics> taskStatistics,
                                  boolean restored) {

    /** Validates the components (and copies collections). */
    public CompletedCheckpoint {
        String what = "completed checkpoint " + checkpointId + " of job " + jobId + " pipeline " + pipelineId;
        Checks.notNull(checkpointType, what, "checkpointType");
        Checks.notNull(taskStates, what, "taskStates");
        Checks.notNull(taskStatistics, what, "taskStatistics");
        for (Map.Entry<ActionStateKey, ActionState> e : taskStates.entrySet()) {
            Checks.notNull(e.getKey(), what, "a taskStates key");
            Checks.notNull(e.getValue(), what, "the taskStates value of " + e.getKey().name());
            Checks.check(e.getKey().equals(e.getValue().stateKey()), what,
                    "taskStates key " + e.getKey().name() + " maps to the state of another action",
                    e.getValue().stateKey().name());
        }
        for (Map.Entry<Long, TaskStatistics> e : taskStatistics.entrySet()) {
            Checks.notNull(e.getKey(), what, "a taskStatistics key");
            Checks.notNull(e.getValue(), what, "the taskStatistics value of " + e.getKey());
            Checks.check(e.getKey().equals(e.getValue().jobVertexId()), what,
                    "taskStatistics key " + e.getKey() + " maps to the statistics of another vertex",
                    e.getValue().jobVertexId());
        }
        taskStates = Collections.unmodifiableMap(new LinkedHashMap<>(taskStates));
        taskStatistics = Collections.unmodifiableMap(new LinkedHashMap<>(taskStatistics));
    }

    /** Creates a checkpoint that was not restored from. */
    public CompletedCheckpoint(long jobId, int pipelineId, long checkpointId, long triggerTimestamp,
                               CheckpointType checkpointType, long completedTimestamp,
                               Map<ActionStateKey, ActionState> taskStates,
                               Map<Long, TaskStatistics> taskStatistics) {
        this(jobId, pipelineId, checkpointId, triggerTimestamp, checkpointType, completedTimestamp,
                taskStates, taskStatistics, false);
    }

    /** Returns this checkpoint with the runtime-only restored flag set as given. */
    public CompletedCheckpoint withRestored(boolean restored) {
        if (restored == this.restored) {
            return this;
        }
        return new CompletedCheckpoint(jobId, pipelineId, checkpointId, triggerTimestamp, checkpointType,
                completedTimestamp, taskStates, taskStatistics, restored);
    }

    /** Compares every persisted field, deeply; the runtime-only {@code restored} flag is ignored. */
    @Override
    public boolean equals(Object o) {
        return o instanceof CompletedCheckpoint other
                && jobId == other.jobId
                && pipelineId == other.pipelineId
                && checkpointId == other.checkpointId
                && triggerTimestamp == other.triggerTimestamp
                && checkpointType == other.checkpointType
                && completedTimestamp == other.completedTimestamp
                && taskStates.equals(other.taskStates)
                && taskStatistics.equals(other.taskStatistics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(jobId, pipelineId, checkpointId, triggerTimestamp, checkpointType, completedTimestamp,
                taskStates, taskStatistics);
    }
}
