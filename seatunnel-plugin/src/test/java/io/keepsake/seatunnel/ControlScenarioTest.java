package io.keepsake.seatunnel;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 1, the control: with SeaTunnel's own {@code localfile} plugin, stream -> savepoint ->
 * restore ({@code -r}) -> cancel deletes the savepoint. Asserting the loss proves the other
 * scenarios exercise the real failure.
 */
class ControlScenarioTest extends WithEmbeddedEngine {

    @BeforeAll
    static void recordEngineStart() {
        Figures.record("engine start (member + client), ms", engine.startMillis);
    }

    @Test
    void seatunnelsOwnLocalfilePluginLosesTheSavepointOnCancelAfterRestore(@TempDir Path dir) throws Exception {
        long t0 = System.nanoTime();
        Namespace ns = Namespace.writtenInPlace(dir.resolve("ns"));
        engine.useStorage("localfile", Map.of("namespace", ns.root() + "/"), 5);
        Path conf = Jobs.streaming(dir, "control", 1, 1000);

        long jobId = engine.submitRunning(conf, Duration.ofSeconds(60));
        EmbeddedEngine.await("two checkpoints", Duration.ofSeconds(60), () -> ns.checkpoints(jobId).size() >= 2);
        engine.savepoint(jobId);
        assertThat(ns.savepointFiles(jobId)).hasSize(1);
        long savepointId = ns.savepointFiles(jobId).get(0).checkpointId();

        engine.restoreRunning(conf, jobId, Duration.ofSeconds(60));
        EmbeddedEngine.await("a checkpoint after the restore", Duration.ofSeconds(60),
                () -> ns.maxCheckpointId(jobId, 1) > savepointId);
        engine.cancel(jobId);

        EmbeddedEngine.await("the terminal cleanup", Duration.ofSeconds(30), () -> ns.filesOfJob(jobId).isEmpty());
        assertThat(ns.jobDir(jobId)).doesNotExist();
        assertThat(ns.savepointFiles(jobId)).as("the savepoint is lost").isEmpty();
        Figures.record("scenario 1 (control, SeaTunnel's localfile loses the savepoint), ms",
                KeepsakePluginScenariosTest.millisSince(t0));
    }
}
