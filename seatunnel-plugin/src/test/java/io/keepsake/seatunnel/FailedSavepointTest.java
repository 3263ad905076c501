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
 * On the embedded SeaTunnel 2.3.8 engine: stop-with-savepoint ({@code seatunnel.sh -s})
 * when the savepoint root cannot take the bundle while the namespace stays writable. Without the
 * plugin's refusal of later checkpoints the engine restarts the pipeline and the job stays in
 * {@code DOING_SAVEPOINT} for good; with it the job ends {@code FAILED} after the engine's retries.
 *
 * <p>The savepoint root is made unusable for the job by a regular file where the job's savepoint
 * folder goes: unlike a read-only mode it also stops a test run as root.
 */
class FailedSavepointTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** About four pipeline restarts of 3 s each plus a checkpoint interval; generous for a busy machine. */
    private static final Duration JOB_END = Duration.ofSeconds(180);
    private static final Pattern FAILED_SAVEPOINT = Pattern.compile("Cannot keep savepoint st-(\\d{19})-p1 of job (\\d+)");

    @Test
    void stopWithASavepointThatCannotBeKeptEndsTheJobFailedAndItResumesFromItsLastCheckpoint(@TempDir Path dir)
            throws Exception {
        Namespace ns = new Namespace(dir.resolve("ns"));
        // An explicit savepoint.path must exist (a mistyped one is refused at submission).
        Path savepointRoot = Files.createDirectories(dir.resolve("savepoints"));
        Map<String, String> config = Map.of("namespace", ns.root().toString(), "savepoint.path", savepointRoot.toString());
        engine.useStorage("keepsake", config, 5);
        Path conf = Jobs.streaming(dir, "failed-savepoint", 1, 1000);
        long jobId = engine.submitRunning(conf, WAIT);
        EmbeddedEngine.await("two checkpoints", WAIT, () -> ns.checkpoints(jobId).size() >= 2);
        Path blocker = savepointRoot.resolve(Long.toString(jobId));
        Files.writeString(blocker, "a file where the job's savepoint folder goes");

        Figures.record("stop-with-savepoint whose bundle cannot be kept: request to FAILED, ms",
                engine.savepointEndingIn(jobId, "FAILED", WAIT, JOB_END));

        long failedAt = failedSavepointCheckpoint(jobId);
        String savepointId = KeepsakeCheckpointStorage.savepointId(failedAt, 1);
        // the engine fills in the job's error message when it archives the job, a moment after FAILED
        EmbeddedEngine.await("the job's error message to name " + savepointId, WAIT,
                () -> engine.detail(jobId).contains(savepointId));
        assertThat(ns.savepointFiles(jobId)).as("no savepoint file without its bundle").isEmpty();
        long lastCheckpoint = ns.maxCheckpointId(jobId, 1);
        assertThat(lastCheckpoint).as("nothing stored after the failed savepoint").isLessThan(failedAt);

        Files.delete(blocker);
        engine.restoreRunning(conf, jobId, WAIT);
        EmbeddedEngine.await("a checkpoint after the failed savepoint's id", WAIT,
                () -> ns.maxCheckpointId(jobId, 1) > failedAt);
        engine.savepoint(jobId);
        List<SavepointHandle> kept = new Savepoints("localfile", config).list(jobId);
        assertThat(kept).as("a savepoint once the root is usable").singleElement()
                .satisfies(h -> assertThat(h.meta().entryForPipeline(1).checkpointId()).isGreaterThan(failedAt));
    }

    /** The checkpoint id of the savepoint the plugin could not keep, from its ERROR line. */
    private static long failedSavepointCheckpoint(long jobId) {
        Matcher m = FAILED_SAVEPOINT.matcher(PluginLog.text());
        while (m.find()) {
            if (m.group(2).equals(Long.toString(jobId))) {
                return Long.parseLong(m.group(1));
            }
        }
        throw new AssertionError("The plugin logged no failed savepoint of job " + jobId);
    }
}
