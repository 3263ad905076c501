package io.keepsake.seatunnel;

import io.keepsake.storage.SavepointHandle;
import org.apache.seatunnel.engine.server.task.record.Barrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A savepoint ({@code seatunnel.sh -s}) refused before any task stopped, with the overlay on the
 * embedded SeaTunnel 2.3.8 engine: the engine sets the job to {@code DOING_SAVEPOINT} before the
 * overlay sees the request, and nothing in the released engine sets it back. Here the job must be
 * {@code RUNNING} again within a generous deadline, keep checkpointing, and the caller's {@code -s}
 * must fail with a message naming the job and the cause; nothing of the savepoint is left (no bundle,
 * no {@code .staging}, no savepoint {@code .ser}).
 *
 * <ul>
 *   <li>the savepoint root cannot take the job's savepoint (a regular file where the job's folder
 *   goes): the overlay cannot open the session; once the root is usable a new {@code -s} keeps one
 *   bundle of both pipelines;</li>
 *   <li>the engine's own refusal: a batch job whose pipeline 1 has finished, so that its checkpoint
 *   coordinator refuses a savepoint ({@code CheckpointCoordinator shutdown.}, the branch of
 *   {@code startSavepoint} just before its "Task not all ready" one); pipeline 2 must go on, not be
 *   stopped and then failed by a savepoint that cannot be whole.</li>
 * </ul>
 */
class OverlaySavepointStatusTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    @TimedScenario("overlay: refused savepoint (root unusable), RUNNING, checkpoints, savepoint once usable, ms")
    void aSavepointRootThatCannotBeUsedRefusesTheRequestAndTheJobRunsOn(@TempDir Path dir, Namespace ns) throws Exception {
        Path savepointRoot = Files.createDirectories(dir.resolve("savepoints"));
        Map<String, String> config = Map.of("namespace", ns.root().toString(), "savepoint.path", savepointRoot.toString());
        engine.useStorage("keepsake", config, 5);
        long jobId = OverlayJobs.submitTwoPipelines(engine, ns, dir, "refused-root", WAIT).jobId();
        Path blocker = savepointRoot.resolve(Long.toString(jobId));
        Files.writeString(blocker, "a file where the job's savepoint folder goes");

        String told = refusedThenRunning(jobId, "overlay: -s with the savepoint root unusable, request to RUNNING again, ms");
        assertThat(told).as("the -s caller's error").contains(blocker.toString()).contains("RUNNING");
        long p1 = ns.maxCheckpointId(jobId, 1);
        long p2 = ns.maxCheckpointId(jobId, 2);
        EmbeddedEngine.await("both pipelines to checkpoint on after the refusal", WAIT,
                () -> ns.maxCheckpointId(jobId, 1) > p1 && ns.maxCheckpointId(jobId, 2) > p2);
        assertThat(engine.status(jobId)).isEqualTo("RUNNING");
        assertThat(ns.savepointFiles(jobId)).as("no savepoint checkpoint file").isEmpty();
        assertThat(Files.isRegularFile(blocker)).as("nothing written in place of the blocker").isTrue();

        Files.delete(blocker);
        engine.savepoint(jobId);
        List<SavepointHandle> kept = new Savepoints("localfile", config).list(jobId);
        assertThat(kept).as("one savepoint once the root is usable").singleElement()
                .satisfies(h -> assertThat(h.meta().manifest()).hasSize(2));
        assertThat(OverlayFailedSavepointTest.entries(blocker.resolve(".staging"))).as("no staging left").isEmpty();
    }

    @Test
    @TimedScenario("overlay: refused savepoint (finished pipeline), RUNNING, checkpoint, cancel, ms")
    void theEnginesOwnRefusalOfASavepointLeavesTheJobRunning(@TempDir Path dir, Namespace ns) throws Exception {
        engine.useStorage("keepsake", Map.of("namespace", ns.root().toString()), 5);
        Path conf = batchOfUnevenPipelines(dir);
        long jobId = engine.submitRunning(conf, WAIT);
        String finished = "pending checkpoint(" + Barrier.PREPARE_CLOSE_BARRIER_ID + "/1@" + jobId + ") notify finished";
        EmbeddedEngine.await("pipeline 1's coordinator to finish", WAIT, () -> EngineLog.text().contains(finished));
        // and the pipeline itself: 2.3.8's cancel (JobMaster, then SubPlan) and a pipeline's end (SubPlan, then
        // JobMaster) take the same two locks in opposite orders, and a cancel that meets pipeline 1's end hangs
        String pipeline1Finished = "pipelineId=1)\":{\"pipelineStatus\":\"FINISHED\"";
        EmbeddedEngine.await("pipeline 1 to finish", WAIT, () -> engine.detail(jobId).contains(pipeline1Finished));
        long before = ns.maxCheckpointId(jobId, 2);
        EmbeddedEngine.await("a checkpoint of pipeline 2 after pipeline 1 finished", WAIT,
                () -> ns.maxCheckpointId(jobId, 2) > before);

        String told = refusedThenRunning(jobId,
                "overlay: -s refused by a finished pipeline's coordinator, request to RUNNING again, ms");
        assertThat(told).as("the -s caller's error").contains("pipeline 1").contains("CheckpointCoordinator shutdown");
        long p2 = ns.maxCheckpointId(jobId, 2);
        EmbeddedEngine.await("pipeline 2 to checkpoint on after the refusal", WAIT,
                () -> ns.maxCheckpointId(jobId, 2) > p2);
        assertThat(engine.status(jobId)).isEqualTo("RUNNING");
        assertThat(ns.savepointFiles(jobId)).as("no savepoint checkpoint file").isEmpty();
        assertThat(Savepoints.local(ns).list(jobId)).as("no bundle").isEmpty();
        assertThat(OverlayFailedSavepointTest.entries(ns.root().resolve("savepoint").resolve(Long.toString(jobId))))
                .as("no staging left").isEmpty();
        engine.cancel(jobId);
    }

    /**
     * Asks for a savepoint, which must fail naming the job, and waits for the job to be RUNNING again;
     * records how long that took as {@code figure} and returns the messages of the caller's exception chain.
     */
    private static String refusedThenRunning(long jobId, String figure) throws Exception {
        long t1 = System.nanoTime();
        String told = refusedSavepoint(jobId);
        engine.awaitStatus(jobId, "RUNNING", WAIT);
        Figures.record(figure, KeepsakePluginScenariosTest.millisSince(t1));
        assertThat(told).as("the -s caller's error").contains("Cannot start a savepoint of job " + jobId);
        return told;
    }

    /** Asks for a savepoint, which must fail; returns the messages of the caller's exception chain. */
    private static String refusedSavepoint(long jobId) throws Exception {
        Throwable error = CompletableFuture.supplyAsync(() -> {
            try {
                engine.requestSavepoint(jobId);
                return null;
            } catch (RuntimeException e) {
                return (Throwable) e;
            }
        }).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(error).as("the -s call of job %s fails", jobId).isNotNull();
        StringBuilder chain = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause()) {
            chain.append(t.getClass().getName()).append(": ").append(t.getMessage()).append('\n');
        }
        return chain.toString();
    }

    /** A batch job: pipeline 1 of two FakeSource splits (about 2 s), pipeline 2 of many (longer than the test). */
    private static Path batchOfUnevenPipelines(Path dir) throws IOException {
        return Jobs.write(dir, "uneven", "BATCH", 1000, new int[] {2, Jobs.PROGRESS_SPLITS}, Map.of());
    }
}
