package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.LegacyCheckpoints;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The restore facade: the newest complete savepoint of a job (also for a new job restoring from
 * an old job's savepoint), a savepoint by id, or by directory (also one copied elsewhere); and,
 * only when a job has no savepoint bundle at all, the legacy checkpoint scan (latest checkpoint
 * per pipeline, decoded with the v0 codec) with a warning. Falling back past a corrupted newest
 * savepoint to the previous intact one is off by default and logged at error level when used.
 * Immutable and thread-safe.
 */
public final class SavepointRestorer {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointRestorer.class);

    private final CheckpointStorage checkpoints;
    private final SavepointStorage savepoints;
    private final SavepointReaderRegistry registry;
    private final boolean fallbackPastCorrupted;

    /** A restorer over a storage that has both SPIs; the legacy scan is skipped when {@code checkpoints} is null. */
    public SavepointRestorer(CheckpointStorage checkpoints, SavepointStorage savepoints) {
        this(checkpoints, savepoints, SavepointReaderRegistry.standard(), false);
    }

    private SavepointRestorer(CheckpointStorage checkpoints, SavepointStorage savepoints,
                              SavepointReaderRegistry registry, boolean fallbackPastCorrupted) {
        this.checkpoints = checkpoints;
        this.savepoints = savepoints;
        this.registry = registry;
        this.fallbackPastCorrupted = fallbackPastCorrupted;
    }

    /** A copy that, when the newest savepoint is corrupted, restores the previous intact one instead. */
    public SavepointRestorer withFallbackPastCorrupted(boolean enabled) {
        return new SavepointRestorer(checkpoints, savepoints, registry, enabled);
    }

    /**
     * The newest complete savepoint of a job, or the legacy checkpoints when it has no savepoint bundle.
     *
     * @throws SavepointNotFoundException      when there is neither
     * @throws SavepointCorruptedException     when the newest savepoint does not verify (and fallback is off)
     * @throws io.keepsake.storage.SavepointIncompatibleException when its format version is outside the window
     */
    public RestoredSavepoint latest(String jobId) {
        List<SavepointEntry> candidates = new ArrayList<>(savepoints.scanSavepoints(jobId));
        candidates.removeIf(SavepointEntry::incomplete);
        if (candidates.isEmpty()) {
            return legacy(jobId);
        }
        List<String> warnings = new ArrayList<>();
        SavepointCorruptedException first = null;
        for (SavepointEntry entry : candidates) {
            try {
                SavepointHandle handle = entry.handle().orElseThrow(() -> entry.problem().orElseThrow());
                return new RestoredSavepoint(RestoredSavepoint.Source.SAVEPOINT, Optional.of(handle),
                        registry.read(savepoints, handle), warnings);
            } catch (SavepointCorruptedException e) {
                if (!fallbackPastCorrupted) {
                    throw e;
                }
                first = first == null ? e : first;
                String warning = "Skipped corrupted savepoint " + entry.savepointId() + " of job " + jobId + ": "
                        + e.getMessage();
                LOG.error("{}; falling back to the previous savepoint because fallback past corrupted savepoints is on",
                        warning);
                warnings.add(warning);
            }
        }
        throw first;
    }

    /**
     * One savepoint by id.
     *
     * @throws SavepointNotFoundException  when it is not a complete savepoint
     * @throws SavepointCorruptedException when any byte does not verify
     */
    public RestoredSavepoint byId(String jobId, String savepointId) {
        SavepointHandle handle = savepoints.readMetadata(jobId, savepointId);
        return new RestoredSavepoint(RestoredSavepoint.Source.SAVEPOINT, Optional.of(handle),
                registry.read(savepoints, handle), List.of());
    }

    /**
     * The savepoint in {@code directory}, which must end in {@code <jobId>/<savepointId>}; the
     * folder above the job folder is used as the savepoint root for this read only.
     *
     * @throws InvalidStorageArgumentException when the path has no job and savepoint component
     */
    public RestoredSavepoint byPath(String directory) {
        String path = directory == null ? "" : directory.replaceAll("/+$", "");
        int last = path.lastIndexOf('/');
        int previous = last <= 0 ? -1 : path.lastIndexOf('/', last - 1);
        if (previous <= 0) {
            throw new InvalidStorageArgumentException("Cannot restore from path: it must end in <jobId>/<savepointId>"
                    + " below a root (" + directory + ")");
        }
        String root = path.substring(0, previous);
        String jobId = path.substring(previous + 1, last);
        String savepointId = path.substring(last + 1);
        SavepointStorage view = savepoints.withSavepointRoot(root);
        SavepointHandle handle = view.readMetadata(jobId, savepointId);
        return new RestoredSavepoint(RestoredSavepoint.Source.SAVEPOINT, Optional.of(handle),
                registry.read(view, handle), List.of());
    }

    private RestoredSavepoint legacy(String jobId) {
        if (checkpoints == null) {
            throw new SavepointNotFoundException("Cannot restore job " + jobId + ": it has no savepoint under "
                    + savepoints.savepointRoot());
        }
        List<LegacyCheckpoints.Decoded> latest = LegacyCheckpoints.latest(checkpoints, jobId);
        if (latest.isEmpty()) {
            throw new SavepointNotFoundException("Cannot restore job " + jobId + ": it has no savepoint under "
                    + savepoints.savepointRoot() + " and no checkpoint");
        }
        Map<Integer, CompletedCheckpoint> byPipeline = new TreeMap<>();
        latest.forEach(d -> byPipeline.put(d.pipelineId(), d.checkpoint()));
        String warning = "Job " + jobId + " has no savepoint bundle under " + savepoints.savepointRoot()
                + "; restored from its latest legacy checkpoints (unversioned v0 format, no checksums) for pipelines "
                + byPipeline.keySet();
        LOG.warn(warning);
        return new RestoredSavepoint(RestoredSavepoint.Source.LEGACY_CHECKPOINTS, Optional.empty(), byPipeline,
                List.of(warning));
    }
}
