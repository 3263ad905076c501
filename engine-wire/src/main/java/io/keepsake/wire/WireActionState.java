package io.keepsake.wire;

import io.keepsake.storage.internal.FrozenSchema;
import io.protostuff.Schema;
import io.protostuff.Tag;

import java.util.ArrayList;
import java.util.List;

/**
 * engine-wire-v1 transfer object for one action's state ({@code ActionState}).
 *
 * <p>Empty subtask slots are kept in place by position: {@link #parallelism} fixes the number of
 * slots, and each present subtask state carries its {@link WireSubtaskState#slot}; every slot in
 * {@code 0..parallelism-1} that no entry names is empty (null in the runtime model).
 *
 * <pre>
 * tag  field        encoding
 *   1  name         string: the ActionStateKey name
 *   2  parallelism  int32: the number of subtask slots
 *   3  subtasks     repeated group WireSubtaskState: the present slots, ascending by slot
 *   4  coordinator  group WireSubtaskState with slot -1; absent when there is none
 * </pre>
 *
 * <p>Tags are frozen: never renumbered and never reused. A field that is removed keeps its tag
 * reserved here as retired. Retired tags: none.
 *
 * <p>A plain mutable transfer object, not thread-safe, and not API: only {@link CheckpointWireCodec}
 * (and tests in this package) see it. {@link #SCHEMA} is the pinned layout.
 */
final class WireActionState {

    @Tag(1)
    String name;
    @Tag(2)
    int parallelism;
    @Tag(3)
    List<WireSubtaskState> subtasks = new ArrayList<>();
    @Tag(4)
    WireSubtaskState coordinator;

    /** The hand-written schema that reads and writes this layout; unknown tags are skipped. */
    static final Schema<WireActionState> SCHEMA = WireSchema.table(WireActionState.class, WireActionState::new)
            .string("name", m -> m.name, (m, v) -> m.name = v)
            .int32("parallelism", m -> m.parallelism, (m, v) -> m.parallelism = v)
            .repeated("subtasks", FrozenSchema.group(WireSubtaskState.SCHEMA), m -> m.subtasks)
            .optional("coordinator", FrozenSchema.group(WireSubtaskState.SCHEMA), m -> m.coordinator,
                    (m, v) -> m.coordinator = v)
            .build();
}
