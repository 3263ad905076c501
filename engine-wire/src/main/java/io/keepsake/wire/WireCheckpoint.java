package io.keepsake.wire;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.Tag;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * engine-wire-v1 transfer object for one pipeline's completed checkpoint: the top-level message of
 * an engine-wire-v1 payload. Protostuff format (nested messages as groups), no header: the
 * savepoint's metadata names the payload format.
 *
 * <pre>
 * tag  field               encoding
 *   1  jobId               int64
 *   2  pipelineId          int32
 *   3  checkpointId        int64
 *   4  triggerTimestamp    int64
 *   5  checkpointType      string: the CheckpointType stable name ("checkpoint", "savepoint", ...)
 *   6  completedTimestamp  int64
 *   7  actionStates        repeated group WireActionState, sorted by name
 *   8  taskStatistics      repeated group WireTaskStatistics, sorted by jobVertexId
 *   9  complete            bool: always true and always written last; a payload without it was cut
 *                          short at a field boundary (a writer adding fields writes them before it)
 * </pre>
 *
 * <p>Not stored: the runtime-only {@code restored} flag. Tags are frozen: never renumbered and
 * never reused. A field that is removed keeps its tag reserved here as retired. Retired tags: none.
 *
 * <p>A plain mutable transfer object, not thread-safe, and not API: only {@link CheckpointWireCodec}
 * (and tests in this package) see it. {@link #SCHEMA} is the pinned layout.
 */
final class WireCheckpoint {

    @Tag(1)
    long jobId;
    @Tag(2)
    int pipelineId;
    @Tag(3)
    long checkpointId;
    @Tag(4)
    long triggerTimestamp;
    @Tag(5)
    String checkpointType;
    @Tag(6)
    long completedTimestamp;
    @Tag(7)
    List<WireActionState> actionStates = new ArrayList<>();
    @Tag(8)
    List<WireTaskStatistics> taskStatistics = new ArrayList<>();
    @Tag(9)
    boolean complete;

    /** The hand-written schema that reads and writes this layout; unknown tags are skipped. */
    static final Schema<WireCheckpoint> SCHEMA = new WireSchema<>(WireCheckpoint.class, WireCheckpoint::new,
            "jobId", "pipelineId", "checkpointId", "triggerTimestamp", "checkpointType", "completedTimestamp",
            "actionStates", "taskStatistics", "complete") {
        @Override
        public void writeTo(Output output, WireCheckpoint m) throws IOException {
            output.writeInt64(1, m.jobId, false);
            output.writeInt32(2, m.pipelineId, false);
            output.writeInt64(3, m.checkpointId, false);
            output.writeInt64(4, m.triggerTimestamp, false);
            if (m.checkpointType != null) {
                output.writeString(5, m.checkpointType, false);
            }
            output.writeInt64(6, m.completedTimestamp, false);
            if (m.actionStates != null) {
                for (WireActionState action : m.actionStates) {
                    output.writeObject(7, action, WireActionState.SCHEMA, true);
                }
            }
            if (m.taskStatistics != null) {
                for (WireTaskStatistics stats : m.taskStatistics) {
                    output.writeObject(8, stats, WireTaskStatistics.SCHEMA, true);
                }
            }
            output.writeBool(9, m.complete, false);
        }

        @Override
        public void mergeFrom(Input input, WireCheckpoint m) throws IOException {
            for (int n = input.readFieldNumber(this); n != 0; n = input.readFieldNumber(this)) {
                switch (n) {
                    case 1 -> m.jobId = input.readInt64();
                    case 2 -> m.pipelineId = input.readInt32();
                    case 3 -> m.checkpointId = input.readInt64();
                    case 4 -> m.triggerTimestamp = input.readInt64();
                    case 5 -> m.checkpointType = input.readString();
                    case 6 -> m.completedTimestamp = input.readInt64();
                    case 7 -> m.actionStates.add(input.mergeObject(null, WireActionState.SCHEMA));
                    case 8 -> m.taskStatistics.add(input.mergeObject(null, WireTaskStatistics.SCHEMA));
                    case 9 -> m.complete = input.readBool();
                    default -> input.handleUnknownField(n, this);
                }
            }
        }
    };
}
