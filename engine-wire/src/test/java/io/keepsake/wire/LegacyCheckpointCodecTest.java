package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.PipelineStateCodec;
import io.keepsake.storage.CheckpointCorruptedException;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class LegacyCheckpointCodecTest {

    private static final ActionStateKey A = new ActionStateKey("A");

    /** jobId 7, pipeline 2, checkpoint 5, one action with null runs and a coordinator, one statistics entry. */
    private static CompletedCheckpoint small(boolean restored) {
        ActionState action = new ActionState(A,
                Arrays.asList(null, null, new ActionSubtaskState(A, 2, Arrays.asList(new byte[] {'x'}, null, null,
                        new byte[0])), null),
                new ActionSubtaskState(A, -1, List.of()), 4);
        SubtaskStatistics stat = new SubtaskStatistics(1, 10, 20, SubtaskStatus.AUTO_PREPARE_CLOSE);
        TaskStatistics stats = new TaskStatistics(9L, Arrays.asList(null, stat), new boolean[] {false, true}, 1, stat);
        return new CompletedCheckpoint(7, 2, 5, 100, CheckpointType.SCHEMA_CHANGE_AFTER_POINT_TYPE, 200,
                Map.of(A, action), Map.of(9L, stats), restored);
    }

    /** The fields before the maps: job 1, pipeline 1, checkpoint 1, triggered at 0, type {@code ordinal}, completed at 0. */
    private static WireBytes header(int ordinal) {
        return new WireBytes().varint(1, 1).varint(2, 1).varint(3, 1).varint(4, 0).varint(5, ordinal).varint(6, 0);
    }

    /** Asserts that decoding {@code bytes} as a checkpoint fails as corrupted; returns the failure to assert more. */
    private static AbstractThrowableAssert<?, ? extends Throwable> assertCorruptedCheckpoint(byte[] bytes, String source) {
        return assertThatThrownBy(() -> LegacyCheckpointCodec.decodeCheckpoint(bytes, source))
                .isInstanceOf(CheckpointCorruptedException.class);
    }

    /** The same checkpoint written out by hand, following the layout facts of the fixtures README. */
    private static byte[] smallByHand() {
        WireBytes w = new WireBytes();
        w.varint(1, 7).varint(2, 2).varint(3, 5).varint(4, 100).varint(5, 2).varint(6, 200);
        w.startGroup(7);
        w.startGroup(1); // map entry
        w.startGroup(1).string(1, "A").endGroup(1); // key: ActionStateKey
        w.startGroup(2); // value: ActionState
        w.startGroup(1).string(1, "A").endGroup(1);
        w.startGroup(2); // subtaskStates list
        w.varint(2, 2); // two leading nulls
        w.startGroup(1).startGroup(1).string(1, "A").endGroup(1).varint(2, 2)
                .startGroup(3).bytes(1, new byte[] {'x'}).varint(2, 2).bytes(1, new byte[0]).endGroup(3)
                .endGroup(1);
        w.varint(2, 1); // one trailing null
        w.endGroup(2);
        w.startGroup(3).startGroup(1).string(1, "A").endGroup(1).varint(2, -1L).startGroup(3).endGroup(3).endGroup(3);
        w.varint(4, 4);
        w.endGroup(2);
        w.endGroup(1);
        w.endGroup(7);
        w.startGroup(8);
        w.startGroup(1).varint(1, 9); // entry with Long key
        w.startGroup(2).varint(1, 9);
        w.startGroup(2).varint(2, 1).startGroup(1).varint(1, 1).varint(2, 10).varint(3, 20).varint(4, 2).endGroup(1)
                .endGroup(2);
        w.startGroup(3).varint(1, 2).varint(2, 0).varint(2, 1).endGroup(3); // boolean[]
        w.varint(4, 1);
        w.startGroup(5).varint(1, 1).varint(2, 10).varint(3, 20).varint(4, 2).endGroup(5);
        w.endGroup(2);
        w.endGroup(1);
        w.endGroup(8);
        w.varint(9, 1);
        return w.toByteArray();
    }

    @Test
    void encodesTheLayoutSeaTunnelWritesByteForByte() {
        assertThat(LegacyCheckpointCodec.encodeCheckpoint(small(true))).isEqualTo(smallByHand());
    }

    @Test
    void decodesTheHandWrittenLayoutWithRestoredFlagAsStored() {
        CompletedCheckpoint decoded = LegacyCheckpointCodec.decodeCheckpoint(smallByHand(), "by-hand");

        assertThat(decoded).isEqualTo(small(true));
        assertThat(decoded.restored()).isTrue();
    }

    @Test
    void writesZeroAndFalsePrimitivesAndEmptyMapsAsEmptyGroups() {
        CompletedCheckpoint empty = new CompletedCheckpoint(0, 0, 0, 0, CheckpointType.CHECKPOINT_TYPE, 0, Map.of(),
                Map.of());
        byte[] expected = new WireBytes().varint(1, 0).varint(2, 0).varint(3, 0).varint(4, 0).varint(5, 0)
                .varint(6, 0).startGroup(7).endGroup(7).startGroup(8).endGroup(8).varint(9, 0).toByteArray();

        assertThat(LegacyCheckpointCodec.encodeCheckpoint(empty)).isEqualTo(expected);
    }

    @Test
    void encodesEveryCheckpointTypeByItsPinnedOrdinal() {
        CheckpointType[] byOrdinal = {CheckpointType.CHECKPOINT_TYPE, CheckpointType.SCHEMA_CHANGE_BEFORE_POINT_TYPE,
            CheckpointType.SCHEMA_CHANGE_AFTER_POINT_TYPE, CheckpointType.SAVEPOINT_TYPE,
            CheckpointType.COMPLETED_POINT_TYPE};
        for (int ordinal = 0; ordinal < byOrdinal.length; ordinal++) {
            CompletedCheckpoint c = new CompletedCheckpoint(1, 1, 1, 1, byOrdinal[ordinal], 1, Map.of(), Map.of());
            byte[] encoded = LegacyCheckpointCodec.encodeCheckpoint(c);

            assertThat(encoded[8]).as("tag of field 5").isEqualTo((byte) 0x28);
            assertThat(encoded[9]).as("ordinal of " + byOrdinal[ordinal]).isEqualTo((byte) ordinal);
        }
    }

    @Test
    void decodesAFileWithoutTheRestoredFieldAsNotRestored() {
        byte[] bytes = header(3).startGroup(7).endGroup(7).startGroup(8).endGroup(8).toByteArray();

        CompletedCheckpoint decoded = LegacyCheckpointCodec.decodeCheckpoint(bytes, "older.ser");

        assertThat(decoded.restored()).isFalse();
        assertThat(decoded.checkpointType()).isEqualTo(CheckpointType.SAVEPOINT_TYPE);
    }

    @Test
    void skipsFieldsANewerEngineAddedToItsClasses() {
        byte[] bytes = new WireBytes().raw(smallByHand())
                .varint(10, 123).string(11, "new field").startGroup(12).varint(1, 1).startGroup(2).endGroup(2)
                .endGroup(12).toByteArray();

        assertThat(LegacyCheckpointCodec.decodeCheckpoint(bytes, "newer.ser")).isEqualTo(small(true));
    }

    @Test
    void rejectsAnUnknownCheckpointTypeOrdinalListingTheKnownOnes() {
        byte[] bytes = header(7).startGroup(7).endGroup(7).startGroup(8).endGroup(8).varint(9, 0).toByteArray();

        assertCorruptedCheckpoint(bytes, "odd.ser")
                .hasMessageStartingWith("Cannot decode legacy v0 checkpoint: unknown checkpoint type ordinal")
                .hasMessageContaining("0=checkpoint").hasMessageContaining("4=completed-point")
                .hasMessageContaining("(7)").hasMessageEndingWith("in odd.ser");
    }

    @Test
    void rejectsAMapEntryWithoutValue() {
        byte[] bytes = header(0).startGroup(7).startGroup(1).startGroup(1).string(1, "A").endGroup(1).endGroup(1)
                .endGroup(7).startGroup(8).endGroup(8).toByteArray();

        assertCorruptedCheckpoint(bytes, "entry.ser").hasMessageContaining("lacks field 2 (value)");
    }

    @Test
    void rejectsARunOfNullsLargerThanTheExpansionBudgetWithoutAllocatingIt() {
        byte[] bytes = header(0).startGroup(7).startGroup(1).startGroup(1).string(1, "A").endGroup(1)
                .startGroup(2).startGroup(1).string(1, "A").endGroup(1)
                .startGroup(2).varint(2, Integer.MAX_VALUE).endGroup(2)
                .varint(4, Integer.MAX_VALUE).endGroup(2).endGroup(1).endGroup(7)
                .startGroup(8).endGroup(8).toByteArray();

        assertThatThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> LegacyCheckpointCodec.decodeCheckpoint(bytes, "nulls.ser")))
                .isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining("declares more elements than one input may expand to");
    }

    @Test
    void rejectsABooleanArrayLongerThanTheInput() {
        byte[] bytes = header(0).startGroup(7).endGroup(7).startGroup(8).startGroup(1).varint(1, 1)
                .startGroup(2).varint(1, 1).startGroup(2).endGroup(2)
                .startGroup(3).varint(1, 1_000_000_000).varint(2, 1).endGroup(3)
                .endGroup(2).endGroup(1).endGroup(8).toByteArray();

        assertCorruptedCheckpoint(bytes, "bools.ser")
                .hasMessageContaining("boolean[] declares a length that is negative or exceeds the input");
    }

    @Test
    void rejectsAFieldWithTheWrongWireType() {
        byte[] bytes = new WireBytes().string(1, "not a long").toByteArray();

        assertCorruptedCheckpoint(bytes, "type.ser")
                .hasMessageContaining("field 1 has wire type 2 where the layout expects 0");
    }

    @Test
    void everyTruncationFailsTypedExceptTheOneThatDropsOnlyTheRestoredFlag() {
        CompletedCheckpoint checkpoint = small(true);
        byte[] bytes = LegacyCheckpointCodec.encodeCheckpoint(checkpoint);
        int withoutRestoredField = bytes.length - 2;

        Truncations.forEachStrictPrefix(bytes, (prefix, length) -> {
            if (length == withoutRestoredField) {
                CompletedCheckpoint decoded = LegacyCheckpointCodec.decodeCheckpoint(prefix, "cut.ser");
                assertThat(decoded).isEqualTo(checkpoint);
                assertThat(decoded.restored()).isFalse();
            } else {
                assertThatThrownBy(() -> LegacyCheckpointCodec.decodeCheckpoint(prefix, "cut.ser"))
                        .as("prefix of %d bytes", length)
                        .isInstanceOf(CheckpointCorruptedException.class)
                        .hasMessageEndingWith("in cut.ser");
            }
        });
    }

    @Test
    void everyTruncationOfAFileFailsTyped() {
        byte[] file = LegacyCheckpointCodec.encodeFile(Samples.sample());

        Truncations.assertEveryStrictPrefixFails(file, prefix -> LegacyCheckpointCodec.decodeFile(prefix, "cut.ser"),
                CheckpointCorruptedException.class, failure -> failure.hasMessageContaining("cut.ser"));
    }

    @Test
    void fileWrapsTheCheckpointInAPipelineStateWithTheJobIdAsDecimalString() {
        CompletedCheckpoint checkpoint = Samples.sample();

        PipelineState wrapper = PipelineStateCodec.decode(LegacyCheckpointCodec.encodeFile(checkpoint), "file");

        assertThat(wrapper.jobId()).isEqualTo("700000000000000002");
        assertThat(wrapper.pipelineId()).isEqualTo(1);
        assertThat(wrapper.checkpointId()).isEqualTo(3);
        assertThat(wrapper.states()).isEqualTo(LegacyCheckpointCodec.encodeCheckpoint(checkpoint));
    }

    @Test
    void rejectsAFileWhoseWrapperNamesAnotherCheckpoint() {
        byte[] inner = LegacyCheckpointCodec.encodeCheckpoint(Samples.sample());
        byte[] file = PipelineStateCodec.encode(new PipelineState("700000000000000002", 1, 4, inner));

        assertThatThrownBy(() -> LegacyCheckpointCodec.decodeFile(file, "1-1-1-4.ser"))
                .isInstanceOfSatisfying(CheckpointCorruptedException.class, e -> {
                    assertThat(e.expected()).isEqualTo("3");
                    assertThat(e.actual()).isEqualTo("4");
                    assertThat(e.file()).isEqualTo("1-1-1-4.ser");
                })
                .hasMessageContaining("checkpoint id");
    }

    @Test
    void rejectsAFileWithAHugeDeclaredLengthWithoutAllocatingIt() {
        byte[] file = new WireBytes().string(1, "1").varint(2, 1).varint(3, 1)
                .tag(4, WireBytes.LENGTH_DELIMITED).rawVarint(Integer.MAX_VALUE - 8).raw(new byte[16]).toByteArray();

        assertThatThrownBy(() -> LegacyCheckpointCodec.decodeFile(file, "huge.ser"))
                .isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining("declared length exceeds the input");
    }
}
