package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.KeepsakeException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageListener;
import io.keepsake.storage.internal.NewestSavepoints;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The state a restore ({@code seatunnel.sh -r}) of one pipeline starts from: the newest state that
 * reads back whole, a checkpoint file or a kept savepoint. A checkpoint file reads back whole when
 * it decodes, the checkpoint in it decodes as the engine's and the ids of its name, its wrapper and
 * its checkpoint agree (a {@code .ser} file carries no checksum); one that does not is skipped, named
 * at ERROR, and the next newer file is tried. Newest is what the savepoints' verified
 * metadata says, never their folder names: the highest checkpoint id, and among savepoints of one
 * checkpoint id the one completed last (ids can repeat: a restore that skipped a damaged bundle
 * numbers its checkpoints again from the older state it took). On a tie with a savepoint the
 * checkpoint file wins: it holds the same state of the same run and needs no bundle read.
 *
 * <p>The savepoints are ordered by the core's lookup ({@link NewestSavepoints}): index markers
 * first, then the metadata of the folders that may hold the answer, read and verified. The chosen
 * bundle's payload is then read and verified; when it fails its checks it is skipped, named at
 * ERROR and reported to the storage's listeners, and the next newest is chosen, as
 * {@code SavepointRestorer}'s fallback past corrupted savepoints does. Bundles older than the
 * answer are never read. When every candidate failed and no checkpoint file is left, the restore
 * is refused naming the bundles rather than letting the job start without state.
 *
 * <p>A bundle whose format version this build cannot read, or a storage that cannot be read at
 * all, fails the restore: neither is a damaged savepoint. Stateless and thread-safe.
 */
final class NewestReadableState {

    private static final Logger LOG = LoggerFactory.getLogger(NewestReadableState.class);

    private final CheckpointStorage checkpoints;
    private final SavepointStorage savepoints;
    private final SavepointReaderRegistry readers;

    NewestReadableState(CheckpointStorage checkpoints, SavepointStorage savepoints, SavepointReaderRegistry readers) {
        this.checkpoints = checkpoints;
        this.savepoints = savepoints;
        this.readers = readers;
    }

    /**
     * The newest readable state of one pipeline, or null when the job has none.
     *
     * @throws CheckpointStorageException when the storage cannot be read, a newer bundle has a format
     *                                    version this build does not read, or every state failed its checks
     */
    PipelineState of(String jobId, int pipelineId) throws CheckpointStorageException {
        Map<String, String> skipped = new LinkedHashMap<>();
        io.keepsake.storage.PipelineState file;
        try {
            file = newestWholeFile(jobId, pipelineId, skipped);
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            throw new CheckpointStorageException("Cannot read checkpoints of job " + jobId + ": " + e.getMessage(), e);
        }
        long fileId = file == null ? Long.MIN_VALUE : file.checkpointId();
        // Savepoints below this id are not chosen: the checkpoint file wins a tie.
        Map<Integer, Long> belowFile = file == null || fileId == Long.MAX_VALUE ? Map.of()
                : Map.of(pipelineId, fileId + 1);
        try {
            NewestSavepoints candidates = new NewestSavepoints(savepoints, jobId,
                    (savepointId, e) -> skip(jobId, savepointId, e, skipped));
            SavepointHandle chosen = candidates.choose(belowFile).get(pipelineId);
            candidates.checkUnclaimedCorrupted();
            while (chosen != null) {
                Optional<PipelineState> state = read(jobId, pipelineId, chosen, skipped);
                if (state.isPresent()) {
                    long id = state.get().getCheckpointId();
                    LOG.info("Job {} pipeline {}: newest state is savepoint {} (checkpoint {}){}", jobId, pipelineId,
                            chosen.savepointId(), id, file == null ? ", no checkpoint file is left"
                                    : ", newer than checkpoint " + fileId);
                    afterSkipping(jobId, pipelineId, skipped, "savepoint " + chosen.savepointId() + " (checkpoint "
                            + id + ")");
                    return state.get();
                }
                candidates.skip(chosen.savepointId());
                chosen = candidates.choose(belowFile).get(pipelineId);
            }
        } catch (KeepsakeException e) {
            throw new CheckpointStorageException("Cannot read savepoints of job " + jobId + " pipeline " + pipelineId
                    + ": " + e.getMessage(), e);
        }
        if (file == null) {
            if (!skipped.isEmpty()) {
                throw new CheckpointStorageException("Cannot restore job " + jobId + " pipeline " + pipelineId
                        + ": no state of it reads back whole, so it is not restored rather than started without"
                        + " state; skipped " + skipped + "; `keepsake verify " + jobId + "` names the damaged"
                        + " savepoints, and once the damaged savepoints (`keepsake delete`) and checkpoint files"
                        + " are removed a restore starts the pipeline without state");
            }
            return null;
        }
        afterSkipping(jobId, pipelineId, skipped, "checkpoint " + fileId + " (checkpoint file)");
        return PipelineState.builder().jobId(file.jobId()).pipelineId(file.pipelineId())
                .checkpointId(file.checkpointId()).states(file.states()).build();
    }

