package io.keepsake.wire;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.Tag;

import java.io.IOException;
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
    static final Schema<WireTaskStatistics> SCHEMA = new WireSchema<>(WireTaskStatistics.class, WireTaskStatistics::new,
            "jobVertexId", "subtaskCount", "subtaskStats", "subtaskCompleted", "numAcknowledgedSubtasks",
            "latestAcked") {
        @Override
        public void writeTo(Output output, WireTaskStatistics m) throws IOException {
            output.writeInt64(1, m.jobVertexId, false);
            output.writeInt32(2, m.subtaskCount, false);
            if (m.subtaskStats != null) {
                for (WireSubtaskStatistics stats : m.subtaskStats) {
                    output.writeObject(3, stats, WireSubtaskStatistics.SCHEMA, true);
                }
            }
            if (m.subtaskCompleted != null) {
                for (Boolean completed : m.subtaskCompleted) {
                    output.writeBool(4, completed, true);
                }
            }
            output.writeInt32(5, m.numAcknowledgedSubtasks, false);
            if (m.latestAcked != null) {
                output.writeObject(6, m.latestAcked, WireSubtaskStatistics.SCHEMA, false);
            }
        }

        @Override
        public void mergeFrom(Input input, WireTaskStatistics m) throws IOException {
            for (int n = input.readFieldNumber(this); n != 0; n = input.readFieldNumber(this)) {
                switch (n) {
                    case 1 -> m.jobVertexId = input.readInt64();
                    case 2 -> m.subtaskCount = input.readInt32();
                    case 3 -> m.subtaskStats.add(input.mergeObject(null, WireSubtaskStatistics.SCHEMA));
                    case 4 -> m.subtaskCompleted.add(input.readBool());
                    case 5 -> m.numAcknowledgedSubtasks = input.readInt32();
                    case 6 -> m.latestAcked = input.mergeObject(null, WireSubtaskStatistics.SCHEMA);
                    default -> input.handleUnknownField(n, this);
                }
            }
        }
    };
}
