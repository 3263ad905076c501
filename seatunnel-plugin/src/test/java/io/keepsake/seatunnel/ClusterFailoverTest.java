package io.keepsake.seatunnel;

import io.keepsake.storage.PipelineState;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's cluster test: two SeaTunnel 2.3.8 engine members in child JVMs ({@link EngineCluster})
 * and a client in the test JVM share one Keepsake namespace ({@link SharedBackend}: a local directory,
 * the HDFS mini cluster or S3 through S3Proxy); a streaming job with two pipelines runs
 * on the cluster and the member that runs the job's master is killed with SIGKILL while the job
 * checkpoints.
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
        Path conf = Jobs.streaming(dir, "cluster-failover", 2, 1000);
        Path logs = Path.of("target", "cluster", "failover-" + storage + "-" + System.currentTimeMillis()).toAbsolutePath();
        try (SharedBackend ns = SharedBackend.start(storage, dir);
             EngineCluster cluster = EngineCluster.start(logs, ns.pluginConfig(), 1000)) {
            EmbeddedEngine client = cluster.client();
            long jobId = client.submit(conf);
            client.awaitStatus(jobId, "RUNNING", WAIT);
            EmbeddedEngine.await("three checkpoints of each pipeline", WAIT,
                    () -> ns.maxCheckpointId(jobId, 1) >= 3 && ns.maxCheckpointId(jobId, 2) >= 3);

            EngineCluster.Member master = cluster.master();
            EngineCluster.Member survivor = cluster.live().stream().filter(m -> m != master).findFirst().orElseThrow();
            long killed = EngineCluster.kill(master);
            // Nothing stores checkpoints of the job until a new master restores it: what is on disk
            // now is each pipeline's newest completed checkpoint.
            Map<Integer, Long> newest = new TreeMap<>(Map.of(1, ns.maxCheckpointId(jobId, 1), 2, ns.maxCheckpointId(jobId, 2)));

            EngineCluster.awaitLine(survivor, "CLUSTER size=1 master=true", WAIT);
            long masterSwitched = System.nanoTime();
            for (int pipeline : newest.keySet()) {
                String restored = "pipeline(" + pipeline + ") start with savePoint on checkPointId(" + newest.get(pipeline) + ")";
                EmbeddedEngine.await("the new master to restore pipeline " + pipeline + " from checkpoint "
                        + newest.get(pipeline), WAIT, () -> survivor.engineLogText().contains(restored));
            }
            long restored = System.nanoTime();
            EmbeddedEngine.await("a new checkpoint of each pipeline after the failover", WAIT,
                    () -> ns.maxCheckpointId(jobId, 1) > newest.get(1) && ns.maxCheckpointId(jobId, 2) > newest.get(2));
            long checkpointing = System.nanoTime();
            for (int pipeline : newest.keySet()) {
                long firstAfter = ns.checkpoints(jobId).stream()
                        .filter(c -> c.pipelineId() == pipeline && c.checkpointId() > newest.get(pipeline))
                        .mapToLong(PipelineState::checkpointId).min().orElseThrow();
                assertThat(firstAfter).as("pipeline %s's first checkpoint after the failover", pipeline)
                        .isEqualTo(newest.get(pipeline) + 1);
            }
            assertThat(statusOrNull(client, jobId)).isEqualTo("RUNNING");

            Figures.record("cluster failover (" + storage + "): newest checkpoints at the SIGKILL of the master", newest);
            Figures.record("cluster failover (" + storage + "): SIGKILL -> survivor is master, ms", (masterSwitched - killed) / 1_000_000);
            Figures.record("cluster failover (" + storage + "): SIGKILL -> both pipelines restored, ms", (restored - killed) / 1_000_000);
            Figures.record("cluster failover (" + storage + "): SIGKILL -> a new checkpoint of both pipelines, ms",
                    (checkpointing - killed) / 1_000_000);
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
