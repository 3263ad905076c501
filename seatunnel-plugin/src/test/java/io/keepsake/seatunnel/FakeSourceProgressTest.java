package io.keepsake.seatunnel;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.PipelineState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.api.serialization.DefaultSerializer;
import org.apache.seatunnel.connectors.seatunnel.fake.source.FakeSourceSplit;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link FakeSourceProgress} on crafted checkpoints laid out as SeaTunnel 2.3.8 stores a FakeSource ->
 * Console pipeline (action names as the engine logs them, each unread split serialized by the source's
 * {@code DefaultSerializer}): the cluster tests' state check accepts a pipeline that continued from the
 * checkpoint it was restored from and rejects one that restarted from an older checkpoint or from scratch.
 */
class FakeSourceProgressTest {

    private static final int SPLITS = 600;
    private static final long JOB = 977;
    private static final ActionStateKey SOURCE = ActionStateKey.of("ActionStateKey - pipeline-1 [Source[0]-FakeSource]");
    private static final ActionStateKey SINK = ActionStateKey.of("ActionStateKey - pipeline-1 [Sink[0]-Console-MultiTableSink]");

    /** A checkpoint file of pipeline 1 whose reader has read splits 0 .. read - 1 (it reads in id order here). */
    private static PipelineState checkpoint(long checkpointId, int read) {
        return file(checkpointId, IntStream.range(read, SPLITS).boxed().toList());
    }

    private static PipelineState file(long checkpointId, List<Integer> unread) {
        DefaultSerializer<FakeSourceSplit> serializer = new DefaultSerializer<>();
        List<byte[]> splits = new ArrayList<>();
        for (int id : unread) {
            try {
                splits.add(serializer.serialize(new FakeSourceSplit("fake1", id, Jobs.ROWS_PER_SPLIT)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Map<ActionStateKey, ActionState> actions = new LinkedHashMap<>();
        actions.put(SOURCE, new ActionState(SOURCE, List.of(new ActionSubtaskState(SOURCE, 0, splits)),
                new ActionSubtaskState(SOURCE, ActionSubtaskState.COORDINATOR_INDEX, List.of(new byte[]{1, 2, 3})), 1));
        actions.put(SINK, new ActionState(SINK, List.of(new ActionSubtaskState(SINK, 0, List.of(new byte[]{4}))), null, 1));
        byte[] states = LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(JOB, 1, checkpointId,
                1000 + checkpointId, CheckpointType.CHECKPOINT_TYPE, 1001 + checkpointId, actions, Map.of()));
        return new PipelineState(Long.toString(JOB), 1, checkpointId, states);
    }

    @Test
    void readsTheUnreadSplitsAndRowsOfTheFakeSourceReader() {
        FakeSourceProgress p = FakeSourceProgress.of(checkpoint(7, 45));
        assertThat(p.checkpointId()).isEqualTo(7);
        assertThat(p.pipelineId()).isEqualTo(1);
        assertThat(p.unread()).hasSize(SPLITS - 45).startsWith(45).doesNotContain(44);
        assertThat(p.rowsRead(Jobs.progressRows())).isEqualTo(450);
        p.requireUnderWay(SPLITS, "at the kill");
    }

    @Test
    void acceptsAFirstCheckpointThatContinuesFromTheRestoredOne() {
        FakeSourceProgress restored = FakeSourceProgress.of(checkpoint(7, 45));
        FakeSourceProgress.of(checkpoint(8, 48)).requireResumedFrom(restored, SPLITS);
        FakeSourceProgress.of(checkpoint(8, 45)).requireResumedFrom(restored, SPLITS);
    }

    @Test
    void acceptsSplitsReadInAnotherOrder() {
        FakeSourceProgress restored = FakeSourceProgress.of(file(7, IntStream.range(0, SPLITS).filter(i -> i % 7 != 0).boxed().toList()));
        FakeSourceProgress.of(file(8, IntStream.range(0, SPLITS).filter(i -> i % 7 != 0 && i != 599).boxed().toList()))
                .requireResumedFrom(restored, SPLITS);
    }

    @Test
    void rejectsAPipelineThatRestartedFromAnOlderCheckpoint() {
        FakeSourceProgress restored = FakeSourceProgress.of(checkpoint(7, 45));
        // As if restored from checkpoint 5 (40 splits read): splits 40 .. 44 are back, though two more were read since.
        FakeSourceProgress fromOlder = FakeSourceProgress.of(checkpoint(8, 42));
        assertThatThrownBy(() -> fromOlder.requireResumedFrom(restored, SPLITS))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("pipeline 1 of job 977: checkpoint 8, the first after the restore from checkpoint 7")
                .hasMessageContaining("3 split(s) that checkpoint 7 had already read ([42, 43, 44])")
                .hasMessageContaining("did not resume from checkpoint 7");
    }

    @Test
    void rejectsAPipelineThatStartedOver() {
        FakeSourceProgress restored = FakeSourceProgress.of(checkpoint(7, 45));
        assertThatThrownBy(() -> FakeSourceProgress.of(checkpoint(8, 0)).requireResumedFrom(restored, SPLITS))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("45 split(s) that checkpoint 7 had already read ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9] ...)");
        FakeSourceProgress nothingRead = FakeSourceProgress.of(checkpoint(1, 0));
        assertThatThrownBy(() -> FakeSourceProgress.of(checkpoint(2, 0)).requireResumedFrom(nothingRead, SPLITS))
                .isInstanceOf(AssertionError.class).hasMessageContaining("holds all 600 splits again");
        assertThatThrownBy(() -> nothingRead.requireUnderWay(SPLITS, "at the kill"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("No progress at the kill");
    }

    @Test
    void rejectsAReaderThatLostItsSplits() {
        FakeSourceProgress restored = FakeSourceProgress.of(checkpoint(7, 45));
        FakeSourceProgress empty = FakeSourceProgress.of(file(8, List.of()));
        assertThatThrownBy(() -> empty.requireResumedFrom(restored, SPLITS))
                .isInstanceOf(AssertionError.class).hasMessageContaining("holds no split: the reader lost the 555 splits");
        assertThatThrownBy(() -> empty.requireUnderWay(SPLITS, "at the savepoint"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("Nothing left to read at the savepoint");
    }

    @Test
    void aCheckpointWithoutAFakeSourceIsNamedInTheError() {
        byte[] states = LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(JOB, 2, 3, 1, CheckpointType.CHECKPOINT_TYPE,
                2, Map.of(SINK, ActionState.empty(SINK, 1)), Map.of()));
        assertThatThrownBy(() -> FakeSourceProgress.of(new PipelineState(Long.toString(JOB), 2, 3, states)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("checkpoint 3 of job 977 pipeline 2: expected one FakeSource action, found 0");
    }
}
