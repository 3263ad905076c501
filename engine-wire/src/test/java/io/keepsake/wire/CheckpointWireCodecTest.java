package io.keepsake.wire;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointCorruptedException;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;
import io.protostuff.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class CheckpointWireCodecTest {

    private final CheckpointWireCodec codec = new CheckpointWireCodec();

    /** Asserts that decoding {@code wire}'s bytes fails as corrupt, with a message holding each of {@code parts}. */
    private void assertCorrupted(WireCheckpoint wire, String source, String... parts) {
        byte[] bytes = write(wire, WireCheckpoint.SCHEMA);
        assertThatThrownBy(() -> codec.decode(bytes, source))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContainingAll(parts);
    }

    /** The sample's source action. */
    private static WireActionState source(WireCheckpoint wire) {
        return wire.actionStates.stream().filter(a -> a.name.startsWith("Source")).findFirst().orElseThrow();
    }

    private static byte[] write(WireCheckpoint wire, Schema<WireCheckpoint> schema) {
        return ProtostuffIOUtil.toByteArray(wire, schema, LinkedBuffer.allocate());
    }

    @Test
    void decodesWhatItEncodedWithEveryShapeOfTheSample() {
        CompletedCheckpoint sample = Samples.sample();

        assertThat(codec.decode(codec.encode(sample), "sample.wire")).isEqualTo(sample);
    }

    @Test
    void decodesACheckpointWithEmptyMaps() {
        assertThat(codec.decode(codec.encode(Samples.empty()), "empty.wire")).isEqualTo(Samples.empty());
    }

    @Test
    void encodingIgnoresMapOrderAndTheRestoredFlag() {
        CompletedCheckpoint sample = Samples.sample();
        CompletedCheckpoint reordered = RoundTripPropertiesTest.reordered(sample, new Random(1)).withRestored(true);

        assertThat(codec.encode(reordered)).isEqualTo(codec.encode(sample));
        assertThat(codec.decode(codec.encode(reordered), "r").restored()).isFalse();
    }

    @Test
    void storesEnumsByTheirStableNames() {
        String bytes = new String(codec.encode(Samples.sample()), StandardCharsets.ISO_8859_1);

        assertThat(bytes).contains("savepoint").contains("SAVEPOINT_PREPARE_CLOSE");
    }

    @Test
    void streamEncodingEqualsByteEncodingAndStreamDecodingReadsItBack() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        codec.encode(Samples.sample(), out);

        assertThat(out.toByteArray()).isEqualTo(codec.encode(Samples.sample()));
        assertThat(codec.decode(new ByteArrayInputStream(out.toByteArray()), "stream")).isEqualTo(Samples.sample());
    }

    @Test
    void rejectsAStreamLongerThanTheCapWithoutReadingItAll() {
        byte[] payload = codec.encode(Samples.sample());
        CheckpointWireCodec capped = new CheckpointWireCodec(payload.length - 1);

        assertThatThrownBy(() -> capped.decode(new ByteArrayInputStream(payload), "big.wire"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("longer than the cap of " + (payload.length - 1) + " bytes")
                .hasMessageEndingWith("in big.wire");
    }

    @Test
    void acceptsAStreamExactlyAsLongAsTheCap() throws IOException {
        byte[] payload = codec.encode(Samples.sample());

        assertThat(new CheckpointWireCodec(payload.length).decode(new ByteArrayInputStream(payload), "exact"))
                .isEqualTo(Samples.sample());
    }

    @Test
    void rejectsANonPositivePayloadCap() {
        assertThatThrownBy(() -> new CheckpointWireCodec(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot create engine-wire-v1 codec: the payload cap must be between 1 and 2147483631"
                        + " bytes (0)");
    }

    @Test
    void rejectsAnUnknownCheckpointTypeNameListingTheKnownNames() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.checkpointType = "incremental";

        assertThatThrownBy(() -> codec.decode(write(wire, WireCheckpoint.SCHEMA), "future.wire"))
                .isInstanceOfSatisfying(SavepointCorruptedException.class, e -> {
                    assertThat(e.actual()).isEqualTo("incremental");
                    assertThat(e.file()).isEqualTo("future.wire");
                })
                .hasMessageStartingWith("Cannot decode engine-wire-v1 checkpoint: unknown checkpoint type name")
                .hasMessageContaining("[checkpoint, schema-change-before-point, schema-change-after-point, savepoint,"
                        + " completed-point]")
                .hasMessageContaining("(incremental)");
    }

    @Test
    void rejectsAnUnknownSubtaskStatusNameListingTheKnownNames() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.taskStatistics.get(1).latestAcked.status = "PAUSED";

        assertCorrupted(wire, "status.wire", "unknown subtask status name",
                "[RUNNING, SAVEPOINT_PREPARE_CLOSE, AUTO_PREPARE_CLOSE]", "(PAUSED)");
    }

    @Test
    void skipsTagsANewerWriterAddedAtEveryLevel() {
        WireCheckpoint wire = codec.toWire(Samples.sample());

        byte[] bytes = write(wire, FutureWireWriter.CHECKPOINT);

        assertThat(bytes.length).isGreaterThan(codec.encode(Samples.sample()).length);
        assertThat(codec.decode(bytes, "newer.wire")).isEqualTo(Samples.sample());
    }

    @Test
    void protostuffsOwnReaderReadsThePayloadWithTheSchema() {
        WireCheckpoint read = new WireCheckpoint();
        ProtostuffIOUtil.mergeFrom(codec.encode(Samples.sample()), read, WireCheckpoint.SCHEMA);

        assertThat(codec.fromWire(read, "protostuff")).isEqualTo(Samples.sample());
    }

    @Test
    void everyStrictPrefixIsRejected() {
        byte[] bytes = codec.encode(Samples.sample());

        Truncations.assertEveryStrictPrefixFails(bytes, prefix -> codec.decode(prefix, "cut.wire"),
                SavepointCorruptedException.class, failure -> failure
                        .hasMessageStartingWith("Cannot decode engine-wire-v1 checkpoint")
                        .hasMessageEndingWith("in cut.wire"));
    }

    @Test
    void rejectsAPayloadWithoutEndMarker() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.complete = false;

        assertCorrupted(wire, "nomarker.wire", "end marker (tag 9) is missing");
    }

    @Test
    void rejectsAHugeDeclaredLengthWithoutAllocatingIt() {
        byte[] bytes = new WireBytes().varint(1, 1).tag(5, WireBytes.LENGTH_DELIMITED).rawVarint(Integer.MAX_VALUE - 4)
                .raw(new byte[8]).toByteArray();

        assertThatThrownBy(() -> codec.decode(bytes, "huge.wire"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("a declared length exceeds the input (2147483643 declared");
    }

    @Test
    void rejectsHostileGroupNestingWithoutOverflowingTheStack() {
        byte[] bytes = new byte[200_000];
        Arrays.fill(bytes, (byte) ((15 << 3) | WireBytes.START_GROUP)); // unknown tag 15, one byte each

        assertThatThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(30), () -> codec.decode(bytes, "deep")))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("groups nest deeper than 64 levels");
    }

    @Test
    void rejectsAParallelismBeyondTheSlotBudgetWithoutAllocatingIt() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.actionStates.get(0).parallelism = Integer.MAX_VALUE;

        assertThatThrownBy(() -> codec.decode(write(wire, WireCheckpoint.SCHEMA), "slots.wire"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("declares more slots than one payload may hold (2147483647 declared");
    }

    /** A source subtask's slot moved outside the parallelism of 3, or onto the slot before it. */
    @ParameterizedTest(name = "slot {0}")
    @CsvSource(delimiter = '|', textBlock = """
            3 | action Source[0]-FakeSource names slots that do not ascend within 0..2 (3)
            0 | do not ascend
            """)
    void rejectsSubtaskSlotsThatDoNotAscendWithinTheParallelism(int slot, String message) {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        source(wire).subtasks.get(1).slot = slot;

        assertCorrupted(wire, "slot.wire", message);
    }

    @Test
    void rejectsACoordinatorOutsideSlotMinusOne() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.actionStates.stream().filter(a -> a.coordinator != null).findFirst().orElseThrow().coordinator.slot = 0;

        assertCorrupted(wire, "coord.wire", "must have slot -1 (0)");
    }

    @Test
    void rejectsNullStatePositionsOutOfOrder() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        WireSubtaskState subtask = source(wire).subtasks.get(1);
        subtask.nullStatePositions = List.of(5);

        assertCorrupted(wire, "nulls.wire", "null state positions");
    }

    @Test
    void rejectsCompletedFlagsThatDoNotMatchTheSlots() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.taskStatistics.get(1).subtaskCompleted.add(true);

        assertCorrupted(wire, "flags.wire", "must have one completed flag per slot, 2 slots (3 flags)");
    }

    @Test
    void rejectsTwoActionsWithTheSameName() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.actionStates.add(wire.actionStates.get(0));

        assertCorrupted(wire, "dup.wire", "two action states have the same name");
    }

    @Test
    void translatesModelViolationsIntoCorruptedErrors() {
        WireCheckpoint wire = codec.toWire(Samples.sample());
        wire.taskStatistics.get(0).numAcknowledgedSubtasks = -3;

        assertCorrupted(wire, "model.wire", "numAcknowledgedSubtasks is negative (-3)");
    }

    @Test
    void everyTransferObjectFieldCarriesTheFrozenTagItsSchemaUses() throws ReflectiveOperationException {
        Map<Class<?>, List<String>> frozen = new LinkedHashMap<>();
        frozen.put(WireCheckpoint.class, List.of("jobId", "pipelineId", "checkpointId", "triggerTimestamp",
                "checkpointType", "completedTimestamp", "actionStates", "taskStatistics", "complete"));
        frozen.put(WireActionState.class, List.of("name", "parallelism", "subtasks", "coordinator"));
        frozen.put(WireSubtaskState.class, List.of("slot", "index", "state", "nullStatePositions"));
        frozen.put(WireTaskStatistics.class, List.of("jobVertexId", "subtaskCount", "subtaskStats",
                "subtaskCompleted", "numAcknowledgedSubtasks", "latestAcked"));
        frozen.put(WireSubtaskStatistics.class, List.of("slot", "subtaskIndex", "ackTimestamp", "stateSize",
                "status"));

        for (Map.Entry<Class<?>, List<String>> e : frozen.entrySet()) {
            Schema<?> schema = (Schema<?>) e.getKey().getDeclaredField("SCHEMA").get(null);
            List<Field> fields = Arrays.stream(e.getKey().getDeclaredFields())
                    .filter(f -> !Modifier.isStatic(f.getModifiers())).toList();
            assertThat(fields).as("fields of %s", e.getKey().getSimpleName()).hasSize(e.getValue().size());
            for (Field field : fields) {
                int frozenTag = e.getValue().indexOf(field.getName()) + 1;
                assertThat(field.getAnnotation(Tag.class)).as("@Tag on %s", field).isNotNull();
                assertThat(field.getAnnotation(Tag.class).value()).as("tag of %s", field).isEqualTo(frozenTag);
                assertThat(schema.getFieldNumber(field.getName())).as("schema tag of %s", field).isEqualTo(frozenTag);
                assertThat(schema.getFieldName(frozenTag)).isEqualTo(field.getName());
            }
        }
    }
}
