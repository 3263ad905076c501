package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The overlay's scenario on the shared storages a cluster uses: the HDFS mini cluster
 * ({@link MiniHdfsProcess}, {@code storage.type: hdfs}) and S3 through S3Proxy ({@link S3ProxyProcess},
 * {@code storage.type: s3}), one embedded 2.3.8 engine with the overlay for the class. A streaming job
 * of two pipelines checkpoints; {@code -s} keeps ONE bundle holding both pipelines at the checkpoint
 * ids of the savepoint {@code .ser} files, and it verifies; {@code -r} restores both pipelines from
 * that bundle (the overlay's log line) and each pipeline's first checkpoint after continues from the
 * bundle's reader state; after {@code cancel} and the engine's cleanup of the job's checkpoint folder
 * the bundle is still listed and verifies. Everything is read through Keepsake's own backend
 * ({@link SharedBackend}), not through the plugin under test. With {@code -Poverlay-long} the job goes
 * through three rounds of {@code -s} and {@code -r} before the cancel: three bundles, each whole.
 */
class OverlayBackendsTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final boolean LONG = Boolean.getBoolean("keepsake.overlay.long");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hdfs", "s3"})
    void oneSavepointIsOneBundleOfBothPipelinesThatRestoresAndSurvivesTheCancel(String backend, @TempDir Path dir)
            throws Exception {
        long t0 = System.nanoTime();
        String label = "overlay on " + backend;
        Path conf = Jobs.streamingWithProgress(dir, "overlay-" + backend, 2, 1000);
        try (SharedBackend ns = SharedBackend.start(backend, dir)) {
            long started = System.nanoTime();
            engine.useStorage("keepsake", ns.pluginConfig(), 5);
            long jobId = engine.submitRunning(conf, WAIT);
            ClusterSteps.awaitCheckpointsWithProgress(ns, jobId, 1, WAIT);

            List<String> kept = new ArrayList<>();
            for (int round = 1; round <= (LONG ? 3 : 1); round++) {
                long s = System.nanoTime();
                engine.savepoint(jobId);
                Figures.record(label + ", round " + round + ": -s -> SAVEPOINT_DONE, ms",
                        KeepsakePluginScenariosTest.millisSince(s));
                List<SavepointHandle> listed = ns.savepoints().list(jobId);
                assertThat(listed).as("one more bundle for the job's savepoint (round %s)", round).hasSize(round);
                SavepointHandle bundle = listed.stream().filter(h -> !kept.contains(h.savepointId())).findFirst()
                        .orElseThrow();
                kept.add(bundle.savepointId());
                assertThat(bundle.savepointId()).startsWith("sp-");
                Map<Integer, Long> inBundle = new TreeMap<>();
                for (ManifestEntry e : bundle.meta().manifest()) {
                    inBundle.put(e.pipelineId(), e.checkpointId());
                }
                assertThat(inBundle).as("the bundle holds both pipelines").containsOnlyKeys(1, 2);
                assertThat(ns.newestCheckpointIds(jobId)).as("the savepoint .ser files, published after the commit,"
                        + " are the bundle's checkpoints").isEqualTo(inBundle);
                Map<Integer, CompletedCheckpoint> read = ns.savepoints().verify(bundle);
                assertThat(read).containsOnlyKeys(1, 2);
                Map<Integer, FakeSourceProgress> saved = new TreeMap<>();
                read.forEach((pipeline, c) -> saved.put(pipeline, FakeSourceProgress.of(c)));
                saved.values().forEach(p -> p.requireUnderWay(Jobs.PROGRESS_SPLITS, "at the savepoint"));

                long r = System.nanoTime();
                engine.restoreRunning(conf, jobId, WAIT);
                for (int p = 1; p <= 2; p++) {
                    int pipeline = p;
                    EmbeddedEngine.await("pipeline " + p + " restored from " + bundle.savepointId(), WAIT,
                            () -> PluginLog.text().contains("Job " + jobId + " pipeline " + pipeline
                                    + ": restoring checkpoint " + inBundle.get(pipeline) + " from savepoint "
                                    + bundle.savepointId()));
                }
                ns.awaitFirstCheckpointsAfter(jobId, inBundle, WAIT).forEach((pipeline, state) ->
                        FakeSourceProgress.of(state).requireResumedFrom(saved.get(pipeline), Jobs.PROGRESS_SPLITS));
                Figures.record(label + ", round " + round + ": -r -> a checkpoint of both pipelines, ms",
                        KeepsakePluginScenariosTest.millisSince(r));
            }

            engine.cancel(jobId);
            EmbeddedEngine.await("the engine's cleanup of the job's checkpoint files after CANCELED", WAIT,
                    () -> ns.newestCheckpointIds(jobId).isEmpty());
            List<SavepointHandle> after = ns.savepoints().list(jobId);
            assertThat(after).extracting(SavepointHandle::savepointId).as("the bundles survive the cancel")
                    .containsExactlyInAnyOrderElementsOf(kept);
            for (SavepointHandle h : after) {
                assertThat(ns.savepoints().verify(h)).containsOnlyKeys(1, 2);
            }
            Figures.record(label + ": job submitted to bundles verified after the cancel, ms",
                    KeepsakePluginScenariosTest.millisSince(started));
        }
        Figures.record(label + ": whole case with the backend's start and stop, ms",
                KeepsakePluginScenariosTest.millisSince(t0));
    }
}
