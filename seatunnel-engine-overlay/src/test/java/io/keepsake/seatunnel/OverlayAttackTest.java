package io.keepsake.seatunnel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two attacks on the overlay's save path on the embedded SeaTunnel 2.3.8 engine: the bundle's
 * publication failing after every pipeline reported and reached its savepoint, and a second
 * savepoint request while the first is pending (which once deadlocked the job's savepoint: the
 * joining request held the overlay's lock while the engine's coordinator waited for the pending one).
 */
class OverlayAttackTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void aCommitThatFailsAfterEveryPipelineReportedLeavesNothingAndEndsTheJobFailed(@TempDir Path dir, Namespace ns)
            throws Exception {
        engine.useStorage(FaultyKeepsakeFactory.IDENTIFIER,
                Map.of("namespace", ns.root().toString(), "test.fault", "fail-commit"), 5);
        long jobId = OverlayJobs.submitTwoPipelines(engine, ns, dir, "commit-fails", WAIT).jobId();
        engine.savepointEndingIn(jobId, "FAILED", WAIT, Duration.ofSeconds(180));
        assertThat(PluginLog.text()).containsPattern("Cannot commit savepoint \\S+ of job " + jobId);
        assertThat(Savepoints.local(ns).list(jobId)).isEmpty();
        Path jobRoot = ns.root().resolve("savepoint").resolve(Long.toString(jobId));
        assertThat(OverlayFailedSavepointTest.entries(jobRoot.resolve(".staging"))).isEmpty();
        assertThat(ns.savepointFiles(jobId)).as("no savepoint checkpoint file without its bundle").isEmpty();
    }

    @Test
    void aSavepointAskedForTwiceAtOnceIsOneBundle(@TempDir Path dir, Namespace ns) throws Exception {
        engine.useStorage("keepsake", Map.of("namespace", ns.root().toString()), 5);
        long jobId = OverlayJobs.submitTwoPipelines(engine, ns, dir, "twice", WAIT).jobId();
        // The second request comes once the first one's savepoint is pending in both coordinators (two requests
        // inside the released coordinator's startSavepoint at the same instant stall it, overlay or not).
        long pendingBefore = savepointsPending();
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> engine.requestSavepoint(jobId));
        EmbeddedEngine.await("the first savepoint pending in both coordinators", WAIT,
                () -> savepointsPending() >= pendingBefore + 2);
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> engine.requestSavepoint(jobId));
        CompletableFuture.allOf(first, second).handle((v, e) -> null).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        engine.awaitStatus(jobId, "SAVEPOINT_DONE", WAIT);
        assertThat(Savepoints.local(ns).list(jobId)).singleElement()
                .satisfies(h -> assertThat(h.meta().manifest()).hasSize(2));
        assertThat(first).isCompleted();
        Path jobRoot = ns.root().resolve("savepoint").resolve(Long.toString(jobId));
        EmbeddedEngine.await("no staging left", WAIT, () -> {
            try {
                return OverlayFailedSavepointTest.entries(jobRoot.resolve(".staging")).isEmpty();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** How many times the engine's coordinators logged a pending savepoint's id (engine-coordination.log, this JVM). */
    private static long savepointsPending() {
        return EngineLog.text().lines().filter(l -> l.contains("The save point checkpointId is")).count();
    }
}
