package com.example.quickstart;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.StorageListener;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Checkpoints, a savepoint, crash recovery and a restore by id for job 42 with pipelines 1 and 2. */
public final class QuickStart {

    public static void main(String[] args) throws Exception {
        Path namespace = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("keepsake");
        long jobId = 42;                          // the engine's numeric job id ...
        String job = Long.toString(jobId);        // ... and the storage's folder name for it

        // Every backend's factory returns a KeepsakeStorage: legacy checkpoints and savepoints in one object.
        try (KeepsakeStorage storage = (KeepsakeStorage) CheckpointStorageFactories.find("localfile")
                .create(Map.of("namespace", namespace.toString()))) {
            storage.addListener(new StorageListener() {
                @Override
                public void onCommit(String jobId, String savepointId, long bytes, Duration duration) {
                    System.out.printf("committed savepoint %s of job %s: %d bytes in %d ms%n",
                            savepointId, jobId, bytes, duration.toMillis());
                }

                @Override
                public void onRestore(String jobId, String savepointId, long bytes, Duration duration) {
                    System.out.printf("restored job %s from savepoint %s: %d bytes verified%n", jobId, savepointId, bytes);
                }
            });

            // Checkpoint 5 of each pipeline, through the legacy calls (SeaTunnel 2.3.x layout and bytes).
            for (int pipeline : List.of(1, 2)) {
                CompletedCheckpoint cp = checkpoint(jobId, pipeline, 5, CheckpointType.CHECKPOINT_TYPE);
                storage.storeCheckPoint(new PipelineState(job, pipeline, 5, LegacyCheckpointCodec.encodeCheckpoint(cp)));
            }

            // Stop-with-savepoint as checkpoint 6: each pipeline reports, from any thread, then suspends.
            SavepointHandle savepoint;
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, job, List.of(1, 2))
                    .timeout(Duration.ofMinutes(10)).open()) {
                for (int pipeline : List.of(1, 2)) {
                    session.report(checkpoint(jobId, pipeline, 6, CheckpointType.SAVEPOINT_TYPE));
                    session.pipelineSuspended(pipeline);
                }
                savepoint = session.commit();     // publishes only when every pipeline reported and suspended
            }                                     // close() without commit aborts: nothing becomes visible
            System.out.println("savepoint " + savepoint.savepointId() + " at " + savepoint.location());

            // Crash recovery: the newest completed state of each pipeline, here the savepoint (checkpoint 6).
            SavepointRestorer restorer = new SavepointRestorer(storage);
            RestoredState latest = restorer.recoverLatest(job);
            check(latest.source() == RestoredState.Source.SAVEPOINT, "recovery took " + latest.source());
            check(latest.nextCheckpointId() == 7, "next checkpoint id " + latest.nextCheckpointId());

            // A restore on purpose: this savepoint, whatever newer checkpoints exist.
            RestoredState restored = restorer.restoreSavepoint(job, savepoint.savepointId());
            Map<Integer, CompletedCheckpoint> byPipeline = restored.checkpoints();   // what the engine deploys
            check(byPipeline.equals(Map.of(1, checkpoint(jobId, 1, 6, CheckpointType.SAVEPOINT_TYPE),
                    2, checkpoint(jobId, 2, 6, CheckpointType.SAVEPOINT_TYPE))), "restored " + byPipeline);
            System.out.println("restored pipelines " + byPipeline.keySet() + "; number the next checkpoint "
                    + latest.nextCheckpointId());
        }
    }

    /** One pipeline's checkpoint: a source action with two subtasks, each with some state bytes. */
    static CompletedCheckpoint checkpoint(long jobId, int pipeline, long checkpointId, CheckpointType type) {
        ActionStateKey source = ActionStateKey.of("pipeline-" + pipeline + "-source");
        List<ActionSubtaskState> subtasks = List.of(
                new ActionSubtaskState(source, 0, List.of(("offset=" + checkpointId * 100).getBytes(StandardCharsets.UTF_8))),
                new ActionSubtaskState(source, 1, List.of(("offset=" + checkpointId * 200).getBytes(StandardCharsets.UTF_8))));
        ActionState state = new ActionState(source, subtasks, null, subtasks.size());   // no coordinator state
        long completed = 1_700_000_000_000L + checkpointId * 1_000;
        return new CompletedCheckpoint(jobId, pipeline, checkpointId, completed - 200, type, completed,
                Map.of(source, state), Map.of());                                        // no vertex statistics
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("Unexpected: " + what);
        }
    }

    private QuickStart() {
    }
}
