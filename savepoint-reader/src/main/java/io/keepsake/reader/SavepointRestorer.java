package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.LegacyCheckpoints;
import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.StorageListener;
import io.keepsake.storage.internal.NewestSavepoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The restore facade, with two deliberately different entries:
 * <ul>
 *   <li>{@link #recoverLatest(String)}, crash recovery: for each pipeline of the job, the newest
 *   completed state, whether a legacy checkpoint file or a pipeline of a complete savepoint (the
 *   highest checkpoint id wins; on a tie the savepoint, whose bytes are checksummed; between
 *   savepoints on a tie the newest completed, then the greatest savepoint id);</li>
 *   <li>{@link #restoreSavepoint(String, String)} and {@link #restoreSavepointAt(String)}: one
 *   savepoint chosen on purpose, by id or by directory (also one copied elsewhere, and also into
 *   a job with another id), whatever checkpoints exist.</li>
 * </ul>
 * Recovery is only correct when the engine's checkpoint ids keep growing across a restore: the
 * engine numbers its next checkpoint from {@link RestoredState#nextCheckpointId()}.
 *
 * <p>Every savepoint payload read is verified (length, SHA-256, decoding). During recovery, a
 * savepoint that does not verify fails the restore unless {@link #withFallbackPastCorrupted} is on,
 * in which case the next newest state of the affected pipelines is used and the skip is logged at
 * error level. Only a savepoint whose bytes prove it damaged ({@link SavepointCorruptedException}:
 * a length or digest that does not match, a structure that does not decode) is ever skipped; one
 * that could not be read because the storage failed, or because the JVM ran out of heap or stack
 * ({@link SavepointResourcesExhaustedException}), fails the recovery, fallback or not. Restores and verification failures are reported to the storage's
 * {@link StorageListener}s when the savepoint side is a {@link KeepsakeStorage}. Immutable and
 * thread-safe.
 */
public final class SavepointRestorer {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointRestorer.class);

    private final CheckpointStorage checkpoints;
    private final SavepointStorage savepoints;
    private final SavepointReaderRegistry registry;
    private final boolean fallbackPastCorrupted;
    private final StorageListener listener;

    /** A restorer over one storage: its checkpoint files, its savepoints and its listeners. */
    public SavepointRestorer(KeepsakeStorage storage) {
        this(storage, storage);
    }

    /**
     * A restorer over a checkpoint side and a savepoint side (normally the same storage);
     * recovery ignores checkpoint files when {@code checkpoints} is null.
     *
     * @throws InvalidStorageArgumentException when {@code savepoints} is null
     */
    public SavepointRestorer(CheckpointStorage checkpoints, SavepointStorage savepoints) {
        this(checkpoints, savepoints, SavepointReaderRegistry.standard(), false);
    }

    private SavepointRestorer(CheckpointStorage checkpoints, SavepointStorage savepoints,
                              SavepointReaderRegistry registry, boolean fallbackPastCorrupted) {
        if (savepoints == null) {
            throw new InvalidStorageArgumentException("Cannot create restorer: the savepoint storage is null");
        }
        this.checkpoints = checkpoints;
        this.savepoints = savepoints;
        this.registry = registry;
        this.fallbackPastCorrupted = fallbackPastCorrupted;
        this.listener = savepoints instanceof KeepsakeStorage k ? k.listener() : StorageListener.NONE;
    }

    /**
     * A copy whose recovery, when the savepoint holding a pipeline's newest state is corrupted,
     * uses that pipeline's next newest state instead of failing; any other failure to read it still fails.
     */
    public SavepointRestorer withFallbackPastCorrupted(boolean enabled) {
        return new SavepointRestorer(checkpoints, savepoints, registry, enabled);
    }

    /**
     * Crash recovery: for each pipeline of the job, its newest completed state, checkpoint file or
     * savepoint, by checkpoint id.
     *
     * @throws SavepointNotFoundException      when the job has neither a savepoint nor a checkpoint
     * @throws SavepointCorruptedException     when a savepoint holding a newest state does not verify
     *                                         (and fallback is off)
     * @throws SavepointResourcesExhaustedException when the JVM runs out of heap or stack decoding
     *                                         such a savepoint (also with fallback on)
     * @throws SavepointStorageException when reading such a savepoint fails
     *                                         (also with fallback on)
     * @throws SavepointIncompatibleException when such a savepoint's format
     *                                         version is outside this build's window
     * @throws CheckpointCorruptedException when a newest checkpoint file names
     *                                         another job, pipeline or checkpoint
     */
    public RestoredState recoverLatest(String jobId) {
        long start = System.nanoTime();
        List<String> warnings = new ArrayList<>();
        Map<Integer, LegacyCheckpoints.Decoded> legacy = new TreeMap<>();
        if (checkpoints != null) {
            LegacyCheckpoints.latest(checkpoints, jobId).forEach(d -> legacy.put(d.pipelineId(), d));
        }
        NewestSavepoints candidates = new NewestSavepoints(savepoints, jobId,
                (savepointId, e) -> skipCorrupted(jobId, savepointId, e, warnings));
        Map<Integer, Long> checkpointFiles = new TreeMap<>();
        legacy.forEach((pid, d) -> checkpointFiles.put(pid, d.checkpointId()));
        Map<Integer, SavepointHandle> chosen = candidates.choose(checkpointFiles);
        candidates.checkUnclaimedCorrupted();
        if (chosen.isEmpty() && legacy.isEmpty() && !candidates.skippedAny()) {
            throw new SavepointNotFoundException("Cannot recover job " + jobId + ": it has no savepoint under "
                    + savepoints.savepointRoot() + (checkpoints == null ? "" : " and no checkpoint"));
        }

        Map<String, Map<Integer, CompletedCheckpoint>> read = new HashMap<>();
        long bytes = 0;
        while (true) {
            SavepointHandle unread = chosen.values().stream().filter(h -> !read.containsKey(h.savepointId()))
                    .findFirst().orElse(null);
            if (unread == null) {
                return recovered(jobId, chosen, read, legacy, warnings, bytes, start);
            }
            try {
                read.put(unread.savepointId(), registry.read(savepoints, unread));
                bytes += unread.meta().manifest().stream().mapToLong(ManifestEntry::length).sum();
            } catch (SavepointCorruptedException e) {
                skipCorrupted(jobId, unread.savepointId(), e, warnings);
                candidates.skip(unread.savepointId());
                chosen = candidates.choose(checkpointFiles);
            }
        }
    }

    /** Where a recovered state comes from: one savepoint for every pipeline, checkpoint files only, or both. */
    private static RestoredState.Source sourceOf(Map<Integer, SavepointHandle> chosen, int pipelines) {
        Set<String> used = new HashSet<>();
        chosen.values().forEach(h -> used.add(h.savepointId()));
        if (chosen.size() == pipelines && used.size() == 1) {
            return RestoredState.Source.SAVEPOINT;
        }
        return chosen.isEmpty() ? RestoredState.Source.LEGACY_CHECKPOINTS : RestoredState.Source.MIXED;
    }

    private RestoredState recovered(String jobId, Map<Integer, SavepointHandle> chosen,
                                    Map<String, Map<Integer, CompletedCheckpoint>> read,
                                    Map<Integer, LegacyCheckpoints.Decoded> legacy, List<String> warnings,
                                    long bytes, long start) {
        Map<Integer, CompletedCheckpoint> byPipeline = new TreeMap<>();
        Map<Integer, RestoredState.Origin> origins = new TreeMap<>();
        Set<Integer> pipelines = new HashSet<>(legacy.keySet());
        pipelines.addAll(chosen.keySet());
        for (int pid : pipelines) {
            SavepointHandle h = chosen.get(pid);
            if (h != null) {
                CompletedCheckpoint cp = read.get(h.savepointId()).get(pid);
                byPipeline.put(pid, cp);
                origins.put(pid, new RestoredState.Origin(cp.checkpointId(), Optional.of(h.savepointId()),
                        h.location()));
            } else {
                LegacyCheckpoints.Decoded d = legacy.get(pid);
                byPipeline.put(pid, d.checkpoint());
                origins.put(pid, new RestoredState.Origin(d.checkpointId(), Optional.empty(), d.source()));
            }
        }
        if (byPipeline.isEmpty()) {
            throw new SavepointNotFoundException("Cannot recover job " + jobId + ": every savepoint under "
                    + savepoints.savepointRoot() + " was skipped as corrupted and it has no checkpoint");
        }
        RestoredState.Source source = sourceOf(chosen, byPipeline.size());
        Optional<SavepointHandle> savepoint = source == RestoredState.Source.SAVEPOINT
                ? Optional.of(chosen.values().iterator().next()) : Optional.empty();
        if (source == RestoredState.Source.LEGACY_CHECKPOINTS && read.isEmpty() && warnings.isEmpty()) {
            // The ordinary recovery of a running job (a failover restores its newest checkpoint files),
            // so it is logged at INFO; callers that restore from files alone on purpose read the warning.
            String warning = "Job " + jobId + " restored pipelines " + byPipeline.keySet() + " from its newest"
                    + " checkpoint files, in the legacy v0 format (SeaTunnel's .ser: no checksums, checked by"
                    + " decoding only); no savepoint bundle under " + savepoints.savepointRoot() + " is newer";
            LOG.info(warning);
            warnings.add(warning);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        Map<Integer, String> described = new LinkedHashMap<>();
        origins.forEach((pid, o) -> described.put(pid, "checkpoint " + o.checkpointId()
                + o.savepointId().map(id -> " from savepoint " + id).orElse(" from a checkpoint file")));
        LOG.info("Recovered job {}: {} ({} savepoint bytes verified in {} ms)", jobId, described, bytes,
                took.toMillis());
        listener.onRestore(jobId, newestContributing(chosen), bytes, took);
        return new RestoredState(source, savepoint, byPipeline, origins, warnings);
    }

    /**
     * The id of the savepoint that gave a pipeline the newest state (the highest checkpoint id; on
     * a tie the newest-completed savepoint), or null when no pipeline came from a savepoint; the
     * one savepoint of a {@link RestoredState.Source#SAVEPOINT} recovery.
     */
    private static String newestContributing(Map<Integer, SavepointHandle> chosen) {
        Map<SavepointHandle, Long> newestGiven = new HashMap<>();
        chosen.forEach((pid, h) -> newestGiven.merge(h, h.meta().manifest().stream()
                .filter(e -> e.pipelineId() == pid).mapToLong(ManifestEntry::checkpointId).max()
                .orElse(Long.MIN_VALUE), Math::max));
        return newestGiven.entrySet().stream()
                .max(Comparator.comparingLong((Map.Entry<SavepointHandle, Long> e) -> e.getValue())
                        .thenComparingLong(e -> e.getKey().meta().completedTimestamp())
                        .thenComparing(e -> e.getKey().savepointId()))
                .map(e -> e.getKey().savepointId()).orElse(null);
    }

    private void skipCorrupted(String jobId, String savepointId, SavepointCorruptedException e, List<String> warnings) {
        listener.onVerifyFailure(jobId, savepointId, e);
        if (!fallbackPastCorrupted) {
            throw e;
        }
        String warning = "Skipped corrupted savepoint " + savepointId + " of job " + jobId + ": " + e.getMessage();
        LOG.error("{}; falling back to the next newest state because fallback past corrupted savepoints is on",
                warning);
        warnings.add(warning);
    }

    /**
     * One savepoint chosen on purpose, by id, whatever checkpoints the job has.
     *
     * @throws SavepointNotFoundException  when it is not a complete savepoint
     * @throws SavepointCorruptedException when any byte does not verify
     * @throws SavepointResourcesExhaustedException when the JVM runs out of heap or stack decoding it
     * @throws SavepointIncompatibleException when its format version is outside the window
     */
    public RestoredState restoreSavepoint(String jobId, String savepointId) {
        long start = System.nanoTime();
        return restore(savepoints, savepoints.readMetadata(jobId, savepointId), start);
    }

    /**
     * The savepoint in {@code directory}, chosen on purpose, as Flink's {@code -s <path>}: the path
     * must end in {@code <jobId>/<savepointId>}; the folder above the job folder is used as the
     * savepoint root for this read only, so a savepoint copied elsewhere restores too.
     *
     * @throws InvalidStorageArgumentException when the path has no job and savepoint component
     * @throws SavepointNotFoundException      when there is no complete savepoint there
     * @throws SavepointCorruptedException     when any byte does not verify
     * @throws SavepointResourcesExhaustedException when the JVM runs out of heap or stack decoding it
     */
    public RestoredState restoreSavepointAt(String directory) {
        long start = System.nanoTime();
        String path = directory == null ? "" : directory.replaceAll("/+$", "");
        int last = path.lastIndexOf('/');
        int previous = last <= 0 ? -1 : path.lastIndexOf('/', last - 1);
        if (previous <= 0) {
            throw new InvalidStorageArgumentException("Cannot restore savepoint at path: it must end in"
                    + " <jobId>/<savepointId> below a root (" + directory + ")");
        }
        String root = path.substring(0, previous);
        String jobId = path.substring(previous + 1, last);
        String savepointId = path.substring(last + 1);
        SavepointStorage view = savepoints.withSavepointRoot(root);
        return restore(view, view.readMetadata(jobId, savepointId), start);
    }

    private RestoredState restore(SavepointStorage from, SavepointHandle handle, long start) {
        Map<Integer, CompletedCheckpoint> byPipeline;
        try {
            byPipeline = registry.read(from, handle);
        } catch (SavepointCorruptedException e) {
            listener.onVerifyFailure(handle.jobId(), handle.savepointId(), e);
            throw e;
        }
        long bytes = handle.meta().manifest().stream().mapToLong(ManifestEntry::length).sum();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        Map<Integer, RestoredState.Origin> origins = new TreeMap<>();
        byPipeline.forEach((pid, cp) -> origins.put(pid, new RestoredState.Origin(cp.checkpointId(),
                Optional.of(handle.savepointId()), handle.location())));
        LOG.info("Restored savepoint {} of job {}: {} pipeline(s), {} bytes verified in {} ms ({})",
                handle.savepointId(), handle.jobId(), byPipeline.size(), bytes, took.toMillis(), handle.location());
        listener.onRestore(handle.jobId(), handle.savepointId(), bytes, took);
        return new RestoredState(RestoredState.Source.SAVEPOINT, Optional.of(handle), byPipeline, origins, List.of());
    }
}
