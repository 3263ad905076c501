package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prepares the restore of chosen savepoints for an engine that restores only "the latest state of
 * each pipeline" (SeaTunnel's {@code seatunnel.sh -r JOB}): each chosen savepoint is read and
 * verified whole, then every pipeline it holds is written as one legacy checkpoint file of the job,
 * numbered one above every checkpoint id the job has in checkpoint files and savepoints, with the
 * savepoint's state unchanged but for that id. The engine's next restore takes those files, and
 * its checkpoint ids keep growing from there, so crash recovery stays correct afterwards.
 *
 * <p>Nothing is deleted: newer checkpoints and savepoints stay, numbered below the prepared state.
 * It does not stop the job: a checkpoint a running job completes afterwards is newer than the
 * prepared state. Immutable and thread-safe; two preparations of one job at once are not coordinated.
 */
public final class RestorePreparation {

    private static final Logger LOG = LoggerFactory.getLogger(RestorePreparation.class);
    /** The SeaTunnel plugin's bundle ids, {@code st-<checkpointId>-p<pipelineId>}: what a folder holds, by name. */
    private static final Pattern SEATUNNEL_PLUGIN_ID = Pattern.compile("st-(-?\\d+)-p(\\d+)");

    private final CheckpointStorage checkpoints;
    private final SavepointStorage savepoints;
    private final SavepointReaderRegistry registry = SavepointReaderRegistry.standard();

    /**
     * A preparation over one storage's checkpoint side and savepoint side (normally the same object).
     *
     * @throws InvalidStorageArgumentException when either is null
     */
    public RestorePreparation(CheckpointStorage checkpoints, SavepointStorage savepoints) {
        if (checkpoints == null || savepoints == null) {
            throw new InvalidStorageArgumentException("Cannot create restore preparation: the checkpoint or savepoint"
                    + " storage is null");
        }
        this.checkpoints = checkpoints;
        this.savepoints = savepoints;
    }

    /**
     * One pipeline made to restore a savepoint.
     *
     * @param pipelineId   the pipeline
     * @param savepointId  the savepoint whose state it restores
     * @param checkpointId the checkpoint id the savepoint holds for it
     * @param restoresAs   the checkpoint id of the file written, one above every id the job had
     * @param file         the name of the checkpoint file written
     */
    public record PreparedPipeline(int pipelineId, String savepointId, long checkpointId, long restoresAs,
                                   String file) {
    }

    /**
     * What a preparation wrote.
     *
     * @param jobId          the job
     * @param pipelines      the pipelines prepared, by pipeline id
     * @param otherPipelines the job's pipelines in no chosen savepoint: they restore their own newest state
     */
    public record Prepared(String jobId, List<PreparedPipeline> pipelines, Set<Integer> otherPipelines) {
        /** Copies the collections. */
        public Prepared {
            pipelines = List.copyOf(pipelines);
            otherPipelines = Set.copyOf(otherPipelines);
        }
    }

