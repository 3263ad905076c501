package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.internal.LegacyCheckpointFiles;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The steps of the cluster tests ({@link ClusterFailoverTest}, {@link ClusterSavepointTest},
 * {@link ClusterShortTest}) on a {@link Jobs#streamingWithProgress} job of two pipelines, each step
 * with its checks and figures. A pipeline's state is checked through its FakeSource reader's unread
 * splits ({@link FakeSourceProgress}), not only through checkpoint ids.
 */
final class ClusterSteps {

    private ClusterSteps() {
    }

    /** The line SeaTunnel 2.3.8's coordinator logs when it starts a pipeline from a stored state. */
    private static String restoredLine(int pipeline, long checkpointId) {
        return "pipeline(" + pipeline + ") start with savePoint on checkPointId(" + checkpointId + ")";
    }

    /** Waits until {@code master}'s engine log says that each pipeline started from its checkpoint in {@code from}. */
    private static void awaitRestoredFrom(EngineCluster.Member master, Map<Integer, Long> from, Duration wait) {
        from.forEach((pipeline, checkpointId) -> EmbeddedEngine.await("member " + master.name() + " to restore pipeline "
                + pipeline + " from checkpoint " + checkpointId, wait,
                () -> master.engineLogText().contains(restoredLine(pipeline, checkpointId))));
    }

    /**
     * Waits until each of the job's two pipelines has a checkpoint with an id of at least
     * {@code checkpoints} whose reader has read a split: the first checkpoints may come before the
     * reader read anything, and a state without progress cannot tell a restore from a restart.
     */
    static void awaitCheckpointsWithProgress(SharedBackend ns, long jobId, long checkpoints, Duration wait) {
        EmbeddedEngine.await(checkpoints + " checkpoints of each pipeline, the newest with a split read", wait, () -> {
            Map<Integer, Long> newest = ns.newestCheckpointIds(jobId);
            if (!newest.keySet().containsAll(List.of(1, 2))
                    || newest.values().stream().anyMatch(id -> id < checkpoints)) {
                return false;
            }
            return newest.entrySet().stream().allMatch(e -> FakeSourceProgress.of(ns.checkpoint(jobId, e.getKey(),
                    e.getValue())).unread().size() < Jobs.PROGRESS_SPLITS);
        });
    }

    /**
     * What {@link #killMasterAndAwaitRestore} left behind: when the killed master was gone (wall clock)
     * and each pipeline's newest completed checkpoint then.
     */
    record Failover(long jobId, long masterGoneMillis, Map<Integer, Long> newest) {

        /**
         * Whether {@code path}, removed by a gc, is a checkpoint temporary file that the killed master
         * left: in the job's checkpoint folder, named before the master was gone, for a checkpoint after
         * its pipeline's newest completed one. On HDFS and a local directory a checkpoint is written to
         * {@code .<name>.tmp} and renamed; a master killed mid-write leaves that file, and gc takes it
         * once it is older than the lease timeout.
         */
        boolean leftByTheKilledMaster(String path) {
            int slash = path.lastIndexOf('/');
            String name = path.substring(slash + 1);
            if (slash < 0 || !path.substring(0, slash).endsWith("/" + jobId) || !LegacyCheckpointFiles.isTempName(name)) {
                return false;
            }
            LegacyCheckpointFiles.Name n = LegacyCheckpointFiles.parse(name.substring(1, name.length() - ".tmp".length()))
                    .orElseThrow();
            return n.timestamp() <= masterGoneMillis && n.checkpointId() > newest.getOrDefault(n.pipelineId(), Long.MAX_VALUE);
        }
    }

    /**
     * SIGKILLs the member that runs the job's master while the job checkpoints. The other member must
     * become master and restore each pipeline from its newest checkpoint C on storage at the kill (the
     * engine's log line), with the reader under way there; each pipeline's next checkpoint must be C + 1
     * and continue from C's reader state ({@link FakeSourceProgress#requireResumedFrom}).
     * Returns what the kill left behind.
     */
    static Failover killMasterAndAwaitRestore(EngineCluster cluster, SharedBackend ns, long jobId, String label,
                                              Duration wait) throws InterruptedException {
        EngineCluster.Member master = cluster.master();
        EngineCluster.Member survivor = cluster.otherThan(master);
        long killed = EngineCluster.kill(master);
        long goneMillis = System.currentTimeMillis();
        // Nothing stores checkpoints of the job until a new master restores it: what is on storage
        // now is each pipeline's newest completed checkpoint.
        Map<Integer, FakeSourceProgress> atKill = new TreeMap<>();
        ns.newestCheckpointIds(jobId).forEach((pipeline, id) ->
                atKill.put(pipeline, FakeSourceProgress.of(ns.checkpoint(jobId, pipeline, id))));
        assertThat(atKill).as("a checkpoint of each pipeline at the kill").containsOnlyKeys(1, 2);
        atKill.values().forEach(p -> p.requireUnderWay(Jobs.PROGRESS_SPLITS, "at the SIGKILL of the master"));

        EngineCluster.awaitLine(survivor, "CLUSTER size=1 master=true", wait);
        long masterSwitched = System.nanoTime();
        awaitRestoredFrom(survivor, ids(atKill), wait);
        long restored = System.nanoTime();
        Map<Integer, FakeSourceProgress> firstAfter = awaitResumed(ns, jobId, atKill, wait);
        long checkpointing = System.nanoTime();
        firstAfter.forEach((pipeline, p) -> assertThat(p.checkpointId())
                .as("pipeline %s's first checkpoint after the failover", pipeline)
                .isEqualTo(atKill.get(pipeline).checkpointId() + 1));

        Figures.record(label + ": at the SIGKILL of the master, each pipeline's newest checkpoint", summary(atKill));
        Figures.record(label + ": first checkpoint after the failover", summary(firstAfter));
        Figures.record(label + ": SIGKILL -> survivor is master, ms", millis(killed, masterSwitched));
        Figures.record(label + ": SIGKILL -> both pipelines restored, ms", millis(killed, restored));
        Figures.record(label + ": SIGKILL -> a new checkpoint of both pipelines, ms", millis(killed, checkpointing));
        return new Failover(jobId, goneMillis, ids(atKill));
    }

    /**
     * Stop-with-savepoint ({@code -s}): the job must end SAVEPOINT_DONE with one verified bundle per
     * pipeline whose reader is under way. Returns the reader state of each pipeline's newest bundle.
     */
    static Map<Integer, FakeSourceProgress> stopWithSavepoint(EmbeddedEngine client, SharedBackend ns, long jobId,
                                                              String label) throws Exception {
        long t0 = System.nanoTime();
        client.savepoint(jobId);
        Figures.record(label + ": -s -> SAVEPOINT_DONE, ms", millis(t0, System.nanoTime()));
        Map<Integer, FakeSourceProgress> saved = new TreeMap<>();
        verifiedSavepointStates(ns, jobId).forEach((pipeline, c) -> saved.put(pipeline, FakeSourceProgress.of(c)));
        assertThat(saved).as("one verified bundle per pipeline").containsOnlyKeys(1, 2);
        saved.values().forEach(p -> p.requireUnderWay(Jobs.PROGRESS_SPLITS, "at the savepoint"));
        Figures.record(label + ": savepoint of each pipeline", summary(saved));
        return saved;
    }

    /**
     * Restore ({@code -r}) after a stop-with-savepoint: the job must run again, {@code master}'s log
     * must say that each pipeline started from its savepoint's checkpoint, and each pipeline's first
     * checkpoint after must continue from the savepoint's reader state.
     */
    static void restoreFromSavepoint(EmbeddedEngine client, Path conf, EngineCluster.Member master, SharedBackend ns,
                                     long jobId, Map<Integer, FakeSourceProgress> saved, String label, Duration wait)
            throws Exception {
        long t0 = System.nanoTime();
        client.restoreRunning(conf, jobId, wait);
        awaitRestoredFrom(master, ids(saved), wait);
        Map<Integer, FakeSourceProgress> firstAfter = awaitResumed(ns, jobId, saved, wait);
        Figures.record(label + ": first checkpoint after the restore from the savepoint", summary(firstAfter));
        Figures.record(label + ": -r -> a checkpoint of both pipelines, ms", millis(t0, System.nanoTime()));
    }

    /**
     * Waits for each pipeline's first checkpoint after the state in {@code from} and checks that it
     * continues from that state ({@link FakeSourceProgress#requireResumedFrom}).
     */
    private static Map<Integer, FakeSourceProgress> awaitResumed(SharedBackend ns, long jobId, Map<Integer, FakeSourceProgress> from,
                                                         Duration wait) {
        Map<Integer, PipelineState> first = ns.awaitFirstCheckpointsAfter(jobId, ids(from), wait);
        Map<Integer, FakeSourceProgress> after = new TreeMap<>();
        first.forEach((pipeline, state) -> {
            FakeSourceProgress p = FakeSourceProgress.of(state);
            p.requireResumedFrom(from.get(pipeline), Jobs.PROGRESS_SPLITS);
            after.put(pipeline, p);
        });
        return after;
    }

    /** Every savepoint of the job, verified whole; pipeline id -> the newest kept checkpoint id of that pipeline. */
    static Map<Integer, Long> verifiedBundles(SharedBackend ns, long jobId) throws Exception {
        Map<Integer, Long> newest = new TreeMap<>();
        verifiedSavepointStates(ns, jobId).forEach((pipeline, c) -> newest.put(pipeline, c.checkpointId()));
        return newest;
    }

    /** Every savepoint of the job, verified whole; pipeline id -> its newest kept state. */
    private static Map<Integer, CompletedCheckpoint> verifiedSavepointStates(SharedBackend ns, long jobId) throws Exception {
        Map<Integer, CompletedCheckpoint> newest = new TreeMap<>();
        for (SavepointHandle h : ns.savepoints().list(jobId)) {
            ns.savepoints().verify(h).forEach((pipeline, c) -> newest.merge(pipeline, c,
                    (a, b) -> a.checkpointId() >= b.checkpointId() ? a : b));
        }
        return newest;
    }

    /** Each pipeline's checkpoint id. */
    static Map<Integer, Long> ids(Map<Integer, FakeSourceProgress> progress) {
        Map<Integer, Long> ids = new TreeMap<>();
        progress.forEach((pipeline, p) -> ids.put(pipeline, p.checkpointId()));
        return ids;
    }

    /** For the figures: per pipeline, the checkpoint id, the rows read and the splits left. */
    private static Map<Integer, String> summary(Map<Integer, FakeSourceProgress> progress) {
        Map<Integer, String> summary = new TreeMap<>();
        progress.forEach((pipeline, p) -> summary.put(pipeline, "checkpoint " + p.checkpointId() + ", "
                + p.rowsRead(Jobs.progressRows()) + " of " + Jobs.progressRows() + " rows read, "
                + p.unread().size() + " splits unread"));
        return summary;
    }

    private static long millis(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1_000_000;
    }
}
