package io.keepsake.seatunnel;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Scenario 7: a new engine (a fresh member on the same namespace) restores a job the previous one saved. */
@ExtendWith(ScenarioNamespace.class)
class FreshEngineRestoreTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aFreshEngineRestoresAJobThePreviousEngineSaved(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        long t0 = System.nanoTime();
        Map<String, String> config = Map.of("namespace", ns.root().toString());
        Path conf = Jobs.streaming(dir, "fresh", 1, 1000);

        long jobId;
        long savepointId;
        try (EmbeddedEngine first = EmbeddedEngine.start()) {
            first.useStorage("keepsake", config, 5);
            jobId = first.submit(conf);
            first.awaitStatus(jobId, "RUNNING", WAIT);
            EmbeddedEngine.await("two checkpoints", WAIT, () -> ns.checkpoints(jobId).size() >= 2);
            first.savepoint(jobId);
            savepointId = ns.savepointFiles(jobId).get(0).checkpointId();
        }

        try (EmbeddedEngine second = EmbeddedEngine.start()) {
            second.useStorage("keepsake", config, 5);
            second.restoreRunning(conf, jobId, WAIT);
            EmbeddedEngine.await("a checkpoint after the restore", WAIT, () -> ns.maxCheckpointId(jobId, 1) > savepointId);
            assertThat(ns.checkpoints(jobId)).as("checkpoint ids continue from the savepoint's + 1")
                    .anySatisfy(f -> assertThat(f.checkpointId()).isEqualTo(savepointId + 1));
            second.cancel(jobId);
            EmbeddedEngine.await("the terminal cleanup", WAIT, () -> !Files.exists(ns.jobDir(jobId)));
            List<SavepointHandle> kept = savepoints.list(jobId);
            assertThat(kept).singleElement()
                    .satisfies(h -> assertThat(h.meta().entryForPipeline(1).checkpointId()).isEqualTo(savepointId));
            assertThat(savepoints.verify(kept.get(0))).containsOnlyKeys(1);
        }
        Figures.record("scenario 7 (save on one engine, restore on a fresh one; two engine starts), ms",
                KeepsakePluginScenariosTest.millisSince(t0));
    }
}
