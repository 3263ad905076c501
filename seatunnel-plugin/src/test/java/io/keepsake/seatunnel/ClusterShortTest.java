package io.keepsake.seatunnel;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster scenario in short, in the default build: one {@link EngineCluster} of two
 * SeaTunnel 2.3.8 members per backend (HDFS, S3 and Azure Blob Storage on Azurite, the shared
 * storages a cluster uses) runs a streaming job of two pipelines through a failover, a stop-with-savepoint and a restore, while a gc
 * from the test JVM runs throughout with the members' short lease and must remove nothing but what
 * the killed master left (on HDFS, the temporary file of the checkpoint it was writing):
 * <ol>
 *   <li>each pipeline checkpoints twice, the newest with a split read; the member running the master
 *       is SIGKILLed; the survivor becomes master, restores each pipeline from its newest checkpoint C
 *       (engine log), and the next checkpoint is C + 1 with a reader state that continues from C's
 *       ({@link FakeSourceProgress});</li>
 *   <li>{@code -s} on the survivor ends SAVEPOINT_DONE with a verified bundle per pipeline;</li>
 *   <li>{@code -r} restores each pipeline from its savepoint (engine log), and the first checkpoint
 *       after continues from the savepoint's reader state;</li>
 *   <li>after {@code cancel} the bundles are still there and verify.</li>
 * </ol>
 * The longer scenarios ({@link ClusterFailoverTest}, {@link ClusterSavepointTest}, also on a shared
 * local directory) run with the profile {@code cluster}.
 */
class ClusterShortTest {

    private static final Duration WAIT = Duration.ofMinutes(3);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hdfs", "s3", "azure"})
    void failoverThenStopWithSavepointThenRestoreWhileGcRuns(String storage, @TempDir Path dir) throws Exception {
        Path conf = Jobs.streamingWithProgress(dir, "cluster-short", 2, 1000);
        Path logs = Path.of("target", "cluster", "short-" + storage + "-" + System.currentTimeMillis()).toAbsolutePath();
        String label = "cluster short (" + storage + ")";
        // short enough for the gc to find the killed master's attempts expired during the test, long enough that a
        // member starved of CPU for a second or two (a loaded 2-core machine) still renews its lease in time: a
        // commit is refused once its lease is half expired (seen at 2 s under a load average of 7)
        Map<String, String> shortLease = Map.of("savepoint.lease-timeout-ms", "5000");
        try (SharedBackend ns = SharedBackend.start(storage, dir);
             EngineCluster cluster = EngineCluster.start(logs, ns.pluginConfig(shortLease), 10)) {
            RepeatedGc gc = RepeatedGc.start(ns, shortLease);
            ClusterSteps.Failover failover;
            try (gc) {
                EmbeddedEngine client = cluster.client();
                long jobId = client.submitRunning(conf, WAIT);
                ClusterSteps.awaitCheckpointsWithProgress(ns, jobId, 2, WAIT);

                failover = ClusterSteps.killMasterAndAwaitRestore(cluster, ns, jobId, label, WAIT);
                EngineCluster.Member survivor = cluster.master();

                Map<Integer, FakeSourceProgress> saved = ClusterSteps.stopWithSavepoint(client, ns, jobId, label);
                ClusterSteps.restoreFromSavepoint(client, conf, survivor, ns, jobId, saved, label, WAIT);
                client.cancel(jobId);
                assertThat(ClusterSteps.verifiedBundles(ns, jobId)).as("the bundles stay after the cancel")
                        .isEqualTo(ClusterSteps.ids(saved));
            }
            gc.requireRemovedOnly(ns, label + ": gc from another process throughout", failover::leftByTheKilledMaster);
        }
    }
}
