package io.keepsake.wire;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.Tag;

import java.io.IOException;
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
    static final Schema<WireActionState> SCHEMA = new WireSchema<>(WireActionState.class, WireActionState::new,
            "name", "parallelism", "subtasks", "coordinator") {
        @Override
        public void writeTo(Output output, WireActionState m) throws IOException {
            if (m.name != null) {
                output.writeString(1, m.name, false);
            }
            output.writeInt32(2, m.parallelism, false);
            if (m.subtasks != null) {
                for (WireSubtaskState subtask : m.subtasks) {
                    output.writeObject(3, subtask, WireSubtaskState.SCHEMA, true);
                }
            }
            if (m.coordinator != null) {
                output.writeObject(4, m.coordinator, WireSubtaskState.SCHEMA, false);
            }
        }

        @Override
        public void mergeFrom(Input input, WireActionState m) throws IOException {
            for (int n = input.readFieldNumber(this); n != 0; n = input.readFieldNumber(this)) {
                switch (n) {
                    case 1 -> m.name = input.readString();
                    case 2 -> m.parallelism = input.readInt32();
                    case 3 -> m.subtasks.add(input.mergeObject(null, WireSubtaskState.SCHEMA));
                    case 4 -> m.coordinator = input.mergeObject(null, WireSubtaskState.SCHEMA);
                    default -> input.handleUnknownField(n, this);
                }
            }
        }
    };
}
