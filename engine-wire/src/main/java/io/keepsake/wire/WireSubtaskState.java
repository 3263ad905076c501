package io.keepsake.wire;

import io.keepsake.storage.internal.FrozenSchema;
import io.protostuff.Schema;
import io.protostuff.Tag;

import java.util.ArrayList;
import java.util.List;

/**
 * engine-wire-v1 transfer object for the state one subtask or coordinator reported
 * ({@code ActionSubtaskState}). Its action key is not repeated here: it is the owning
 * {@link WireActionState#name}.
 *
 * <pre>
 * tag  field               encoding
 *   1  slot                int32: position in the owner's subtask slot list; -1 for the coordinator
 *   2  index               int32: the subtask index the engine recorded (-1 for the coordinator)
 *   3  state               repeated bytes: the non-null state objects, in order
 *   4  nullStatePositions  repeated int32, ascending: positions in the full state list that hold
 *                          null; the full list has count(3) + count(4) elements
 * </pre>
 *
 * <p>Tags are frozen: never renumbered and never reused. A field that is removed keeps its tag
 * reserved here as retired. Retired tags: none.
 *
 * <p>A plain mutable transfer object, not thread-safe, and not API: only {@link CheckpointWireCodec}
 * (and tests in this package) see it. {@link #SCHEMA} is the pinned layout.
 */
final class WireSubtaskState {

    /** The slot a coordinator's state carries. */
    static final int COORDINATOR_SLOT = -1;

    @Tag(1)
    int slot;
    @Tag(2)
    int index;
    @Tag(3)
    List<byte[]> state = new ArrayList<>();
    @Tag(4)
    List<Integer> nullStatePositions = new ArrayList<>();

    /** The hand-written schema that reads and writes this layout; unknown tags are skipped. */
    static final Schema<WireSubtaskState> SCHEMA = WireSchema.table(WireSubtaskState.class, WireSubtaskState::new)
            .int32("slot", m -> m.slot, (m, v) -> m.slot = v)
            .int32("index", m -> m.index, (m, v) -> m.index = v)
            .repeated("state", FrozenSchema.BYTES, m -> m.state)
            .repeated("nullStatePositions", FrozenSchema.INT32, m -> m.nullStatePositions)
            .build();
}
