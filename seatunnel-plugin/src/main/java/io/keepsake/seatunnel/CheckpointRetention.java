package io.keepsake.seatunnel;

import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.KeepsakeStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The rotations of one {@link KeepsakeCheckpointStorage}: the checkpoint files the engine rotates
 * away, and those older than every one it names, deleted on one worker thread in the order the
 * rotations came, off the checkpoint's critical path. A rotation that fails is logged; the
 * pipeline's next rotation removes what it left. Only checkpoint files are touched, never a
 * savepoint bundle. Thread-safe.
 */
final class CheckpointRetention {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointRetention.class);

    /** The name of the thread that runs rotations. */
    static final String THREAD_NAME = "keepsake-seatunnel-retention";

    private final CheckpointStorage checkpoints;
    private final ThreadPoolExecutor worker = retentionWorker();

    CheckpointRetention(CheckpointStorage checkpoints) {
        this.checkpoints = checkpoints;
    }

    /** Queues one rotation: the engine's deletes, then the files older than every one it names. */
    void rotate(String jobId, String pipelineId, List<String> ids) {
        worker.execute(() -> runRotation(jobId, pipelineId, ids));
    }

    private void runRotation(String jobId, String pipelineId, List<String> ids) {
        try {
            checkpoints.deleteCheckpoint(jobId, pipelineId, ids);
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            LOG.warn("Cannot delete checkpoints {} of job {} pipeline {} (rotation): {}; the pipeline's next rotation"
                    + " removes them", ids, jobId, pipelineId, e.getMessage(), e);
        }
        removeOlderThanRotated(jobId, pipelineId, ids);
    }

    /**
     * Waits up to {@code timeout} for every rotation queued before this call to end; true when they
     * did. For tests that look at the files a rotation removes.
     */
    boolean await(Duration timeout) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        worker.execute(done::countDown);
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The retention worker: one thread, rotations in order; it ends after 30 s without work. */
    private static ThreadPoolExecutor retentionWorker() {
        ThreadPoolExecutor worker = new ThreadPoolExecutor(1, 1, 30,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, THREAD_NAME);
                    t.setDaemon(true);
                    return t;
                });
        worker.allowCoreThreadTimeOut(true);
        return worker;
    }

    private void removeOlderThanRotated(String jobId, String pipelineId, List<String> rotated) {
        if (!(checkpoints instanceof KeepsakeStorage storage) || rotated == null || rotated.isEmpty()) {
            return;
        }
        long oldestRotated = Long.MAX_VALUE;
        int pid;
        try {
            pid = Integer.parseInt(pipelineId.trim());
            for (String id : rotated) {
                oldestRotated = Math.min(oldestRotated, Long.parseLong(id.trim()));
            }
        } catch (NumberFormatException | NullPointerException e) {
            return; // the engine's delete above already refused such ids
        }
        List<String> older = new ArrayList<>();
        try {
            for (CheckpointFile f : storage.checkpointFiles(jobId)) {
                if (f.pipelineId() == pid && f.checkpointId() < oldestRotated) {
                    older.add(Long.toString(f.checkpointId()));
                }
            }
            if (!older.isEmpty()) {
                checkpoints.deleteCheckpoint(jobId, pipelineId, older);
                LOG.info("Removed checkpoints {} of job {} pipeline {}: older than the checkpoints the engine rotated"
                        + " away ({}), which it no longer tracks since its checkpoint coordinator was created anew"
                        + " (restore or master failover); savepoint bundles stay", older, jobId, pipelineId, rotated);
            }
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            LOG.warn("Cannot remove checkpoints {} of job {} pipeline {} older than the rotated ones ({}): {}; they stay"
                    + " until the job's checkpoints are deleted", older, jobId, pipelineId, rotated, e.getMessage());
        }
    }
}
