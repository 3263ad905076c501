package io.keepsake.seatunnel;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster test, savepoints: two SeaTunnel 2.3.8 engine members in child JVMs
 * ({@link EngineCluster}) share one Keepsake namespace ({@link SharedBackend}); a streaming job with
 * two pipelines is saved on the cluster, and the cluster is restarted or its master killed.
 *
 * <p>Run with the profile {@code cluster} (excluded from the default build, several minutes):
 * {@code mvn -B -o -pl seatunnel-plugin -am test -Pcluster -Dtest='Cluster*Test'
 * -Dsurefire.failIfNoSpecifiedTests=false}; on 2.3.4 with {@code -Pcluster,seatunnel-2.3.4}. Member
 * logs stay under {@code seatunnel-plugin/target/cluster/}.
 */
@Tag("cluster")
class ClusterSavepointTest {

    private static final Duration WAIT = Duration.ofMinutes(3);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"localfile", "hdfs", "s3"})
    void stopWithSavepointThenRestartOfBothMembersRestoresTheBundles(String storage, @TempDir Path dir) throws Exception {
        Path conf = Jobs.streamingWithProgress(dir, "cluster-savepoint", 2, 1000);
        Path logs = Path.of("target", "cluster", "savepoint-" + storage + "-" + System.currentTimeMillis()).toAbsolutePath();
        String label = "cluster savepoint (" + storage + ")";
        try (SharedBackend ns = SharedBackend.start(storage, dir);
             EngineCluster cluster = EngineCluster.start(logs, ns.pluginConfig(), 3)) {
            long jobId = cluster.client().submit(conf);
            cluster.client().awaitStatus(jobId, "RUNNING", WAIT);
            ClusterSteps.awaitCheckpointsWithProgress(ns, jobId, 2, WAIT);
            Map<Integer, FakeSourceProgress> saved = ClusterSteps.stopWithSavepoint(cluster.client(), ns, jobId, label);

            cluster.killAll();
            long restart = System.nanoTime();
            cluster.startBoth();
            Figures.record(label + ": both members restarted, ms", (System.nanoTime() - restart) / 1_000_000);
            ClusterSteps.restoreFromSavepoint(cluster.client(), conf, cluster.master(), ns, jobId, saved, label, WAIT);
            cluster.client().cancel(jobId);
            assertThat(ClusterSteps.verifiedBundles(ns, jobId)).as("the bundles stay after the cancel").isEqualTo(ClusterSteps.ids(saved));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"localfile", "hdfs", "s3"})
    void masterKilledWhileSavingLeavesNothingTornAndGcLeavesNothingBehind(String storage, @TempDir Path dir)
            throws Exception {
        Path conf = Jobs.streaming(dir, "cluster-saving", 2, 1000);
        Path logs = Path.of("target", "cluster", "saving-" + storage + "-" + System.currentTimeMillis()).toAbsolutePath();
        Map<String, String> shortLease = Map.of("savepoint.lease-timeout-ms", "2000");
        try (SharedBackend ns = SharedBackend.start(storage, dir);
             EngineCluster cluster = EngineCluster.start(logs, ns.pluginConfig(shortLease), 3);
             AttemptWatch watch = new AttemptWatch(ns)) {
            EmbeddedEngine client = cluster.client();
            long jobId = client.submitRunning(conf, WAIT);
            EmbeddedEngine.await("two checkpoints of each pipeline", WAIT,
                    () -> ns.maxCheckpointId(jobId, 1) >= 2 && ns.maxCheckpointId(jobId, 2) >= 2);
            EngineCluster.Member master = cluster.master();
            EngineCluster.Member survivor = cluster.otherThan(master);

            // The master is killed at the first sight of a payload file of a savepoint attempt, seen
            // through the backend itself (AttemptWatch) from a thread that lists the job's staging area
            // while -s is asked: the same on the local directory, HDFS and S3. (The engine's answer to
            // -s came before anything reached HDFS or S3 in earlier runs, too early to aim at.) What
            // the last listing showed and what was on storage once the process was gone are recorded.
            long asked = System.nanoTime();
            var watcher = java.util.concurrent.CompletableFuture.supplyAsync(() ->
                    watch.fireAtFirstPayload(jobId, 2, Duration.ofSeconds(60), () -> master.process().destroyForcibly()));
            try {
                client.requestSavepoint(jobId);
            } catch (RuntimeException e) {
                Figures.record("cluster kill while saving (" + storage + "): -s answered", rootMessage(e));
            }
            AttemptWatch.Sighting sighting = watcher.get(90, java.util.concurrent.TimeUnit.SECONDS);
            long killed = EngineCluster.kill(master);
            Figures.record("cluster kill while saving (" + storage + "): master killed at", sighting.why() + ", "
                    + (killed - asked) / 1_000_000 + " ms after -s was asked, after " + sighting.listings() + " listings");
            Figures.record("cluster kill while saving (" + storage + "): what the watcher's last listing showed",
                    sighting.seen());
            List<String> stagingAtKill = watch.staging(jobId);
            Figures.record("cluster kill while saving (" + storage + "): job's savepoint folder once the master was gone",
                    watch.tree(jobId));
            Map<Integer, Long> atKill = ClusterSteps.verifiedBundles(ns, jobId);
            Map<Integer, Long> newestAtKill = Map.of(1, ns.maxCheckpointId(jobId, 1), 2, ns.maxCheckpointId(jobId, 2));
            Figures.record("cluster kill while saving (" + storage + "): bundles kept at the SIGKILL", atKill);

            EngineCluster.awaitLine(survivor, "CLUSTER size=1 master=true", WAIT);
            EmbeddedEngine.await("the new master to take over the job", WAIT,
                    () -> survivor.engineLogText().contains("restore job (" + jobId + ") from master active switch finished"));
            Figures.record("cluster kill while saving (" + storage + "): SIGKILL -> job taken over, ms",
                    (System.nanoTime() - killed) / 1_000_000);
            String afterFailover = ClusterFailoverTest.statusOrNull(client, jobId);
            Figures.record("cluster kill while saving (" + storage + "): job status after the failover", afterFailover);

            // No torn bundle is visible: every listed savepoint verifies, every folder is complete or named as not.
            Map<Integer, Long> afterTakeOver = ClusterSteps.verifiedBundles(ns, jobId);
            assertThat(afterTakeOver).isEqualTo(atKill);

            // Does the job checkpoint on after the take-over, in the state the failover left it in?
            boolean checkpointsResumed = EmbeddedEngine.poll(Duration.ofSeconds(60),
                    () -> ns.maxCheckpointId(jobId, 1) > newestAtKill.get(1) && ns.maxCheckpointId(jobId, 2) > newestAtKill.get(2));
            Figures.record("cluster kill while saving (" + storage + "): checkpoints of both pipelines after the take-over",
                    checkpointsResumed ? "yes, newest " + ns.maxCheckpointId(jobId, 1) + "/" + ns.maxCheckpointId(jobId, 2)
                            : "none within 60 s, status " + ClusterFailoverTest.statusOrNull(client, jobId));

            // A new savepoint on the surviving member. The engine refuses -s while the restarted pipelines'
            // tasks are not all ready ("Task not all ready, savepoint error"): ask until it accepts.
            long t0 = System.nanoTime();
            EmbeddedEngine.SavepointAsks asks = client.requestSavepointUntilAccepted(jobId, Duration.ofSeconds(120));
            Figures.record("cluster kill while saving (" + storage + "): a new -s after the failover was",
                    (asks.accepted() ? "accepted" : "refused") + " after " + asks.asks() + " asks, "
                            + (System.nanoTime() - t0) / 1_000_000 + " ms"
                            + (asks.lastRefusal() == null ? "" : "; last refusal: " + rootMessage(asks.lastRefusal())));
            boolean done = asks.accepted() && EmbeddedEngine.poll(Duration.ofSeconds(120), () -> {
                String st = ClusterFailoverTest.statusOrNull(client, jobId);
                return st != null && EmbeddedEngine.END_STATES.contains(st);
            });
            String ended = ClusterFailoverTest.statusOrNull(client, jobId);
            Figures.record("cluster kill while saving (" + storage + "): the job after the new -s",
                    (done ? "ended " : "not ended, status ") + ended + " at " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            Map<Integer, Long> kept = ClusterSteps.verifiedBundles(ns, jobId);
            Figures.record("cluster kill while saving (" + storage + "): bundles kept after the new -s", kept);
            if ("SAVEPOINT_DONE".equals(ended)) {
                assertThat(kept).as("a savepoint that ended SAVEPOINT_DONE is kept for every pipeline").containsOnlyKeys(1, 2);
            }
            // Whatever the engine did, the cluster goes down now: every lease stops being renewed.
            cluster.killAll();

            // Once every lease has expired, gc removes what the killed attempt left, and nothing stays.
            try (CheckpointStorage open = ns.open(shortLease)) {
                SavepointStorage sp = (SavepointStorage) open;
                List<String> removed = new java.util.ArrayList<>();
                List<String> keptByGc = new java.util.ArrayList<>();
                int[] runs = {0};
                EmbeddedEngine.await("a gc that keeps nothing once the leases expired", WAIT, () -> {
                    GcReport report = sp.collectGarbage(Duration.ZERO);
                    runs[0]++;
                    removed.addAll(report.deleted());
                    if (runs[0] == 1) {
                        keptByGc.addAll(report.kept());
                    }
                    return report.kept().isEmpty() && report.failed().isEmpty() && sp.planGarbage(Duration.ZERO).isEmpty();
                });
                Figures.record("cluster kill while saving (" + storage + "): gc after the cluster went down: first run kept",
                        keptByGc);
                Figures.record("cluster kill while saving (" + storage + "): gc runs until nothing was kept, and what they removed",
                        runs[0] + " " + removed);
                Figures.record("cluster kill while saving (" + storage + "): job's savepoint folder after gc",
                        watch.tree(jobId));
                assertThat(watch.staging(jobId)).as("nothing of an attempt is left in staging").isEmpty();
                if (!stagingAtKill.isEmpty()) {
                    assertThat(removed).as("gc removed what the killed attempt left in staging: %s", stagingAtKill)
                            .isNotEmpty();
                }
                for (SavepointEntry e : sp.scanSavepoints(Long.toString(jobId))) {
                    assertThat(e.handle()).as("savepoint folder %s is complete", e.location()).isPresent();
                }
            }
            assertThat(ClusterSteps.verifiedBundles(ns, jobId)).isEqualTo(kept);
        }
    }

    /**
     * A gc run over and over from another process (as {@code keepsake gc --older-than 0} with the
     * members' short lease) while the cluster saves: it must never take a live attempt, so every
     * {@code -s} ends SAVEPOINT_DONE with a verified bundle per pipeline and the gc removes nothing.
     * In 2.3.8 the job's coordinator, and so the plugin instance that saves, runs on the master member
     * only; the other member's instance is created when it takes a job over.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"localfile", "hdfs", "s3"})
    void gcFromAnotherProcessNeverTakesALiveAttempt(String storage, @TempDir Path dir) throws Exception {
        Path conf = Jobs.streaming(dir, "cluster-gc", 2, 1000);
        Path logs = Path.of("target", "cluster", "gc-" + storage + "-" + System.currentTimeMillis()).toAbsolutePath();
        Map<String, String> shortLease = Map.of("savepoint.lease-timeout-ms", "2000");
        try (SharedBackend ns = SharedBackend.start(storage, dir);
             EngineCluster cluster = EngineCluster.start(logs, ns.pluginConfig(shortLease), 3)) {
            EmbeddedEngine client = cluster.client();
            long jobId = client.submitRunning(conf, WAIT);
            RepeatedGc gc = RepeatedGc.start(ns, shortLease);
            try (gc) {
                for (int round = 1; round <= 2; round++) {
                    long before = Math.max(ns.maxCheckpointId(jobId, 1), ns.maxCheckpointId(jobId, 2));
                    EmbeddedEngine.await("a checkpoint of each pipeline", WAIT,
                            () -> ns.maxCheckpointId(jobId, 1) > 0 && ns.maxCheckpointId(jobId, 2) > 0
                                    && Math.max(ns.maxCheckpointId(jobId, 1), ns.maxCheckpointId(jobId, 2)) > before);
                    client.savepoint(jobId);
                    Map<Integer, Long> kept = ClusterSteps.verifiedBundles(ns, jobId);
                    assertThat(kept).containsOnlyKeys(1, 2);
                    long p1 = kept.get(1);
                    assertThat(ns.savepoints().list(jobId)).extracting(SavepointHandle::savepointId)
                            .contains(KeepsakeCheckpointStorage.savepointId(p1, 1));
                    if (round == 1) {
                        client.restoreRunning(conf, jobId, WAIT);
                    }
                }
            }
            gc.requireRemovedOnly(ns, "cluster gc from another process (" + storage + "): during two savepoints", path -> false);
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
