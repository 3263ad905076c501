package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.KeepsakeException;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCommitFailedException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps the savepoints of one {@link KeepsakeCheckpointStorage} as Keepsake bundles, one per
 * pipeline and checkpoint, named {@code st-<checkpointId, 19 digits>-p<pipelineId>}: a bundle of
 * that name counts as this savepoint kept only when it verifies and holds this very state;
 * otherwise the savepoint is kept as {@code -2}, {@code -3} and so on. One savepoint session per
 * job at a time, across the storages of the process. Thread-safe.
 */
final class SavepointKeeper {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointKeeper.class);
    /** One savepoint session per job at a time, as {@link SavepointSaveSession} requires. */
    private static final Map<String, Object> JOB_LOCKS = new ConcurrentHashMap<>();

    private final SavepointStorage savepoints;
    private final SavepointReaderRegistry readers;
    private final FailedSavepoints failedSavepoints;

    SavepointKeeper(SavepointStorage savepoints, SavepointReaderRegistry readers, FailedSavepoints failedSavepoints) {
        this.savepoints = savepoints;
        this.readers = readers;
        this.failedSavepoints = failedSavepoints;
    }

    /** How many bundle names one savepoint tries before it fails: far more than damaged bundles of one id. */
    private static final int MAX_NAMES = 100;

    /**
     * Commits the savepoint as a bundle under its first free name, or finds it kept already; tells
     * {@link FailedSavepoints} either way.
     *
     * @throws CheckpointStorageException when it cannot be kept (the pipeline's later checkpoints are then refused)
     */
    void keep(CompletedCheckpoint checkpoint) throws CheckpointStorageException {
        String jobId = Long.toString(checkpoint.jobId());
        String base = KeepsakeCheckpointStorage.savepointId(checkpoint.checkpointId(), checkpoint.pipelineId());
        Object lock = JOB_LOCKS.computeIfAbsent(savepoints.savepointRoot() + "|" + jobId, k -> new Object());
        synchronized (lock) {
            String id = base;
            try {
                for (int n = 2; ; n++) {
                    Optional<SavepointHandle> kept = commitUnlessTaken(jobId, id, checkpoint);
                    if (kept.isPresent()) {
                        failedSavepoints.kept(jobId, checkpoint.pipelineId());
                        LOG.info("Kept savepoint {} of job {} (pipeline {}, checkpoint {}) at {}", id, jobId,
                                checkpoint.pipelineId(), checkpoint.checkpointId(), kept.get().location());
                        return;
                    }
                    Optional<String> differs = differsFrom(jobId, id, checkpoint);
                    if (differs.isEmpty()) {
                        failedSavepoints.kept(jobId, checkpoint.pipelineId());
                        LOG.info("Savepoint {} of job {} is already kept: it verifies and holds this very state"
                                + " (pipeline {}, checkpoint {}); storing the checkpoint file only", id, jobId,
                                checkpoint.pipelineId(), checkpoint.checkpointId());
                        return;
                    }
                    if (n > MAX_NAMES) {
                        throw new SavepointCommitFailedException("every name from " + base
                                + " to " + id + " is taken by a bundle that does not hold this state", null);
                    }
                    String next = base + "-" + n;
                    LOG.warn("Savepoint {} of job {} exists but {}; keeping this savepoint (pipeline {}, checkpoint {})"
                            + " as {} instead (checkpoint ids repeat after a restore that skipped a damaged bundle)",
                            id, jobId, differs.get(), checkpoint.pipelineId(), checkpoint.checkpointId(), next);
                    id = next;
                }
            } catch (RuntimeException e) { // KeepsakeException, or a bug: either way the savepoint is not kept
                failedSavepoints.failed(jobId, checkpoint.pipelineId(), checkpoint.checkpointId(), id, e.getMessage());
                LOG.error("Cannot keep savepoint {} of job {} (pipeline {}, checkpoint {}): {}; SeaTunnel restarts the"
                        + " pipeline and leaves the job in DOING_SAVEPOINT, so the pipeline's next checkpoints are"
                        + " refused until the engine fails the job after job.retry.times restarts", id, jobId,
                        checkpoint.pipelineId(), checkpoint.checkpointId(), e.getMessage());
                throw new CheckpointStorageException("Cannot keep savepoint " + id + " of job " + jobId + " (pipeline "
                        + checkpoint.pipelineId() + ", checkpoint " + checkpoint.checkpointId() + "): "
                        + e.getMessage(), e);
            }
        }
    }

    /** Commits the savepoint as {@code id}; empty when a savepoint of that id exists already. */
    private Optional<SavepointHandle> commitUnlessTaken(String jobId, String id, CompletedCheckpoint checkpoint) {
        try (SavepointSaveSession session = SavepointSaveSession.builder(savepoints, jobId,
                List.of(checkpoint.pipelineId())).kind(SavepointKind.MANUAL).savepointId(id).open()) {
            session.report(checkpoint);
            session.pipelineSuspended(checkpoint.pipelineId());
            return Optional.of(session.commit());
        } catch (SavepointAlreadyExistsException e) {
            return Optional.empty();
        }
    }

    /**
     * Why the savepoint {@code id} does not count as this state kept; empty only when it verifies
     * (metadata and payload checksums, decoding) and holds exactly this pipeline's state at this
     * checkpoint. Anything that cannot be shown, a damaged bundle, one in a format this build does
     * not read, or a read that failed, is a reason: a new bundle name costs nothing, a savepoint
     * reported done and not kept costs the operator's state.
     */
    private Optional<String> differsFrom(String jobId, String id, CompletedCheckpoint checkpoint) {
        Map<Integer, CompletedCheckpoint> held;
        try {
            held = readers.read(savepoints, savepoints.readMetadata(jobId, id));
        } catch (SavepointCorruptedException e) {
            return Optional.of("fails its checks (" + e.getMessage() + ")");
        } catch (KeepsakeException e) {
            return Optional.of("cannot be shown to hold this state (" + e.getMessage() + ")");
        }
        if (!held.keySet().equals(Set.of(checkpoint.pipelineId()))) {
            return Optional.of("holds pipelines " + held.keySet());
        }
        CompletedCheckpoint other = held.get(checkpoint.pipelineId());
        if (other.checkpointId() != checkpoint.checkpointId()) {
            return Optional.of("holds checkpoint " + other.checkpointId());
        }
        if (!MessageDigest.isEqual(digest(other), digest(checkpoint))) {
            return Optional.of("holds another state of checkpoint " + checkpoint.checkpointId()
                    + " (its SHA-256 differs)");
        }
        return Optional.empty();
    }

    private static byte[] digest(CompletedCheckpoint checkpoint) {
        try {
            return MessageDigest.getInstance("SHA-256")
                    .digest(LegacyCheckpointCodec.encodeCheckpoint(checkpoint));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
