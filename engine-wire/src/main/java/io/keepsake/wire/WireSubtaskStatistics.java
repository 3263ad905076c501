package io.keepsake.wire;

import io.protostuff.Schema;
import io.protostuff.Tag;


/**
 * engine-wire-v1 transfer object for one subtask's acknowledgement ({@code SubtaskStatistics}),
 * either in a slot of {@link WireTaskStatistics#subtaskStats} or as its latest acknowledgement.
 *
 * <pre>
 * tag  field          encoding
 *   1  slot           int32: position in the owner's subtaskStats list; -1 for latestAcked
 *   2  subtaskIndex   int32
 *   3  ackTimestamp   int64
 *   4  stateSize      int64
 *   5  status         string: the SubtaskStatus constant name ("RUNNING", ...)
 * </pre>
 *
 * <p>Tags are frozen: never renumbered and never reused. A field that is removed keeps its tag
 * reserved here as retired. Retired tags: none.
 *
 * <p>A plain mutable transfer object, not thread-safe, and not API: only {@link CheckpointWireCodec}
 * (and tests in this package) see it. {@link #SCHEMA} is the pinned layout.
 */
final class WireSubtaskStatistics {

    /** The slot a latest acknowledgement carries. */
    static final int LATEST_ACKED_SLOT = -1;

    @Tag(1)
    int slot;
    @Tag(2)
    int subtaskIndex;
    @Tag(3)
    long ackTimestamp;
    @Tag(4)
    long stateSize;
    @Tag(5)
    String status;

    /** The hand-written schema that reads and writes this layout; unknown tags are skipped. */
    static final Schema<WireSubtaskStatistics> SCHEMA = WireSchema.table(WireSubtaskStatistics.class,
                    WireSubtaskStatistics::new)
            .int32("slot", m -> m.slot, (m, v) -> m.slot = v)
            .int32("subtaskIndex", m -> m.subtaskIndex, (m, v) -> m.subtaskIndex = v)
            .int64("ackTimestamp", m -> m.ackTimestamp, (m, v) -> m.ackTimestamp = v)
            .int64("stateSize", m -> m.stateSize, (m, v) -> m.stateSize = v)
            .string("status", m -> m.status, (m, v) -> m.status = v)
            .build();
}