    /**
     * The pipeline's newest checkpoint file that reads back whole: the file decodes, the checkpoint in
     * it decodes as the engine's, and the job, pipeline and checkpoint ids of its name, its wrapper
     * and its checkpoint agree. A file that fails is skipped and named at ERROR; a file rotated away
     * since the listing is passed over; a failure to read is thrown. A {@code .ser} file carries no
     * checksum, so damage that still decodes with the same ids is not seen here.
     */
    private io.keepsake.storage.PipelineState newestWholeFile(String jobId, int pipelineId, Map<String, String> skipped)
            throws io.keepsake.storage.CheckpointStorageException {
        if (!(checkpoints instanceof KeepsakeStorage storage)) {
            return checkpoints.getLatestCheckpointByJobIdAndPipelineId(jobId, Integer.toString(pipelineId));
        }
        List<CheckpointFile> newestFirst = new ArrayList<>(storage.checkpointFiles(jobId));
        newestFirst.removeIf(f -> f.pipelineId() != pipelineId);
        newestFirst.sort(Comparator.comparingLong(CheckpointFile::checkpointId).reversed());
        for (CheckpointFile f : newestFirst) {
            io.keepsake.storage.PipelineState state;
            try {
                state = checkpoints.getCheckpoint(jobId, Integer.toString(pipelineId), Long.toString(f.checkpointId()));
            } catch (io.keepsake.storage.CheckpointStorageException e) {
                if (e.getCause() instanceof CheckpointCorruptedException corrupted) {
                    skipFile(jobId, f, corrupted, skipped);
                    continue;
                }
                if (!storage.checkpointFiles(jobId).contains(f)) {
                    continue; // rotated away since the listing
                }
                throw e;
            }
            try {
                CompletedCheckpoint checkpoint = LegacyCheckpointCodec.decodeCheckpoint(state.states(), f.path());
                sameId(f, "job id", jobId, state.jobId(), Long.toString(checkpoint.jobId()));
                sameId(f, "pipeline id", Integer.toString(pipelineId), Integer.toString(state.pipelineId()),
                        Integer.toString(checkpoint.pipelineId()));
                sameId(f, "checkpoint id", Long.toString(f.checkpointId()), Long.toString(state.checkpointId()),
                        Long.toString(checkpoint.checkpointId()));
            } catch (CheckpointCorruptedException corrupted) {
                skipFile(jobId, f, corrupted, skipped);
                continue;
            }
            return state;
        }
        return null;
    }

    private static void sameId(CheckpointFile f, String what, String name, String wrapper, String inner) {
        if (!name.equals(wrapper) || !name.equals(inner)) {
            throw new CheckpointCorruptedException(f.path(), "Cannot decode legacy checkpoint file: its name, its wrapper"
                    + " and its checkpoint disagree on the " + what + " (" + name + ", " + wrapper + ", " + inner + ")",
                    name, wrapper + "/" + inner);
        }
    }

    private static void skipFile(String jobId, CheckpointFile f, CheckpointCorruptedException e,
                                 Map<String, String> skipped) {
        skipped.put(f.path(), e.getMessage());
        LOG.error("Skipped checkpoint file {} of job {} pipeline {} (checkpoint {}): it does not read back whole: {};"
                + " the restore falls back to the next newest state; the file stays", f.path(), jobId, f.pipelineId(),
                f.checkpointId(), e.getMessage());
    }

    private Optional<PipelineState> read(String jobId, int pipelineId, SavepointHandle handle,
                                         Map<String, String> skipped) {
        CompletedCheckpoint checkpoint;
        try {
            checkpoint = readers.read(savepoints, handle).get(pipelineId);
        } catch (SavepointCorruptedException e) {
            skip(jobId, handle.savepointId(), e, skipped);
            return Optional.empty();
        }
        return Optional.of(PipelineState.builder().jobId(jobId).pipelineId(pipelineId)
                .checkpointId(checkpoint.checkpointId()).states(LegacyCheckpointCodec.encodeCheckpoint(checkpoint))
                .build());
    }

    private void skip(String jobId, String savepointId, SavepointCorruptedException e, Map<String, String> skipped) {
        skipped.put(savepointId, e.getMessage());
        listener().onVerifyFailure(jobId, savepointId, e);
        LOG.error("Skipped savepoint {} of job {}: it fails its checks: {}; the restore falls back to the next newest"
                + " state; the savepoint stays until deleted (`keepsake verify {} {}` names the damage)", savepointId,
                jobId, e.getMessage(), jobId, savepointId);
    }

    private static void afterSkipping(String jobId, int pipelineId, Map<String, String> skipped, String restored) {
        if (!skipped.isEmpty()) {
            LOG.error("Job {} pipeline {} restores from {}, the newest state that reads back whole; skipped as"
                    + " damaged: {}", jobId, pipelineId, restored, skipped.keySet());
        }
    }

    private StorageListener listener() {
        return savepoints instanceof KeepsakeStorage k ? k.listener() : StorageListener.NONE;
    }
}
