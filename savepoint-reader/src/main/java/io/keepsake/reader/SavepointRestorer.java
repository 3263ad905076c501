package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.LegacyCheckpoints;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.StorageListener;
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
 *   highest checkpoint id wins; on a tie the savepoint, whose bytes are checksummed);</li>
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
 * error level. Restores and verification failures are reported to the storage's
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
     * uses that pipeline's next newest state instead of failing.
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
     * @throws io.keepsake.storage.SavepointIncompatibleException when such a savepoint's format
     *                                         version is outside this build's window
     * @throws io.keepsake.storage.CheckpointCorruptedException when a newest checkpoint file names
     *                                         another job, pipeline or checkpoint
     */
    public RestoredState recoverLatest(String jobId) {
        long start = System.nanoTime();
        List<String> warnings = new ArrayList<>();
        Map<Integer, LegacyCheckpoints.Decoded> legacy = new TreeMap<>();
        if (checkpoints != null) {
            LegacyCheckpoints.latest(checkpoints, jobId).forEach(d -> legacy.put(d.pipelineId(), d));
        }
        Candidates candidates = new Candidates(jobId, savepoints.hintSavepoints(jobId), warnings);
        Map<Integer, SavepointHandle> chosen = candidates.choose(legacy);
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
                chosen = candidates.choose(legacy);
            }
        }
    }

    /**
     * The savepoint folders of one job during a recovery: what each claims (its index marker, or
     * its verified metadata once read), which were read and verified, and which are out (not a
     * complete savepoint, or skipped as corrupted). Only the folders that may hold a pipeline's
     * newest state are read: the chosen ones, ties, and folders without a marker.
     */
    private final class Candidates {
        private final String jobId;
        private final List<String> warnings;
        private final Map<String, SavepointHint> hints = new LinkedHashMap<>();
        private final Map<String, SavepointHandle> verified = new HashMap<>();
        private final Set<String> out = new HashSet<>();
        private final Map<String, SavepointStorageException> unclaimedProblems = new LinkedHashMap<>();
        private boolean skippedAny;

        Candidates(String jobId, List<SavepointHint> hints, List<String> warnings) {
            this.jobId = jobId;
            this.warnings = warnings;
            for (SavepointHint h : hints) {
                this.hints.put(h.savepointId(), h);
            }
            for (SavepointHint h : hints) {
                if (!h.claimed()) {
                    read(h.savepointId(), true);
                }
            }
        }

        /** Reads and verifies one folder's metadata; a folder that is not a verified savepoint is out. */
        private void read(String savepointId, boolean unclaimed) {
            try {
                verified.put(savepointId, savepoints.readMetadata(jobId, savepointId));
            } catch (SavepointNotFoundException e) {
                out.add(savepointId);
            } catch (SavepointCorruptedException e) {
                out.add(savepointId);
                if (unclaimed) {
                    unclaimedProblems.put(savepointId, e);
                } else {
                    skipCorrupted(jobId, savepointId, e, warnings);
                    skippedAny = true;
                }
            } catch (SavepointStorageException e) {
                if (!unclaimed) {
                    throw e;
                }
                out.add(savepointId);
                unclaimedProblems.put(savepointId, e);
            }
        }

        void skip(String savepointId) {
            out.add(savepointId);
            skippedAny = true;
        }

        boolean skippedAny() {
            return skippedAny;
        }

        private Map<Integer, Long> claims(String savepointId) {
            SavepointHandle h = verified.get(savepointId);
            if (h == null) {
                return hints.get(savepointId).claims();
            }
            Map<Integer, Long> claims = new TreeMap<>();
            h.meta().manifest().forEach(e -> claims.put(e.pipelineId(), e.checkpointId()));
            return claims;
        }

        /**
         * For each pipeline whose newest state is in a savepoint, that savepoint, verified: the
         * highest claimed checkpoint id wins, a savepoint wins a tie with a checkpoint file, and
         * the newest-completed savepoint wins a tie between savepoints. Claims are checked by
         * reading the chosen folders' metadata; a claim the metadata does not bear out is replaced
         * by what the metadata says and the choice is made again.
         */
        Map<Integer, SavepointHandle> choose(Map<Integer, LegacyCheckpoints.Decoded> legacy) {
            while (true) {
                Map<Integer, Long> best = new HashMap<>();
                legacy.forEach((pid, d) -> best.put(pid, d.checkpointId() - 1));
                Map<Integer, List<String>> holders = new TreeMap<>();
                for (String id : hints.keySet()) {
                    if (out.contains(id)) {
                        continue;
                    }
                    for (Map.Entry<Integer, Long> claim : claims(id).entrySet()) {
                        Long current = best.get(claim.getKey());
                        if (current == null || claim.getValue() > current) {
                            best.put(claim.getKey(), claim.getValue());
                            holders.put(claim.getKey(), new ArrayList<>(List.of(id)));
                        } else if (claim.getValue().equals(current) && holders.containsKey(claim.getKey())) {
                            holders.get(claim.getKey()).add(id);
                        }
                    }
                }
                String unverified = holders.values().stream().flatMap(List::stream)
                        .filter(id -> !verified.containsKey(id)).findFirst().orElse(null);
                if (unverified != null) {
                    read(unverified, false);
                    continue;
                }
                Map<Integer, SavepointHandle> chosen = new TreeMap<>();
                holders.forEach((pid, ids) -> chosen.put(pid, ids.stream().map(verified::get)
                        .max(Comparator.comparingLong((SavepointHandle h) -> h.meta().completedTimestamp())
                                .thenComparing(SavepointHandle::savepointId)).orElseThrow()));
                return chosen;
            }
        }

        /**
         * A folder without a marker whose metadata did not verify fails the recovery (or is
         * skipped with fallback on) when it is at least as new as every verified savepoint: it
         * may hold the newest state. Older ones are left, as a listing leaves them.
         */
        void checkUnclaimedCorrupted() {
            long newestIntact = verified.entrySet().stream().filter(e -> !out.contains(e.getKey()))
                    .mapToLong(e -> e.getValue().meta().completedTimestamp()).max().orElse(Long.MIN_VALUE);
            for (Map.Entry<String, SavepointStorageException> e : unclaimedProblems.entrySet()) {
                if (hints.get(e.getKey()).modificationTime() >= newestIntact) {
                    if (!(e.getValue() instanceof SavepointCorruptedException corrupted)) {
                        throw e.getValue();
                    }
                    skipCorrupted(jobId, e.getKey(), corrupted, warnings);
                    skippedAny = true;
                }
            }
        }
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
        Set<String> used = new HashSet<>();
        chosen.values().forEach(h -> used.add(h.savepointId()));
        RestoredState.Source source;
        Optional<SavepointHandle> savepoint = Optional.empty();
        if (chosen.size() == byPipeline.size() && used.size() == 1) {
            source = RestoredState.Source.SAVEPOINT;
            savepoint = Optional.of(chosen.values().iterator().next());
        } else if (chosen.isEmpty()) {
            source = RestoredState.Source.LEGACY_CHECKPOINTS;
        } else {
            source = RestoredState.Source.MIXED;
        }
        if (source == RestoredState.Source.LEGACY_CHECKPOINTS && read.isEmpty() && warnings.isEmpty()) {
            String warning = "Job " + jobId + " has no savepoint bundle under " + savepoints.savepointRoot()
                    + "; restored from its latest legacy checkpoints (unversioned v0 format, no checksums) for"
                    + " pipelines " + byPipeline.keySet();
            LOG.warn(warning);
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
     * @throws io.keepsake.storage.SavepointIncompatibleException when its format version is outside the window
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
