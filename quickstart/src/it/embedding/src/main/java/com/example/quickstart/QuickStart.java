package com.example.quickstart;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.StorageListener;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Job 42 with pipelines 1 and 2: checkpoints, a savepoint, crash recovery, a restore by id, the
 * reader registry, and recovery past a damaged savepoint; then job 43's periodic savepoints, kept by count.
 */
public final class QuickStart {

    public static void main(String[] args) throws Exception {
        Path namespace = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("keepsake");
        long jobId = 42;                          // the engine's numeric job id ...
        String job = Long.toString(jobId);        // ... and the storage's folder name for it

        try (KeepsakeStorage storage = KeepsakeStorage.open("localfile", Map.of("namespace", namespace.toString()))) {
            storage.addListener(new PrintingListener());   // optional: commits, restores, failed verifications
            // Checkpoint 5 of each pipeline, through the legacy calls (SeaTunnel 2.3.x layout and bytes) ...
            for (int pipeline : List.of(1, 2)) {
                byte[] bytes = LegacyCheckpointCodec.encodeCheckpoint(checkpoint(jobId, pipeline, 5, CheckpointType.CHECKPOINT_TYPE));
                storage.storeCheckPoint(new PipelineState(job, pipeline, 5, bytes));
            }
            // ... then stop-with-savepoint as checkpoint 6: each pipeline reports (from any thread) and suspends.
            SavepointHandle savepoint;
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, job, List.of(1, 2)).open()) {
                for (int pipeline : List.of(1, 2)) {
                    session.report(checkpoint(jobId, pipeline, 6, CheckpointType.SAVEPOINT_TYPE));
                    session.pipelineSuspended(pipeline);
                }
                savepoint = session.commit();     // publishes only when every pipeline reported and suspended
            }                                     // close() without commit aborts: nothing becomes visible

            // Crash recovery: each pipeline's newest state (here the savepoint's), and the next checkpoint's id.
            SavepointRestorer restorer = new SavepointRestorer(storage);
            RestoredState latest = recover(restorer, job).orElseThrow();
            System.out.println("recovered " + latest.origins().keySet() + " from " + latest.source()
                    + "; number the next checkpoint " + latest.nextCheckpointId());
            check(latest.source() == RestoredState.Source.SAVEPOINT && latest.nextCheckpointId() == 7,
                    "recovery took " + latest.origins());

            // A restore on purpose: this savepoint, whatever newer checkpoints exist.
            Map<Integer, CompletedCheckpoint> byPipeline = restorer.restoreSavepoint(job, savepoint.savepointId()).checkpoints();
            check(byPipeline.equals(Map.of(1, checkpoint(jobId, 1, 6, CheckpointType.SAVEPOINT_TYPE),
                    2, checkpoint(jobId, 2, 6, CheckpointType.SAVEPOINT_TYPE))), "restored " + byPipeline);

            // The reader registry: one reader per format version; check() verifies every byte without keeping the state.
            SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
            List<Integer> verified = registry.check(storage, savepoint);
            System.out.println("this build reads format versions " + registry.oldestVersion() + " to "
                    + registry.newestVersion() + "; savepoint " + savepoint.savepointId() + " is version "
                    + savepoint.meta().formatVersion() + " and pipelines " + verified + " verify");

            // A newer savepoint, checkpoint 7, with one byte of a payload flipped on disk: recovery refuses it ...
            SavepointHandle damaged;
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, job, List.of(1, 2)).open()) {
                for (int pipeline : List.of(1, 2)) {
                    session.report(checkpoint(jobId, pipeline, 7, CheckpointType.SAVEPOINT_TYPE));
                    session.pipelineSuspended(pipeline);
                }
                damaged = session.commit();
            }
            flipOneByte(Path.of(damaged.location(), damaged.meta().manifest().get(0).file()));
            try {
                restorer.recoverLatest(job);
                check(false, "the damaged savepoint was restored");
            } catch (SavepointCorruptedException e) {
                System.out.println("refused " + damaged.savepointId() + ": " + e.file() + " does not verify");
            }
            // ... unless told to take each pipeline's next newest state instead (logged at error level).
            RestoredState fallback = recover(restorer.withFallbackPastCorrupted(true), job).orElseThrow();
            check(fallback.savepoint().map(SavepointHandle::savepointId).equals(Optional.of(savepoint.savepointId())),
                    "fell back to " + fallback.origins());
            System.out.println("fell back to savepoint " + savepoint.savepointId() + "; number the next checkpoint "
                    + fallback.nextCheckpointId());

            // Periodic savepoints, kept by count: after each commit the oldest periodic ones beyond the
            // limit go (manual savepoints are never deleted but by an operator).
            String periodicJob = "43";
            for (long id = 1; id <= 3; id++) {
                try (SavepointSaveSession session = SavepointSaveSession.builder(storage, periodicJob, List.of(1))
                        .kind(SavepointKind.PERIODIC).periodicMaxRetained(2).open()) {
                    session.report(checkpoint(43, 1, id, CheckpointType.SAVEPOINT_TYPE));
                    session.pipelineSuspended(1);
                    session.commit();
                }
            }
            List<SavepointHandle> kept = storage.listSavepoints(periodicJob);
            check(kept.size() == 2, "kept " + kept);
            System.out.println("periodic savepoints of job " + periodicJob + " kept: " + kept.size() + " of 3");
        }
    }

    /** Crash recovery, and what to do on each typed error (all are SavepointStorageExceptions); empty: nothing to restore. */
    static Optional<RestoredState> recover(SavepointRestorer restorer, String job) {
        try {
            return Optional.of(restorer.recoverLatest(job));
        } catch (SavepointNotFoundException e) {
            return Optional.empty();     // the job has no savepoint and no checkpoint: start it from the beginning
        } catch (SavepointCorruptedException e) {
            throw stop("bytes do not verify: keep it to investigate; restore an older one or use withFallbackPastCorrupted(true)", e);
        } catch (SavepointIncompatibleException e) {
            throw stop("format version outside this build's window: if older, run keepsake migrate; if newer, use the build that wrote it", e);
        } catch (SavepointResourcesExhaustedException e) {
            throw stop("the JVM ran out of heap or stack decoding it, its bytes are not known to be bad: keep it, retry with more -Xmx or -Xss", e);
        } catch (SavepointStorageException e) {
            throw stop("the storage failed while reading, nothing is known to be damaged: delete nothing, retry when it is back", e);
        }
    }

    private static IllegalStateException stop(String whatToDo, RuntimeException e) {
        return new IllegalStateException("Cannot recover: " + whatToDo + " (" + e.getMessage() + ")", e);
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

    /** Flips the last byte of a file, as a damaged disk or a bad copy would. */
    private static void flipOneByte(Path file) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(f.length() - 1);
            int b = f.read();
            f.seek(f.length() - 1);
            f.write(b ^ 0x01);
        }
    }

    /** Metrics hooks: every method defaults to nothing. */
    private static final class PrintingListener implements StorageListener {
        @Override
        public void onCommit(String jobId, String savepointId, long bytes, Duration duration) {
            System.out.printf("committed savepoint %s of job %s: %d bytes in %d ms%n", savepointId, jobId, bytes,
                    duration.toMillis());
        }

        @Override
        public void onRestore(String jobId, String savepointId, long bytes, Duration duration) {
            System.out.printf("restored job %s from savepoint %s: %d bytes verified%n", jobId, savepointId, bytes);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("Unexpected: " + what);
        }
    }

    private QuickStart() {
    }
}
