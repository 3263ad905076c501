package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.seatunnel.engine.JobSavepoints;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import org.apache.seatunnel.engine.server.checkpoint.CheckpointCoordinator;
import org.apache.seatunnel.engine.server.checkpoint.CheckpointManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The design's scenario on the released SeaTunnel 2.3.8 engine with the overlay, on a job of two
 * pipelines: stop-with-savepoint, a new engine as the upgrade, {@code -r}, the job finishes; {@code -r}
 * again from the bundle, cancel; the bundle (one, with both pipelines) is still there. Then the
 * overlay is removed (a child JVM without its classes) and the plugin alone restores the same bundle.
 * The control runs the same stop-with-savepoint without the overlay: one bundle per pipeline.
 */
@ExtendWith(ScenarioNamespace.class)
class OverlayScenarioTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    /** FakeSource reads one split a second: the batch job runs about this many seconds from the start. */
    private static final int SPLITS = 16;

    @Test
    void theOverlayIsTheEngineCodeLoadedInTheTestJvm() {
        assertThat(location(CheckpointManager.class)).isEqualTo(OverlayChild.OVERLAY_CLASSES);
        assertThat(location(CheckpointCoordinator.class)).isEqualTo(OverlayChild.OVERLAY_CLASSES);
        assertThat(location(JobSavepoints.class)).isEqualTo(OverlayChild.OVERLAY_CLASSES);
    }

    @Test
    void twoPipelineSavepointIsOneBundleThatSurvivesFinishAndCancelAndRestoresWithoutTheOverlay(@TempDir Path dir,
            Namespace ns, Savepoints savepoints) throws Exception {
        long t0 = System.nanoTime();
        Map<String, String> config = Map.of("namespace", ns.root().toString());
        Path conf = OverlayJobs.write(dir, "two-pipelines", "BATCH", 2, SPLITS, 2000, Map.of());

        // 1. Stop with a savepoint on a first engine.
        RunningJob job;
        long jobId;
        Map<Integer, Long> saved = new TreeMap<>();
        SavepointHandle bundle;
        try (EmbeddedEngine engine = EmbeddedEngine.start()) {
            engine.useStorage("keepsake", config, 5);
            job = RunningJob.submit(engine, ns, conf, WAIT);
            jobId = job.jobId();
            job.awaitAbove("a checkpoint of both pipelines", 2, 0);
            engine.savepoint(jobId);
            ns.savepointFiles(jobId).forEach(f -> saved.put(f.pipelineId(), f.checkpointId()));
            assertThat(saved).as("a savepoint checkpoint file per pipeline").containsOnlyKeys(1, 2);
            List<SavepointHandle> kept = savepoints.list(jobId);
            assertThat(kept).as("one bundle for the job's savepoint").hasSize(1);
            bundle = kept.get(0);
            assertThat(bundle.meta().payloadFormat()).isEqualTo("engine-wire-v1");
            Map<Integer, Long> inBundle = new TreeMap<>();
            for (ManifestEntry e : bundle.meta().manifest()) {
                inBundle.put(e.pipelineId(), e.checkpointId());
            }
            assertThat(inBundle).as("the bundle holds both pipelines at their savepoint").isEqualTo(saved);
            assertThat(savepoints.verify(bundle).values()).extracting(CompletedCheckpoint::checkpointType)
                    .containsOnly(CheckpointType.SAVEPOINT_TYPE);
        }
        assertThat(PluginLog.text()).contains("Committed savepoint " + bundle.savepointId() + " of job " + jobId
                + " with pipelines [1, 2]");
        long above = Math.max(saved.get(1), saved.get(2));

        // 2. The upgrade: a new engine restores (-r) from the bundle and the job finishes.
        try (EmbeddedEngine engine = EmbeddedEngine.start()) {
            engine.useStorage("keepsake", config, 5);
            engine.restore(conf, jobId);
            engine.awaitStatus(jobId, "FINISHED", Duration.ofSeconds(150));
            for (int p = 1; p <= 2; p++) {
                assertThat(PluginLog.text()).contains("Job " + jobId + " pipeline " + p + ": restoring checkpoint "
                        + saved.get(p) + " from savepoint " + bundle.savepointId());
            }
            EmbeddedEngine.await("the terminal cleanup after FINISHED", WAIT, () -> !Files.exists(ns.jobDir(jobId)));
            assertThat(savepoints.list(jobId)).as("the bundle survives the finish").singleElement()
                    .extracting(SavepointHandle::savepointId).isEqualTo(bundle.savepointId());

            // 3. -r again: the bundle is all that is left, and it restores again; then cancel.
            restoreAfterFinish(engine, conf, jobId);
            RunningJob restored = job.on(engine);
            restored.awaitAbove("a checkpoint of both pipelines after the second restore", 2, above);
            restored.cancelAndAwaitCleanup("the terminal cleanup after CANCELED");
            assertThat(savepoints.list(jobId)).as("the bundle survives the cancel").singleElement()
                    .satisfies(h -> assertThat(savepoints.verify(h)).containsOnlyKeys(1, 2));
        }
        Figures.record("overlay scenario (two pipelines: savepoint, new engine, -r, finish, -r, cancel), ms",
                KeepsakePluginScenariosTest.millisSince(t0));

        // 4. The overlay removed: the plugin alone restores the same bundle (both pipelines) in a child JVM.
        long t1 = System.nanoTime();
        try (OverlayChild child = OverlayChild.start(dir, "removed", false, "restore", conf, "keepsake",
                Map.of("namespace", ns.root().toString(), "pipelines", "2", "job", Long.toString(jobId),
                        "above", Long.toString(above)))) {
            child.await("RESTORED", WAIT);
            child.await("CANCELED", WAIT);
            assertThat(child.awaitExit(WAIT)).isZero();
        }
        String childLog = Files.readString(OverlayChild.log("removed"));
        for (int p = 1; p <= 2; p++) {
            assertThat(childLog).contains("Job " + jobId + " pipeline " + p + ": newest state is savepoint "
                    + bundle.savepointId());
        }
        assertThat(savepoints.list(jobId)).singleElement().extracting(SavepointHandle::savepointId)
                .isEqualTo(bundle.savepointId());
        Figures.record("overlay removed: the plugin alone restores the overlay's bundle in a child JVM, ms",
                KeepsakePluginScenariosTest.millisSince(t1));
    }

    /** The control: the same two-pipeline stop-with-savepoint without the overlay keeps one bundle per pipeline. */
    @Test
    @TimedScenario("overlay control (plugin alone, two pipelines: one bundle per pipeline), ms")
    void withoutTheOverlayTheSameSavepointIsOneBundlePerPipeline(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        Path conf = OverlayJobs.write(dir, "control", "STREAMING", 2, Jobs.PROGRESS_SPLITS, 2000, Map.of());
        long jobId;
        try (OverlayChild child = OverlayChild.start(dir, "control", false, "savepoint", conf, "keepsake",
                Map.of("namespace", ns.root().toString(), "pipelines", "2"))) {
            jobId = child.awaitJob(WAIT);
            child.await("SAVED", WAIT);
            assertThat(child.awaitExit(WAIT)).isZero();
        }
        List<SavepointHandle> kept = savepoints.list(jobId);
        assertThat(kept).as("the plugin alone: one bundle per pipeline, not atomic together").hasSize(2)
                .allSatisfy(h -> assertThat(h.meta().manifest()).hasSize(1));
        assertThat(kept).extracting(h -> h.meta().manifest().get(0).pipelineId()).containsExactlyInAnyOrder(1, 2);
    }

    /** After a FINISHED run the engine may answer a restore with the finished run for a moment: submit until it runs. */
    static void restoreAfterFinish(EmbeddedEngine engine, Path conf, long jobId) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            engine.restore(conf, jobId);
            if (EmbeddedEngine.poll(Duration.ofSeconds(10), () -> "RUNNING".equals(engine.status(jobId)))) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Job " + jobId + " did not run again after restores for " + WAIT + ": "
                        + engine.status(jobId));
            }
        }
    }

    static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath().normalize();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
