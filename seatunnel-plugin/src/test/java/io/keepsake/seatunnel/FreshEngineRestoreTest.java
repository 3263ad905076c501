package io.keepsake.seatunnel;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

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
    @TimedScenario("scenario 7 (save on one engine, restore on a fresh one; two engine starts), ms")
    void aFreshEngineRestoresAJobThePreviousEngineSaved(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        Map<String, String> config = Map.of("namespace", ns.root().toString());
        RunningJob job;
        long savepointId;
        try (EmbeddedEngine first = EmbeddedEngine.start()) {
            first.useStorage("keepsake", config, 5);
            job = RunningJob.submit(first, ns, Jobs.streaming(dir, "fresh", 1, 1000), WAIT);
            savepointId = job.savepointAfter(2);
        }

        long jobId = job.jobId();
        try (EmbeddedEngine second = EmbeddedEngine.start()) {
            second.useStorage("keepsake", config, 5);
            RunningJob restored = job.on(second);
            restored.restoreAbove(savepointId, "a checkpoint after the restore");
            assertThat(ns.checkpoints(jobId)).as("checkpoint ids continue from the savepoint's + 1")
                    .anySatisfy(f -> assertThat(f.checkpointId()).isEqualTo(savepointId + 1));
            restored.cancelAndAwaitCleanup("the terminal cleanup");
            List<SavepointHandle> kept = savepoints.list(jobId);
            assertThat(kept).singleElement()
                    .satisfies(h -> assertThat(h.meta().entryForPipeline(1).checkpointId()).isEqualTo(savepointId));
            assertThat(savepoints.verify(kept.get(0))).containsOnlyKeys(1);
        }
    }
}
