package io.keepsake.wire;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.Tag;

import java.io.IOException;

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
    static final Schema<WireSubtaskStatistics> SCHEMA = new WireSchema<>(WireSubtaskStatistics.class,
            WireSubtaskStatistics::new, "slot", "subtaskIndex", "ackTimestamp", "stateSize", "status") {
        @Override
        public void writeTo(Output output, WireSubtaskStatistics m) throws IOException {
            output.writeInt32(1, m.slot, false);
            output.writeInt32(2, m.subtaskIndex, false);
            output.writeInt64(3, m.ackTimestamp, false);
            output.writeInt64(4, m.stateSize, false);
            if (m.status != null) {
                output.writeString(5, m.status, false);
            }
        }

        @Override
        public void mergeFrom(Input input, WireSubtaskStatistics m) throws IOException {
            for (int n = input.readFieldNumber(this); n != 0; n = input.readFieldNumber(this)) {
                switch (n) {
                    case 1 -> m.slot = input.readInt32();
                    case 2 -> m.subtaskIndex = input.readInt32();
                    case 3 -> m.ackTimestamp = input.readInt64();
                    case 4 -> m.stateSize = input.readInt64();
                    case 5 -> m.status = input.readString();
                    default -> input.handleUnknownField(n, this);
                }
            }
        }
    };
}
