package io.keepsake.wire;

import io.keepsake.storage.internal.FrozenSchema;
import io.protostuff.Schema;
import io.protostuff.Tag;

import java.util.ArrayList;
import java.util.List;

/**
 * engine-wire-v1 transfer object for one job vertex's acknowledgement statistics
 * ({@code TaskStatistics}).
 *
 * <p>Empty slots are kept in place by position, as in {@link WireActionState}: {@link #subtaskCount}
 * fixes the number of slots and each present entry carries its {@link WireSubtaskStatistics#slot}.
 *
 * <pre>
 * tag  field                    encoding
 *   1  jobVertexId              int64
 *   2  subtaskCount             int32: the number of subtask slots
 *   3  subtaskStats             repeated group WireSubtaskStatistics: the present slots, ascending by slot
 *   4  subtaskCompleted         repeated bool: exactly subtaskCount entries, one per slot in order
 *   5  numAcknowledgedSubtasks  int32
 *   6  latestAcked              group WireSubtaskStatistics with slot -1; absent when there is none
 * </pre>
 *
 * <p>Tags are frozen: never renumbered and never reused. A field that is removed keeps its tag
 * reserved here as retired. Retired tags: none.
 *
 * <p>A plain mutable transfer object, not thread-safe, and not API: only {@link CheckpointWireCodec}
 * (and tests in this package) see it. {@link #SCHEMA} is the pinned layout.
 */
final class WireTaskStatistics {

    @Tag(1)
    long jobVertexId;
    @Tag(2)
    int subtaskCount;
    @Tag(3)
    List<WireSubtaskStatistics> subtaskStats = new ArrayList<>();
    @Tag(4)
    List<Boolean> subtaskCompleted = new ArrayList<>();
    @Tag(5)
    int numAcknowledgedSubtasks;
    @Tag(6)
    WireSubtaskStatistics latestAcked;

    /** The hand-written schema that reads and writes this layout; unknown tags are skipped. */
    static final Schema<WireTaskStatistics> SCHEMA = WireSchema.table(WireTaskStatistics.class, WireTaskStatistics::new)
            .int64("jobVertexId", m -> m.jobVertexId, (m, v) -> m.jobVertexId = v)
            .int32("subtaskCount", m -> m.subtaskCount, (m, v) -> m.subtaskCount = v)
            .repeated("subtaskStats", FrozenSchema.group(WireSubtaskStatistics.SCHEMA), m -> m.subtaskStats)
            .repeated("subtaskCompleted", FrozenSchema.BOOL, m -> m.subtaskCompleted)
            .int32("numAcknowledgedSubtasks", m -> m.numAcknowledgedSubtasks, (m, v) -> m.numAcknowledgedSubtasks = v)
            .optional("latestAcked", FrozenSchema.group(WireSubtaskStatistics.SCHEMA), m -> m.latestAcked,
                    (m, v) -> m.latestAcked = v)
            .build();
}
