package io.keepsake.seatunnel;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One pipeline's savepoint failing on the embedded SeaTunnel 2.3.8 engine: creating pipeline 2's
 * payload fails in the storage's file system ({@link FaultyKeepsakeFactory}, {@code fail-payload-2}).
 * With the overlay the job's savepoint is aborted: no bundle, no staging left, no savepoint checkpoint
 * file; the job is put back from DOING_SAVEPOINT to RUNNING when the savepoint aborts, and ends FAILED
 * after the engine's retries (the plugin refuses the pipelines' later checkpoints, as it does alone); restored with the fault gone, it saves both pipelines in one bundle.
 * The control, the plugin alone with the same fault in a child JVM, keeps pipeline 1's savepoint as a
 * bundle of its own: a savepoint of half the job is visible.
 */
class OverlayFailedSavepointTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Duration JOB_END = Duration.ofSeconds(180);

    @Test
    @TimedScenario("overlay failed savepoint scenario (fault, FAILED, restore, savepoint), ms")
    void aFailedPipelineAbortsTheJobSavepointLeavingNothingAndTheJobResumesLater(@TempDir Path dir, Namespace ns,
                                                                                Savepoints savepoints) throws Exception {
        engine.useStorage(FaultyKeepsakeFactory.IDENTIFIER,
                Map.of("namespace", ns.root().toString(), "test.fault", "fail-payload-2"), 5);
        RunningJob job = OverlayJobs.submitTwoPipelines(engine, ns, dir, "failing", WAIT);
        long jobId = job.jobId();

        Figures.record("overlay: stop-with-savepoint with pipeline 2's payload failing, request to FAILED, ms",
                engine.savepointEndingIn(jobId, "FAILED", WAIT, JOB_END));

        String aborted = abortedSavepoint(jobId);
        assertThat(PluginLog.text()).contains("injected fault");
        assertThat(PluginLog.text()).as("the job left DOING_SAVEPOINT when its savepoint aborted")
                .contains("Job " + jobId + " is back from DOING_SAVEPOINT to RUNNING");
        assertThat(savepoints.list(jobId)).as("no bundle of the aborted savepoint").isEmpty();
        Path jobRoot = ns.root().resolve("savepoint").resolve(Long.toString(jobId));
        assertThat(entries(jobRoot.resolve(".staging"))).as("the aborted attempt's staging is removed").isEmpty();
        assertThat(entries(jobRoot)).as("nothing but the staging folder under the job's savepoint root")
                .allMatch(p -> p.getFileName().toString().startsWith("."));
        assertThat(ns.savepointFiles(jobId)).as("no savepoint checkpoint file without its bundle").isEmpty();
        EmbeddedEngine.await("the job's error to name the aborted savepoint", WAIT,
                () -> engine.detail(jobId).contains(aborted));

        // The fault gone (another plugin-config, so another storage), the job resumes and saves whole.
        engine.useStorage(FaultyKeepsakeFactory.IDENTIFIER, Map.of("namespace", ns.root().toString()), 5);
        long lastBefore = Math.max(ns.maxCheckpointId(jobId, 1), ns.maxCheckpointId(jobId, 2));
        job.restore();
        job.awaitAbove("a checkpoint of both pipelines after the restore", 2, lastBefore);
        engine.savepoint(jobId);
        assertThat(savepoints.list(jobId)).singleElement()
                .satisfies(h -> assertThat(h.meta().manifest()).hasSize(2));
    }

    /** The control: the plugin alone, with the same fault, keeps pipeline 1's savepoint on its own. */
    @Test
    @TimedScenario("overlay control (plugin alone, pipeline 2's payload failing: pipeline 1 kept alone), ms")
    void withoutTheOverlayTheSameFaultLeavesHalfTheJobSaved(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        Path conf = OverlayJobs.twoPipelines(dir, "failing-control");
        try (OverlayChild child = OverlayChild.start(dir, "failed-control", false, "request-savepoint", conf,
                FaultyKeepsakeFactory.IDENTIFIER, Map.of("namespace", ns.root().toString(), "test.fault",
                        "fail-payload-2", "pipelines", "2"))) {
            long jobId = child.awaitJob(WAIT);
            child.await("REQUESTED", WAIT);
            EmbeddedEngine.await("pipeline 1's savepoint kept by the plugin alone", WAIT, () -> {
                try {
                    return !savepoints.list(jobId).isEmpty();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            List<SavepointHandle> kept = savepoints.list(jobId);
            assertThat(kept).singleElement().satisfies(h -> {
                assertThat(h.meta().manifest()).hasSize(1);
                assertThat(h.meta().manifest().get(0).pipelineId()).isEqualTo(1);
            });
            Pattern failedP2 = Pattern.compile("Cannot keep savepoint st-\\d+-p2 of job " + jobId + ".*injected fault");
            EmbeddedEngine.await("the plugin's error about pipeline 2's savepoint", WAIT,
                    () -> failedP2.matcher(PluginLog.read(OverlayChild.log("failed-control"))).find());
        }
    }

    private static String abortedSavepoint(long jobId) {
        Matcher m = Pattern.compile("Aborted savepoint (\\S+) of job " + jobId).matcher(PluginLog.text());
        assertThat(m.find()).as("the session of job %s was aborted", jobId).isTrue();
        return m.group(1);
    }

    static List<Path> entries(Path dir) throws java.io.IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (var s = Files.list(dir)) {
            return s.toList();
        }
    }
}
