package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.TaskStatistics;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Randomised round trips of both codecs over many checkpoint shapes. */
class RoundTripPropertiesTest {

    private final CheckpointWireCodec codec = new CheckpointWireCodec();

    @Provide
    Arbitrary<CompletedCheckpoint> checkpoints() {
        return CheckpointArbitraries.checkpoints();
    }

    @Property
    void wireV1DecodesWhatItEncoded(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        Statistics.label("empty taskStates").collect(checkpoint.taskStates().isEmpty());
        Statistics.label("an empty subtask slot").collect(hasEmptySlot(checkpoint));
        Statistics.label("a coordinator-only action").collect(hasCoordinatorOnlyAction(checkpoint));
        Statistics.label("a null state element").collect(hasNullStateElement(checkpoint));

        CompletedCheckpoint decoded = codec.decode(codec.encode(checkpoint), "property");

        assertThat(decoded).isEqualTo(checkpoint);
        assertThat(decoded.restored()).isFalse();
        Statistics.label("empty taskStates").coverage(c -> c.check(true).percentage(p -> p >= 3));
        Statistics.label("an empty subtask slot").coverage(c -> c.check(true).percentage(p -> p >= 20));
        Statistics.label("a coordinator-only action").coverage(c -> c.check(true).percentage(p -> p >= 5));
        Statistics.label("a null state element").coverage(c -> c.check(true).percentage(p -> p >= 10));
    }

    private static boolean hasEmptySlot(CompletedCheckpoint c) {
        return c.taskStates().values().stream().anyMatch(a -> a.subtaskStates().contains(null));
    }

    private static boolean hasCoordinatorOnlyAction(CompletedCheckpoint c) {
        return c.taskStates().values().stream().anyMatch(a -> a.coordinatorState() != null
                && a.subtaskStates().stream().allMatch(java.util.Objects::isNull));
    }

    private static boolean hasNullStateElement(CompletedCheckpoint c) {
        return c.taskStates().values().stream().flatMap(a -> a.subtaskStates().stream())
                .anyMatch(s -> s != null && s.state().contains(null));
    }

    @Property
    void wireV1BytesDoNotDependOnMapOrderOrRestoredFlag(@ForAll("checkpoints") CompletedCheckpoint checkpoint,
                                                       @ForAll long shuffleSeed) {
        CompletedCheckpoint shuffled = reordered(checkpoint, new Random(shuffleSeed)).withRestored(!checkpoint.restored());

        assertThat(codec.encode(shuffled)).isEqualTo(codec.encode(checkpoint));
    }

    @Property
    void wireV1EncodeIsStableAcrossCalls(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        byte[] first = codec.encode(checkpoint);
        byte[] reencoded = codec.encode(codec.decode(first, "property"));

        assertThat(reencoded).isEqualTo(first);
    }

    @Property
    void legacyV0DecodesWhatItEncodedIncludingRestoredFlag(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        CompletedCheckpoint decoded = LegacyCheckpointCodec.decodeCheckpoint(
                LegacyCheckpointCodec.encodeCheckpoint(checkpoint), "property");

        assertThat(decoded).isEqualTo(checkpoint);
        assertThat(decoded.restored()).isEqualTo(checkpoint.restored());
        assertThat(decoded.taskStates().keySet()).containsExactlyElementsOf(checkpoint.taskStates().keySet());
    }

    @Property
    void legacyV0FileReencodesToTheSameBytes(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        byte[] file = LegacyCheckpointCodec.encodeFile(checkpoint);
        CompletedCheckpoint decoded = LegacyCheckpointCodec.decodeFile(file, "property.ser");

        assertThat(decoded).isEqualTo(checkpoint);
        assertThat(LegacyCheckpointCodec.encodeFile(decoded)).isEqualTo(file);
    }

    @Property
    void legacyV0AndWireV1CarryTheSamePersistedContent(@ForAll("checkpoints") CompletedCheckpoint checkpoint) {
        CompletedCheckpoint viaLegacy = LegacyCheckpointCodec.decodeCheckpoint(
                LegacyCheckpointCodec.encodeCheckpoint(checkpoint), "legacy");
        CompletedCheckpoint viaWire = codec.decode(codec.encode(viaLegacy), "wire");

        assertThat(viaWire).isEqualTo(checkpoint);
    }

    static CompletedCheckpoint reordered(CompletedCheckpoint c, Random random) {
        List<Map.Entry<ActionStateKey, ActionState>> states = new ArrayList<>(c.taskStates().entrySet());
        Collections.shuffle(states, random);
        Map<ActionStateKey, ActionState> taskStates = new LinkedHashMap<>();
        states.forEach(e -> taskStates.put(e.getKey(), e.getValue()));
        List<Map.Entry<Long, TaskStatistics>> stats = new ArrayList<>(c.taskStatistics().entrySet());
        Collections.shuffle(stats, random);
        Map<Long, TaskStatistics> taskStatistics = new LinkedHashMap<>();
        stats.forEach(e -> taskStatistics.put(e.getKey(), e.getValue()));
        return new CompletedCheckpoint(c.jobId(), c.pipelineId(), c.checkpointId(), c.triggerTimestamp(),
                c.checkpointType(), c.completedTimestamp(), taskStates, taskStatistics, c.restored());
    }
}
