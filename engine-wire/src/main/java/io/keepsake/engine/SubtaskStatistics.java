package io.keepsake.engine;

/**
 * One subtask's acknowledgement of a checkpoint.
 *
 * @param subtaskIndex  the subtask that acknowledged
 * @param ackTimestamp  when it acknowledged, epoch millis
 * @param stateSize     the size of the state it reported, in bytes
 * @param subtaskStatus what it was doing; never null
 */
public record SubtaskStatistics(int subtaskIndex, long ackTimestamp, long stateSize, SubtaskStatus subtaskStatus) {

    /** Validates the components (and copies collections). */
    public SubtaskStatistics {
        Checks.notNull(subtaskStatus, "subtask statistics", "subtaskStatus");
    }
}
