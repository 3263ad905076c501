package io.keepsake.seatunnel;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster test: two SeaTunnel 2.3.8 engine members in child JVMs ({@link EngineCluster})
 * and a client in the test JVM share one Keepsake namespace ({@link SharedBackend}: a local directory,
 * the HDFS mini cluster or S3 through S3Proxy); a streaming job with two pipelines runs
 * on the cluster and the member that runs the job's master is killed with SIGKILL while the job
 * checkpoints. Each pipeline's FakeSource reader state says how far it got ({@link FakeSourceProgress}):
 * the first checkpoint after the failover must continue from the checkpoint it was restored from.
 *
 * <p>Run with the profile {@code cluster} (excluded from the default build, several minutes):
 * {@code mvn -B -o -pl seatunnel-plugin -am test -Pcluster -Dtest=ClusterFailoverTest
 * -Dsurefire.failIfNoSpecifiedTests=false}. Each run's member logs (engine coordination at INFO, the
 * plugin's log, stderr) stay under {@code seatunnel-plugin/target/cluster/}.
 */
@Tag("cluster")
class ClusterFailoverTest {

    private static final Duration WAIT = Duration.ofMinutes(3);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"localfile", "hdfs", "s3"})
    void killedMasterFailsOverAndEachPipelineResumesFromItsNewestCheckpoint(String storage, @TempDir Path dir)
            throws Exception {
        Path conf = Jobs.streamingWithProgress(dir, "cluster-failover", 2, 1000);
        Path logs = Path.of("target", "cluster", "failover-" + storage + "-" + System.currentTimeMillis()).toAbsolutePath();
        try (SharedBackend ns = SharedBackend.start(storage, dir);
             EngineCluster cluster = EngineCluster.start(logs, ns.pluginConfig(), 10)) {
            EmbeddedEngine client = cluster.client();
            long jobId = client.submitRunning(conf, WAIT);
            ClusterSteps.awaitCheckpointsWithProgress(ns, jobId, 3, WAIT);

            ClusterSteps.killMasterAndAwaitRestore(cluster, ns, jobId, "cluster failover (" + storage + ")", WAIT);
            assertThat(statusOrNull(client, jobId)).isEqualTo("RUNNING");
            client.cancel(jobId);
        }
    }

    /** The job's status, or null while the cluster cannot answer (a master switch in progress). */
    static String statusOrNull(EmbeddedEngine client, long jobId) {
        try {
            return client.status(jobId);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
