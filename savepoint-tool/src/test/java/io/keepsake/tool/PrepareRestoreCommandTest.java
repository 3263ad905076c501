package io.keepsake.tool;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.tool.internal.DemoState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake prepare-restore}: the chosen savepoint becomes the newest state, renumbered above every id. */
class PrepareRestoreCommandTest {

    @TempDir
    Path temp;

    /** The namespace of the running test. */
    private Path namespace;

    @BeforeEach
    void namespace() {
        namespace = temp.resolve("ns");
    }

    private static void checkpoint(CheckpointStorage storage, int pipeline, long id) throws Exception {
        CompletedCheckpoint cp = DemoState.checkpoint(ToolRun.JOB_ID, pipeline, id, CheckpointType.CHECKPOINT_TYPE);
        storage.storeCheckPoint(new PipelineState(ToolRun.JOB, pipeline, id, LegacyCheckpointCodec.encodeCheckpoint(cp)));
    }

    /** Checkpoints {@code first} of pipeline 1 and {@code second} of pipeline 2. */
    private static void checkpointBothPipelines(Path namespace, long first, long second) throws Exception {
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            checkpoint(storage, 1, first);
            checkpoint(storage, 2, second);
        }
    }

    /**
     * Savepoints at checkpoints 3 and 9, then checkpoints 10 and 11 of pipelines 1 and 2: the job's
     * newest state is past both; returns the older savepoint.
     */
    private static SavepointHandle olderSavepointBehindNewerState(Path namespace) throws Exception {
        SavepointHandle older = ToolRun.savepoint(namespace, 3);
        ToolRun.savepoint(namespace, 9);
        checkpointBothPipelines(namespace, 10, 11);
        return older;
    }

    /** {@code keepsake prepare-restore} of the test job on {@code namespace}, restoring the savepoints named. */
    private static ToolRun.Result prepareRestore(Path namespace, String... savepointIds) {
        String[] args = new String[4 + savepointIds.length];
        args[0] = "prepare-restore";
        args[1] = "--namespace";
        args[2] = namespace.toString();
        args[3] = ToolRun.JOB;
        System.arraycopy(savepointIds, 0, args, 4, savepointIds.length);
        return ToolRun.run(args);
    }

    @Test
    void theChosenOlderSavepointBecomesEachPipelinesNewestStateNumberedAboveEveryId() throws Exception {
        SavepointHandle older = olderSavepointBehindNewerState(namespace);

        ToolRun.Result r = prepareRestore(namespace, older.savepointId());

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

    /** A savepoint of one pipeline at {@code checkpointId}, named as the SeaTunnel plugin names its bundles. */
    private static String pluginBundle(Path namespace, int pipeline, long checkpointId) throws Exception {
        String id = String.format("st-%019d-p%d", checkpointId, pipeline);
        try (CheckpointStorage storage = ToolRun.open(namespace);
             io.keepsake.engine.SavepointSaveSession session = io.keepsake.engine.SavepointSaveSession.builder(
                     (io.keepsake.storage.SavepointStorage) storage, ToolRun.JOB, java.util.List.of(pipeline))
                     .savepointId(id).open()) {
            session.report(DemoState.checkpoint(ToolRun.JOB_ID, pipeline, checkpointId, CheckpointType.SAVEPOINT_TYPE));
            session.pipelineSuspended(pipeline);
            session.commit();
        }
        return id;
    }

    @Test
    void pipelinesSavedAtDifferentIdsRestoreAsOneNewIdAndPipelinesLeftOutAreNamed() throws Exception {
        String p1 = pluginBundle(namespace, 1, 3);
        String p2 = pluginBundle(namespace, 2, 4);
        pluginBundle(namespace, 2, 20);
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            checkpoint(storage, 1, 9);
            checkpoint(storage, 3, 7);
        }

        ToolRun.Result r = prepareRestore(namespace, p1, p2);

        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("restores savepoint " + p1 + " (checkpoint 3) as checkpoint 21")
                .contains("restores savepoint " + p2 + " (checkpoint 4) as checkpoint 21");
        assertThat(r.err()).contains("pipeline(s) [3] of job " + ToolRun.JOB);
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(ToolRun.JOB, "1").checkpointId()).isEqualTo(21);
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(ToolRun.JOB, "2").checkpointId()).isEqualTo(21);
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(ToolRun.JOB, "3").checkpointId()).isEqualTo(7);
        }
    }

    @Test
    void aDamagedSavepointIsRefusedAndNothingIsWritten() throws Exception {
        SavepointHandle damaged = ToolRun.savepoint(namespace, 3);
        ListInspectVerifyTest.flipByte(Path.of(damaged.location(), "_metadata.ser"), 20);

        ToolRun.Result r = prepareRestore(namespace, damaged.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(namespace.resolve(ToolRun.JOB)).satisfiesAnyOf(
                d -> assertThat(d).doesNotExist(), d -> assertThat(Files.list(d)).isEmpty());
    }

    @Test
    void aPipelineNamedTwiceIsRefused() throws Exception {
        SavepointHandle a = ToolRun.savepoint(namespace, 3);
        SavepointHandle b = ToolRun.savepoint(namespace, 4);

        ToolRun.Result r = prepareRestore(namespace, a.savepointId(), b.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("pipeline 1").contains(a.savepointId()).contains(b.savepointId());
    }

    /**
     * A second run with the same savepoint finds the copy the first wrote (read and compared), says
     * so and writes nothing; list no longer proposes migrating that copy; once the job checkpoints
     * again, a run prepares anew.
     */
    @Test
    void aSecondRunFindsTheCopyTheFirstWroteAndWritesNothing() throws Exception {
        SavepointHandle older = olderSavepointBehindNewerState(namespace);
        ToolRun.Result first = prepareRestore(namespace, older.savepointId());
        assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCodes.OK);
        int files = checkpointCount(namespace);

        ToolRun.Result second = prepareRestore(namespace, older.savepointId());
        ToolRun.Result json = ToolRun.run("prepare-restore", "--json", "--namespace", namespace.toString(),
                ToolRun.JOB, older.savepointId());

        assertThat(second.exitCode()).as(second.err()).isEqualTo(ExitCodes.OK);
        assertThat(second.out()).contains("Pipeline 1 of job " + ToolRun.JOB + " already restores savepoint "
                + older.savepointId() + " (checkpoint 3) as checkpoint 12", "nothing written");
        assertThat(json.exitCode()).as(json.err()).isEqualTo(ExitCodes.OK);
        assertThat(json.out()).contains("\"alreadyPrepared\": true", "\"restoresAs\": 12");
        assertThat(checkpointCount(namespace)).isEqualTo(files);
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(ToolRun.JOB, "1").checkpointId()).isEqualTo(12);
        }

        ToolRun.Result list = ToolRun.run("list", "--namespace", namespace.toString(), ToolRun.JOB);
        ToolRun.Result listJson = ToolRun.run("list", "--json", "--namespace", namespace.toString(), ToolRun.JOB);
        assertThat(list.out()).doesNotContain("keepsake migrate " + ToolRun.JOB + " would write")
                .contains("not needed: already in savepoint " + older.savepointId());
        assertThat(listJson.out()).contains("\"state\": \"kept\"").doesNotContain("\"state\": \"pending\"");

        // the job ran on from the prepared state: its newest state is no longer the savepoint's
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            checkpoint(storage, 1, 13);
        }
        ToolRun.Result third = prepareRestore(namespace, older.savepointId());
        assertThat(third.exitCode()).as(third.err()).isEqualTo(ExitCodes.OK);
        assertThat(third.out()).contains("restores savepoint " + older.savepointId() + " (checkpoint 3) as checkpoint 14")
                .doesNotContain("already");
    }

    /** After one preparation, list says the job's newest state is held by the savepoint, not "migrate would write". */
    @Test
    void listDoesNotProposeMigratingThePreparedCopy() throws Exception {
        SavepointHandle older = ToolRun.savepoint(namespace, 3);
        checkpointBothPipelines(namespace, 10, 11);
        ToolRun.Result before = ToolRun.run("list", "--namespace", namespace.toString(), ToolRun.JOB);
        assertThat(before.out()).contains("keepsake migrate " + ToolRun.JOB + " would write");

        assertThat(prepareRestore(namespace, older.savepointId()).exitCode()).isEqualTo(ExitCodes.OK);
        ToolRun.Result list = ToolRun.run("list", "--namespace", namespace.toString(), ToolRun.JOB);

        assertThat(list.exitCode()).as(list.err()).isEqualTo(ExitCodes.OK);
        assertThat(list.out()).doesNotContain("would write")
                .contains("not needed: already in savepoint " + older.savepointId());
    }

    private static int checkpointCount(Path namespace) throws Exception {
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            return storage.getAllCheckpoints(ToolRun.JOB).size();
        }
    }
}
