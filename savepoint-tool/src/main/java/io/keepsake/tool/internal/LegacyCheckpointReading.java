package io.keepsake.tool.internal;

import io.keepsake.engine.LegacyCheckpoints;
import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The reading half of a migration: which legacy checkpoint of each pipeline to migrate
 * ({@link CheckpointChoice}), read and decoded before anything is written, and what to tell the
 * operator when one does not decode or is not there. Stateless.
 */
final class LegacyCheckpointReading {

    private LegacyCheckpointReading() {
    }

    /**
     * The legacy checkpoint of every pipeline of a job that {@code choice} selects (the newest
     * unless one was chosen), decoded, in pipeline order. On a {@link KeepsakeStorage} each selected
     * file must decode: one that does not fails, naming the file and the pipeline's other
     * checkpoints, rather than being replaced by an older one unasked. Other storages give their
     * latest checkpoints through the legacy SPI, and cannot choose.
     *
     * @throws SavepointNotFoundException  when the job has no legacy checkpoint, or not the one chosen
     * @throws CheckpointCorruptedException when a selected checkpoint does not decode
     * @throws io.keepsake.tool.ToolUsageException when a checkpoint was chosen on a storage that does not list files
     */
    static List<LegacyMigration.LegacyCheckpoint> read(CheckpointStorage checkpoints, String jobId, CheckpointChoice choice) {
        if (!(checkpoints instanceof KeepsakeStorage storage)) {
            if (!choice.newest()) {
                throw new io.keepsake.tool.ToolUsageException("Cannot migrate job " + jobId + " with --checkpoint:"
                        + " this storage does not list its checkpoint files, so only the latest can be migrated");
            }
            List<LegacyCheckpoints.Decoded> decoded = LegacyCheckpoints.latest(checkpoints, jobId);
            if (decoded.isEmpty()) {
                throw new SavepointNotFoundException("Cannot migrate job " + jobId + ": it has no legacy checkpoint"
                        + " (the checkpoint storage)");
            }
            return legacyCheckpoints(decoded);
        }
        String where = storage.namespace() + "/" + jobId;
        Map<Integer, List<CheckpointFile>> byPipeline = filesByPipeline(storage, jobId);
        if (byPipeline.isEmpty()) {
            throw new SavepointNotFoundException("Cannot migrate job " + jobId + ": it has no legacy checkpoint ("
                    + where + ")");
        }
        for (Integer pipeline : choice.byPipeline().keySet()) {
            if (!byPipeline.containsKey(pipeline)) {
                throw new SavepointNotFoundException("Cannot migrate job " + jobId + ": it has no checkpoint of"
                        + " pipeline " + pipeline + " (--checkpoint " + pipeline + ":" + choice.forPipeline(pipeline)
                        + "); its pipelines are " + byPipeline.keySet() + " (" + where + ")");
            }
        }
        List<CheckpointFile> selected = new ArrayList<>();
        byPipeline.forEach((pipeline, files) -> selected.add(select(jobId, pipeline, files, choice, where)));
        try {
            return legacyCheckpoints(LegacyCheckpoints.read(storage, jobId, selected));
        } catch (CheckpointCorruptedException e) {
            throw unreadable(jobId, e, selected, byPipeline, choice);
        }
    }

    /** The job's checkpoint files by pipeline, newest first. */
    private static Map<Integer, List<CheckpointFile>> filesByPipeline(KeepsakeStorage storage, String jobId) {
        List<CheckpointFile> files;
        try {
            files = storage.checkpointFiles(jobId);
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot list the legacy checkpoints of job " + jobId + ": "
                    + e.getMessage(), e);
        }
        Map<Integer, List<CheckpointFile>> byPipeline = new TreeMap<>();
        for (CheckpointFile f : files) {
            byPipeline.computeIfAbsent(f.pipelineId(), p -> new ArrayList<>()).add(f);
        }
        byPipeline.values().forEach(l -> l.sort(Comparator.comparingLong(CheckpointFile::checkpointId).reversed()));
        return byPipeline;
    }

    private static CheckpointFile select(String jobId, int pipeline, List<CheckpointFile> newestFirst,
                                         CheckpointChoice choice, String where) {
        Long chosen = choice.forPipeline(pipeline);
        if (chosen == null) {
            return newestFirst.get(0);
        }
        return newestFirst.stream().filter(f -> f.checkpointId() == chosen).findFirst().orElseThrow(() ->
                new SavepointNotFoundException("Cannot migrate job " + jobId + ": pipeline " + pipeline + " has no"
                        + " checkpoint " + chosen + "; it has " + ids(newestFirst, Long.MIN_VALUE) + " (" + where + ")"));
    }

    /** Says which pipeline's checkpoint does not decode, that nothing was written, and what to do. */
    private static RuntimeException unreadable(String jobId, CheckpointCorruptedException e,
                                               List<CheckpointFile> selected,
                                               Map<Integer, List<CheckpointFile>> byPipeline, CheckpointChoice choice) {
        Optional<CheckpointFile> bad = selected.stream().filter(f -> f.path().equals(e.file())).findFirst();
        if (bad.isEmpty()) {
            return e;
        }
        CheckpointFile f = bad.get();
        int pipeline = f.pipelineId();
        List<Long> others = ids(byPipeline.get(pipeline), f.checkpointId());
        String which = choice.forPipeline(pipeline) == null
                ? "the newest checkpoint of pipeline " + pipeline + " (checkpoint " + f.checkpointId() + ")"
                : "checkpoint " + f.checkpointId() + " of pipeline " + pipeline + ", chosen with --checkpoint,";
        String next = others.isEmpty()
                ? "Pipeline " + pipeline + " has no other checkpoint: put back an intact copy of the file"
                : "Migrate another checkpoint of pipeline " + pipeline + " with --checkpoint " + pipeline + ":"
                + others.get(0) + " (it also has " + others.stream().map(String::valueOf)
                .collect(Collectors.joining(", ")) + "), or put back an intact copy of the file";
        return new CheckpointCorruptedException(f.path(), "Cannot migrate job " + jobId + ": " + which
                + " does not decode, so the job was not migrated and nothing was written for it; the file is cut short"
                + " or damaged, or was not written by SeaTunnel 2.3.x. " + next, null, null, e);
    }

    /** The checkpoint ids of {@code files} but {@code except}, in their order. */
    private static List<Long> ids(List<CheckpointFile> files, long except) {
        return files.stream().map(CheckpointFile::checkpointId).filter(id -> id != except).toList();
    }

    private static List<LegacyMigration.LegacyCheckpoint> legacyCheckpoints(List<LegacyCheckpoints.Decoded> decoded) {
        return decoded.stream().map(d -> new LegacyMigration.LegacyCheckpoint(d.pipelineId(), d.checkpointId(), d.source(),
                d.checkpoint())).toList();
    }
}