    /**
     * Makes the chosen savepoints the newest state of the pipelines they hold.
     *
     * @throws InvalidStorageArgumentException when no savepoint is named, two name the same pipeline, or
     *                                         the job's newest checkpoint id leaves no id above it; nothing is written
     * @throws SavepointNotFoundException  when a named savepoint is not complete; nothing is written
     * @throws SavepointCorruptedException when a named savepoint does not verify; nothing is written
     * @throws CheckpointStorageException                       when the job's checkpoints cannot be listed or written
     */
    public Prepared prepare(String jobId, List<String> savepointIds) throws CheckpointStorageException {
        if (savepointIds == null || savepointIds.isEmpty()) {
            throw new InvalidStorageArgumentException("Cannot prepare the restore of job " + jobId + ": name at least"
                    + " one savepoint");
        }
        Map<Integer, CompletedCheckpoint> chosen = new TreeMap<>();
        Map<Integer, String> from = new TreeMap<>();
        for (String id : savepointIds) {
            SavepointHandle handle = savepoints.readMetadata(jobId, id);
            for (Map.Entry<Integer, CompletedCheckpoint> e : registry.read(savepoints, handle).entrySet()) {
                if (from.containsKey(e.getKey())) {
                    throw new InvalidStorageArgumentException("Cannot prepare the restore of job " + jobId
                            + ": pipeline " + e.getKey() + " is in savepoints " + from.get(e.getKey()) + " and " + id
                            + "; name one savepoint per pipeline");
                }
                chosen.put(e.getKey(), e.getValue());
                from.put(e.getKey(), id);
            }
        }
        Map<Integer, Long> known = knownIds(jobId);
        long newest = known.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
        if (newest == Long.MAX_VALUE) {
            throw new InvalidStorageArgumentException("Cannot prepare the restore of job " + jobId + ": its newest"
                    + " checkpoint id is " + newest + " (a finished batch job's last checkpoint), so no id is left"
                    + " above it; nothing was written");
        }
        long restoresAs = Math.max(newest, chosen.values().stream().mapToLong(CompletedCheckpoint::checkpointId)
                .max().orElseThrow()) + 1;
        List<PreparedPipeline> prepared = new ArrayList<>();
        for (Map.Entry<Integer, CompletedCheckpoint> e : chosen.entrySet()) {
            CompletedCheckpoint c = e.getValue();
            CompletedCheckpoint renumbered = new CompletedCheckpoint(c.jobId(), c.pipelineId(), restoresAs,
                    c.triggerTimestamp(), c.checkpointType(), c.completedTimestamp(), c.taskStates(),
                    c.taskStatistics());
            String file = checkpoints.storeCheckPoint(new PipelineState(jobId, e.getKey(), restoresAs,
                    LegacyCheckpointCodec.encodeCheckpoint(renumbered)));
            prepared.add(new PreparedPipeline(e.getKey(), from.get(e.getKey()), c.checkpointId(), restoresAs, file));
            LOG.info("Prepared the restore of job {} pipeline {}: savepoint {} (checkpoint {}) written as checkpoint {}"
                    + " ({})", jobId, e.getKey(), from.get(e.getKey()), c.checkpointId(), restoresAs, file);
        }
        Set<Integer> others = new TreeSet<>(known.keySet());
        others.removeAll(chosen.keySet());
        return new Prepared(jobId, prepared, others);
    }

    /**
     * The highest checkpoint id of each pipeline of the job, from checkpoint file names and from what
     * each savepoint folder holds (its index marker, else its SeaTunnel plugin id, else its verified
     * metadata; a folder none of them tells about holds nothing restorable and is left out).
     */
    private Map<Integer, Long> knownIds(String jobId) throws CheckpointStorageException {
        Map<Integer, Long> newest = new TreeMap<>();
        if (checkpoints instanceof KeepsakeStorage k) {
            for (CheckpointFile f : k.checkpointFiles(jobId)) {
                newest.merge(f.pipelineId(), f.checkpointId(), Math::max);
            }
        } else {
            for (PipelineState s : checkpoints.getAllCheckpoints(jobId)) {
                newest.merge(s.pipelineId(), s.checkpointId(), Math::max);
            }
        }
        if (!savepoints.listJobs().contains(jobId)) {
            return newest;
        }
        for (SavepointHint hint : savepoints.hintSavepoints(jobId)) {
            claims(jobId, hint).forEach((pid, id) -> newest.merge(pid, id, Math::max));
        }
        return newest;
    }

    private Map<Integer, Long> claims(String jobId, SavepointHint hint) {
        if (hint.claimed()) {
            return hint.claims();
        }
        Matcher m = SEATUNNEL_PLUGIN_ID.matcher(hint.savepointId());
        try {
            if (m.matches()) {
                return Map.of(Integer.parseInt(m.group(2)), Long.parseLong(m.group(1)));
            }
        } catch (NumberFormatException notThePluginsId) {
            // its metadata tells
        }
        Map<Integer, Long> held = new TreeMap<>();
        try {
            for (ManifestEntry e : savepoints.readMetadata(jobId, hint.savepointId()).meta().manifest()) {
                held.put(e.pipelineId(), e.checkpointId());
            }
        } catch (SavepointStorageException unreadable) {
            LOG.debug("Savepoint folder {} of job {} tells nothing it holds: {}", hint.savepointId(), jobId,
                    unreadable.getMessage());
        }
        return held;
    }
}
