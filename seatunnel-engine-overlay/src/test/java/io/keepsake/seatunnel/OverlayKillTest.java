package io.keepsake.seatunnel;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine SIGKILLed in the middle of a job savepoint: a child JVM with the overlay whose storage's
 * file system never returns from publishing the bundle once both pipelines' payloads are staged
 * ({@link FaultyKeepsakeFactory}, {@code hang-commit-2}); the parent kills it there. Nothing is
 * visible, no savepoint checkpoint file is published, and a gc after the attempt's lease (1.5 s here)
 * collects the staging. The control (profile {@code overlay-long}) kills the plugin alone at the same
 * step of pipeline 2's own bundle and reports what it left.
 */
@ExtendWith(ScenarioNamespace.class)
class OverlayKillTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String LEASE_MILLIS = "1500";

    @Test
    @TimedScenario("overlay kill scenario, ms")
    void killedMidSavepointLeavesNothingVisibleAndGcCollectsTheStagingAfterItsLease(@TempDir Path dir, Namespace ns)
            throws Exception {
        KilledChild child = killedPublishing(dir, ns, "killed", true);
        long jobId = child.jobId();
        long killed = System.nanoTime();
        Path attempt = Path.of(child.hungAt()).getParent();
        assertThat(attempt.getParent().getFileName().toString()).isEqualTo(".staging");
        assertThat(names(attempt)).as("both pipelines were staged when the engine died")
                .anyMatch(n -> n.startsWith("pipeline-1")).anyMatch(n -> n.startsWith("pipeline-2"));

        try (CheckpointStorage storage = CheckpointStorageFactories.find("localfile").create(Map.of(
                "namespace", ns.root().toString(), "savepoint.lease-timeout-ms", LEASE_MILLIS))) {
            SavepointStorage savepoints = (SavepointStorage) storage;
            assertThat(savepoints.listSavepoints(Long.toString(jobId))).as("nothing of the savepoint is visible").isEmpty();
            assertThat(ns.savepointFiles(jobId)).as("no savepoint checkpoint file was published").isEmpty();
            List<String> deleted = new ArrayList<>();
            EmbeddedEngine.await("a gc to collect the dead engine's staging after its lease", WAIT, () -> {
                GcReport report = savepoints.collectGarbage(Duration.ZERO);
                deleted.addAll(report.deleted());
                return !Files.exists(attempt);
            });
            assertThat(deleted).as("the gc reports what it removed").anyMatch(d -> d.contains(attempt.getFileName().toString()));
            assertThat(savepoints.listSavepoints(Long.toString(jobId))).isEmpty();
        }
        Figures.record("overlay: engine SIGKILLed while publishing a job savepoint, kill to staging collected "
                + "(lease " + LEASE_MILLIS + " ms), ms", KeepsakePluginScenariosTest.millisSince(killed));
    }

    /**
     * The control: the plugin alone killed while pipeline 2's own bundle is being published. Whatever
     * it left visible is one bundle per pipeline; when pipeline 1's bundle was published first, half
     * the job's savepoint is visible (which comes first depends on the coordinators' race).
     */
    @Test
    @EnabledIfSystemProperty(named = "keepsake.overlay.long", matches = "true")
    void withoutTheOverlayAKillMidSavepointCanLeaveHalfTheJobSaved(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        List<SavepointHandle> kept = savepoints.list(killedPublishing(dir, ns, "killed-control", false).jobId());
        assertThat(kept).allSatisfy(h -> assertThat(h.meta().manifest()).singleElement()
                .satisfies(e -> assertThat(e.pipelineId()).isEqualTo(1)));
        Figures.record("overlay control (plugin alone killed publishing pipeline 2's bundle): bundles visible", kept.size());
    }

    /** A child engine's job, and the file the child hung on when it was SIGKILLed. */
    private record KilledChild(long jobId, String hungAt) {
    }

    /**
     * Runs a job of two pipelines in a child engine whose storage hangs publishing a savepoint that holds
     * pipeline 2 ({@code hang-commit-2}), asks for a savepoint and SIGKILLs the child where it hangs.
     */
    private static KilledChild killedPublishing(Path dir, Namespace ns, String name, boolean withOverlay)
            throws Exception {
        Path conf = OverlayJobs.twoPipelines(dir, name);
        try (OverlayChild child = OverlayChild.start(dir, name, withOverlay, "request-savepoint", conf,
                FaultyKeepsakeFactory.IDENTIFIER, Map.of("namespace", ns.root().toString(), "test.fault",
                        "hang-commit-2", "savepoint.lease-timeout-ms", LEASE_MILLIS, "pipelines", "2"))) {
            long jobId = child.awaitJob(WAIT);
            String hungAt = child.await("HANG ", WAIT).substring(5).trim();
            child.kill();
            return new KilledChild(jobId, hungAt);
        }
    }

    private static List<String> names(Path dir) throws java.io.IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }
}
