package io.keepsake.seatunnel;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stop-with-savepoint interrupted by a master failover, on two SeaTunnel 2.3.8 members in child JVMs
 * ({@link EngineCluster}) sharing a Keepsake namespace on a local directory. The master's store of the
 * savepoint state hangs ({@link HangingSavepointStorageFactory}: it writes a marker file first, so
 * the kill comes at a known point, before anything of the savepoint is written); the master is
 * SIGKILLed there and the survivor takes the job over. Whatever the engine then does with the job,
 * the savepoint must not be reported done without a bundle that verifies.
 *
 * <p>Run with the profile {@code cluster}: {@code mvn -B -o -pl seatunnel-plugin -am test -Pcluster
 * -Dtest=SavepointMasterFailoverTest -Dsurefire.failIfNoSpecifiedTests=false}; member logs stay under
 * {@code seatunnel-plugin/target/cluster/}.
 */
@Tag("cluster")
class SavepointMasterFailoverTest {

    private static final Duration WAIT = Duration.ofMinutes(3);

    @Test
    void aSavepointCutByAMasterFailoverIsNeverReportedDoneWithoutAVerifiedBundle(@TempDir Path dir) throws Exception {
        long t0 = System.nanoTime();
        Path conf = Jobs.streaming(dir, "savepoint-failover", 1, 1000);
        Path marker = dir.resolve("savepoint-store-hangs");
        Path logs = Path.of("target", "cluster", "savepoint-failover-" + System.currentTimeMillis()).toAbsolutePath();
        try (SharedBackend ns = SharedBackend.start("localfile", dir)) {
            Map<String, String> config = new HashMap<>(ns.pluginConfig());
            config.put(HangingSavepointStorageFactory.MARKER, marker.toString());
            try (EngineCluster cluster = EngineCluster.start(logs, HangingSavepointStorageFactory.IDENTIFIER, config, 10)) {
                EmbeddedEngine client = cluster.client();
                long jobId = client.submitRunning(conf, WAIT);
                EmbeddedEngine.await("two checkpoints", WAIT, () -> ns.maxCheckpointId(jobId, 1) >= 2);

                CompletableFuture<Void> request = CompletableFuture.runAsync(() -> client.requestSavepoint(jobId));
                EmbeddedEngine.await("the master inside the savepoint's store", WAIT, () -> Files.exists(marker)
                        && !readQuietly(marker).isEmpty());
                long savepointCheckpoint = Long.parseLong(readQuietly(marker).split(" ")[2]);
                String statusAtKill = ClusterFailoverTest.statusOrNull(client, jobId);
                EngineCluster.Member master = cluster.master();
                EngineCluster.Member survivor = cluster.otherThan(master);
                EngineCluster.kill(master);
                EngineCluster.awaitLine(survivor, "CLUSTER size=1 master=true", WAIT);

                // What the operator sees: the answer to -s, then the job's status as the survivor reports it
                // once it has taken the job over and checkpoints it again (or ended it).
                String answer;
                try {
                    request.join();
                    answer = "returned normally";
                } catch (RuntimeException e) {
                    answer = "threw " + e.getCause();
                }
                // Settled: the survivor ended the job, or checkpoints it again past the cut savepoint. A job
                // the survivor leaves hanging settles neither way; after the bound the test records that.
                // UNKNOWABLE is what the cluster answers while the new master takes the job over.
                List<String> seen = new ArrayList<>();
                boolean settled = EmbeddedEngine.poll(Duration.ofMinutes(2), () -> {
                    String s = ClusterFailoverTest.statusOrNull(client, jobId);
                    if (s != null && (seen.isEmpty() || !seen.get(seen.size() - 1).equals(s))) {
                        seen.add(s);
                    }
                    return s != null && !"UNKNOWABLE".equals(s) && (EmbeddedEngine.END_STATES.contains(s)
                            || ns.maxCheckpointId(jobId, 1) > savepointCheckpoint);
                });
                String detail = client.detail(jobId);
                List<SavepointHandle> bundles = ns.savepoints().list(jobId);
                Figures.record("savepoint cut by a master failover: status at the kill", statusAtKill);
                Figures.record("savepoint cut by a master failover: -s answered", answer);
                Figures.record("savepoint cut by a master failover: statuses the survivor showed", seen);
                Figures.record("savepoint cut by a master failover: settled", settled + ", newest checkpoint "
                        + ns.maxCheckpointId(jobId, 1) + ", savepoint was checkpoint " + savepointCheckpoint);
                Figures.record("savepoint cut by a master failover: bundles", bundles.stream()
                        .map(SavepointHandle::savepointId).toList());
                Figures.record("savepoint cut by a master failover: job detail", detail);

                assertThat(bundles).as("nothing of the cut savepoint is published").isEmpty();
                // What SeaTunnel 2.3.8 then does, seen on these runs: the survivor restores the job from
                // its newest checkpoint and checkpoints on, while the job keeps showing DOING_SAVEPOINT.
                assertThat(settled).as("the survivor took the job over; statuses %s", seen).isTrue();
                assertThat(ns.maxCheckpointId(jobId, 1)).as("checkpoints after the cut savepoint")
                        .isGreaterThan(savepointCheckpoint);
                assertThat(client.status(jobId)).as("the job's status after the failover").isEqualTo("DOING_SAVEPOINT");
                assertThat(seen).as("the job is never reported SAVEPOINT_DONE without a kept savepoint")
                        .doesNotContain("SAVEPOINT_DONE");
                if (!EmbeddedEngine.END_STATES.contains(client.status(jobId))) {
                    client.cancel(jobId);
                }
            }
        }
        Figures.record("savepoint cut by a master failover, ms", KeepsakePluginScenariosTest.millisSince(t0));
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file).trim();
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
