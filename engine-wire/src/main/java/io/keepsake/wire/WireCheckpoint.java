package io.keepsake.wire;

import io.keepsake.storage.internal.FrozenSchema;
import io.protostuff.Schema;
import io.protostuff.Tag;

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
    static final Schema<WireCheckpoint> SCHEMA = WireSchema.table(WireCheckpoint.class, WireCheckpoint::new)
            .int64("jobId", m -> m.jobId, (m, v) -> m.jobId = v)
            .int32("pipelineId", m -> m.pipelineId, (m, v) -> m.pipelineId = v)
            .int64("checkpointId", m -> m.checkpointId, (m, v) -> m.checkpointId = v)
            .int64("triggerTimestamp", m -> m.triggerTimestamp, (m, v) -> m.triggerTimestamp = v)
            .string("checkpointType", m -> m.checkpointType, (m, v) -> m.checkpointType = v)
            .int64("completedTimestamp", m -> m.completedTimestamp, (m, v) -> m.completedTimestamp = v)
            .repeated("actionStates", FrozenSchema.group(WireActionState.SCHEMA), m -> m.actionStates)
            .repeated("taskStatistics", FrozenSchema.group(WireTaskStatistics.SCHEMA), m -> m.taskStatistics)
            .bool("complete", m -> m.complete, (m, v) -> m.complete = v)
            .build();
}
