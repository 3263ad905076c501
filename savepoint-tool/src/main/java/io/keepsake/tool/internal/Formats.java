package io.keepsake.tool.internal;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointMeta;

import java.time.Instant;
import java.util.List;

/** Formatting shared by the commands: ISO-8601 times, sizes, pipelines. Stateless. */
public final class Formats {

    private Formats() {
    }

    /** Epoch millis as an ISO-8601 instant in UTC, such as {@code 2024-05-01T10:15:30.123Z}. */
    public static String time(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }

    /** The pipeline ids of a savepoint's manifest, in manifest order. */
    public static List<Integer> pipelines(SavepointMeta meta) {
        return meta.manifest().stream().map(ManifestEntry::pipelineId).toList();
    }

    /** The sum of the manifest's payload lengths. */
    public static long totalBytes(SavepointMeta meta) {
        return meta.manifest().stream().mapToLong(ManifestEntry::length).sum();
    }

    /** The number of subtask slots of an action that hold a state. */
    public static int nonEmptySlots(ActionState action) {
        int n = 0;
        for (ActionSubtaskState s : action.subtaskStates()) {
            if (s != null) {
                n++;
            }
        }
        return n;
    }

    /** The bytes of every state object of an action, its coordinator's included. */
    public static long stateBytes(ActionState action) {
        long total = 0;
        for (ActionSubtaskState s : action.subtaskStates()) {
            total += stateBytes(s);
        }
        return total + stateBytes(action.coordinatorState());
    }

    private static long stateBytes(ActionSubtaskState s) {
        if (s == null) {
            return 0;
        }
        long total = 0;
        for (byte[] b : s.state()) {
            total += b == null ? 0 : b.length;
        }
        return total;
    }
}
