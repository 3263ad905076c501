package io.keepsake.seatunnel;

import io.keepsake.seatunnel.engine.JobSavepoints;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.internal.MetadataCodec;
import io.keepsake.storage.internal.NewestMarkers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restores with the overlay on the embedded SeaTunnel 2.3.8 engine that choose what they start from:
 * a savepoint named by the job option {@value JobSavepoints#RESTORE_SAVEPOINT_OPTION} (an older one
 * than the newest state); the same option once the job has checkpointed past its savepoints (a new
 * engine after the first was lost, as a master failover re-reads the job's options): the newest state
 * wins; a name that is no savepoint, and a bundle whose format version is outside the reader
 * registry's window, which {@code -r} refuses at submission with the registry's message.
 */
class OverlayRestoreChoiceTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    @TimedScenario("overlay restore choice (two savepoints, restore of the older by id, two refusals), ms")
    void theJobOptionRestoresAnOlderSavepointAndOtherChoicesAreRefusedAtSubmission(@TempDir Path dir, Namespace ns,
                                                                                  Savepoints savepoints) throws Exception {
        engine.useStorage("keepsake", Map.of("namespace", ns.root().toString()), 5);
        RunningJob job = OverlayJobs.submitTwoPipelines(engine, ns, dir, "choice", WAIT);
        long jobId = job.jobId();
        Path conf = job.conf();
        engine.savepoint(jobId);
        SavepointHandle first = savepoints.list(jobId).get(0);
        long firstTop = top(first);

        engine.restoreRunning(conf, jobId, WAIT);
        job.awaitAbove("two checkpoints of both pipelines after the restore", 2, firstTop + 1);
        engine.savepoint(jobId);
        List<SavepointHandle> both = savepoints.list(jobId);
        assertThat(both).hasSize(2);
        SavepointHandle second = both.stream().filter(h -> !h.savepointId().equals(first.savepointId())).findFirst()
                .orElseThrow();
        long secondTop = top(second);
        assertThat(secondTop).isGreaterThan(firstTop);

        // The older savepoint, chosen by the job option: its state, and checkpoint ids above every id used.
        Path chosen = OverlayJobs.write(dir, "choice-first", "STREAMING", 2, Jobs.PROGRESS_SPLITS, 1000,
                Map.of(JobSavepoints.RESTORE_SAVEPOINT_OPTION, first.savepointId()));
        engine.restoreRunning(chosen, jobId, WAIT);
        for (ManifestEntry e : first.meta().manifest()) {
            assertThat(PluginLog.text()).contains("Job " + jobId + " pipeline " + e.pipelineId() + ": restoring checkpoint "
                    + e.checkpointId() + " from savepoint " + first.savepointId());
            // docs/seatunnel.md: the engine's own line names the id the checkpoints go on from, not the savepoint's.
            java.util.regex.Matcher next = java.util.regex.Pattern.compile("Job " + jobId + " pipeline " + e.pipelineId()
                    + ": restoring checkpoint " + e.checkpointId() + " from savepoint " + first.savepointId()
                    + " \\(.*\\); next checkpoint id (\\d+)").matcher(PluginLog.text());
            long seed = Long.MIN_VALUE;
            while (next.find()) { // the last such line is this restore's
                seed = Long.parseLong(next.group(1)) - 1;
            }
            assertThat(seed).isGreaterThanOrEqualTo(secondTop).isNotEqualTo(e.checkpointId());
            assertThat(EngineLog.text()).contains("pipeline(" + e.pipelineId() + ") start with savePoint on checkPointId("
                    + seed + ")");
        }
        job.awaitAbove("a checkpoint of both pipelines above the second savepoint", 2, secondTop);
        assertThat(ns.checkpoints(jobId)).as("no checkpoint id is used twice")
                .extracting(f -> f.pipelineId() + "/" + f.checkpointId()).doesNotHaveDuplicates();

        // The engine lost while the job runs (its checkpoints stay), and a new one restores it with the same job
        // options, as a master failover does: the option is taken as applied and the newest state is recovered.
        engine.close();
        engine = EmbeddedEngine.start();
        engine.useStorage("keepsake", Map.of("namespace", ns.root().toString()), 5);
        Map<Integer, Long> newest = new TreeMap<>();
        for (int p = 1; p <= 2; p++) {
            newest.put(p, ns.maxCheckpointId(jobId, p));
        }
        engine.restoreRunning(chosen, jobId, WAIT);
        assertThat(PluginLog.text()).contains("Job " + jobId + " names savepoint " + first.savepointId() + " in "
                + JobSavepoints.RESTORE_SAVEPOINT_OPTION + ", but it has checkpoints newer than its newest savepoint");
        for (int p = 1; p <= 2; p++) {
            assertThat(PluginLog.text()).contains("Job " + jobId + " pipeline " + p + ": restoring checkpoint "
                    + newest.get(p) + " from a checkpoint file");
        }
        engine.cancel(jobId);
        assertThat(savepoints.list(jobId)).hasSize(2);

        // A name that is no savepoint of the job: refused, naming it.
        Path missing = OverlayJobs.write(dir, "choice-missing", "STREAMING", 2, Jobs.PROGRESS_SPLITS, 1000,
                Map.of(JobSavepoints.RESTORE_SAVEPOINT_OPTION, "sp-no-such-savepoint"));
        assertThat(refusal(missing, jobId)).contains("Cannot restore job " + jobId + " from savepoint sp-no-such-savepoint");

        // A bundle a newer build wrote (format version 99), holding the newest state: -r refuses it.
        SavepointMeta m = second.meta();
        List<ManifestEntry> newer = new ArrayList<>();
        for (ManifestEntry e : m.manifest()) {
            newer.add(new ManifestEntry(e.pipelineId(), e.checkpointId() + 1000, e.file(), e.length(), e.sha256(),
                    e.chunks()));
        }
        SavepointMeta future = new SavepointMeta(99, "sp-from-a-newer-build", m.jobId(), m.kind(), m.producerVersion(),
                m.triggerTimestamp() + 1, m.completedTimestamp() + 1, m.payloadFormat(), newer, m.properties());
        Path secondDir = Path.of(second.location());
        Path futureDir = Files.createDirectory(secondDir.resolveSibling("sp-from-a-newer-build"));
        for (ManifestEntry e : m.manifest()) {
            Files.copy(secondDir.resolve(e.file()), futureDir.resolve(e.file()));
        }
        // a newer build writes its newest marker before publication, as every writer of the format does
        StringBuilder claims = new StringBuilder();
        for (ManifestEntry e : newer) {
            claims.append(claims.length() == 0 ? "" : ",").append(e.pipelineId()).append('_').append(e.checkpointId());
        }
        Path newestDir = secondDir.resolveSibling(NewestMarkers.DIR);
        Files.createDirectories(newestDir);
        Files.createFile(newestDir.resolve(claims + "~" + future.completedTimestamp() + "@" + future.savepointId()
                + ".0123456789abcdef"));
        Files.write(futureDir.resolve("_metadata.ser"), MetadataCodec.encode(future));
        assertThat(refusal(conf, jobId)).contains("in format version 99: a newer engine wrote it");
    }

    /** The highest checkpoint id a savepoint holds. */
    private static long top(SavepointHandle h) {
        return h.meta().manifest().stream().mapToLong(ManifestEntry::checkpointId).max().orElseThrow();
    }

    /** Restores and returns why the engine refused: the submission's error or the failed job's message. */
    private static String refusal(Path conf, long jobId) {
        try {
            engine.restore(conf, jobId);
        } catch (Exception e) {
            Figures.record("overlay: a refused restore came back to the client as", e.getClass().getSimpleName());
            StringBuilder all = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                all.append(t.getMessage()).append('\n');
            }
            return all.toString();
        }
        String[] detail = {""};
        EmbeddedEngine.await("the refused restore to show in the job's status", WAIT, () -> {
            detail[0] = engine.detail(jobId);
            return "FAILED".equals(engine.status(jobId)) && detail[0].contains("Cannot");
        });
        Figures.record("overlay: a refused restore came back to the client as", "the job FAILED");
        return detail[0];
    }
}
