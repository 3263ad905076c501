package io.keepsake.tool;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.tool.internal.DemoState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake prepare-restore}: the chosen savepoint becomes the newest state, renumbered above every id. */
class PrepareRestoreCommandTest {

    @TempDir
    Path temp;

    private static void checkpoint(CheckpointStorage storage, int pipeline, long id) throws Exception {
        CompletedCheckpoint cp = DemoState.checkpoint(ToolRun.JOB_ID, pipeline, id, CheckpointType.CHECKPOINT_TYPE);
        storage.storeCheckPoint(new PipelineState(ToolRun.JOB, pipeline, id, LegacyCheckpointCodec.encodeCheckpoint(cp)));
    }

    @Test
    void theChosenOlderSavepointBecomesEachPipelinesNewestStateNumberedAboveEveryId() throws Exception {
        Path namespace = temp.resolve("ns");
        SavepointHandle older = ToolRun.savepoint(namespace, 3);
        ToolRun.savepoint(namespace, 9);
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            checkpoint(storage, 1, 10);
            checkpoint(storage, 2, 11);
        }

        ToolRun.Result r = ToolRun.run("prepare-restore", "--namespace", namespace.toString(), ToolRun.JOB,
                older.savepointId());

        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("Pipeline 1 of job " + ToolRun.JOB + " restores savepoint " + older.savepointId()
                + " (checkpoint 3) as checkpoint 12");
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            for (int p = 1; p <= 2; p++) {
                PipelineState latest = storage.getLatestCheckpointByJobIdAndPipelineId(ToolRun.JOB, Integer.toString(p));
                assertThat(latest.checkpointId()).isEqualTo(12);
                CompletedCheckpoint restored = LegacyCheckpointCodec.decodeCheckpoint(latest.states(), "test");
                CompletedCheckpoint saved = ToolRun.state(3, java.util.List.of(1, 2)).get(p);
                assertThat(restored.checkpointId()).isEqualTo(12);
                assertThat(restored.taskStates()).isEqualTo(saved.taskStates());
                assertThat(restored.checkpointType()).isEqualTo(saved.checkpointType());
            }
        }
    }

    @Test
    void aDamagedSavepointIsRefusedAndNothingIsWritten() throws Exception {
        Path namespace = temp.resolve("ns");
        SavepointHandle damaged = ToolRun.savepoint(namespace, 3);
        ListInspectVerifyTest.flipByte(Path.of(damaged.location(), "_metadata.ser"), 20);

        ToolRun.Result r = ToolRun.run("prepare-restore", "--namespace", namespace.toString(), ToolRun.JOB,
                damaged.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(namespace.resolve(ToolRun.JOB)).satisfiesAnyOf(
                d -> assertThat(d).doesNotExist(), d -> assertThat(Files.list(d)).isEmpty());
    }

    @Test
    void aPipelineNamedTwiceIsRefused() throws Exception {
        Path namespace = temp.resolve("ns");
        SavepointHandle a = ToolRun.savepoint(namespace, 3);
        SavepointHandle b = ToolRun.savepoint(namespace, 4);

        ToolRun.Result r = ToolRun.run("prepare-restore", "--namespace", namespace.toString(), ToolRun.JOB,
                a.savepointId(), b.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("pipeline 1").contains(a.savepointId()).contains(b.savepointId());
    }
}
