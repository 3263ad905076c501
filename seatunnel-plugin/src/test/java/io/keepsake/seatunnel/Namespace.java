package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads what a checkpoint storage plugin left on disk: the engine's {@code .ser} files of a job.
 * SeaTunnel's own {@code localfile} plugin writes a checkpoint file in place, so a poll can meet
 * one that is not whole yet: {@code writtenInPlace} skips a file that does not decode instead of
 * failing (Keepsake's files are renamed into place whole, and one that does not decode is an error).
 */
record Namespace(Path root, boolean writtenInPlace) {

    /** The namespace of Keepsake's plugin: every {@code .ser} file must decode. */
    Namespace(Path root) {
        this(root, false);
    }

    /** The namespace of SeaTunnel's own {@code localfile} plugin, which writes its files in place. */
    static Namespace writtenInPlace(Path root) {
        return new Namespace(root, true);
    }

    /** One checkpoint file, decoded with Keepsake's byte-exact SeaTunnel 2.3.8 codec. */
    record CheckpointFile(Path path, int pipelineId, long checkpointId, CheckpointType type) {
    }

    Path jobDir(long jobId) {
        return root.resolve(Long.toString(jobId));
    }

    /** The job's checkpoint files, by checkpoint id; empty when its directory is gone. */
    List<CheckpointFile> checkpoints(long jobId) {
        Path dir = jobDir(jobId);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<CheckpointFile> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(f -> f.getFileName().toString().endsWith(".ser")).toList()) {
                byte[] bytes;
                try {
                    bytes = Files.readAllBytes(p);
                } catch (NoSuchFileException gone) {
                    continue; // rotated away while listing
                }
                CompletedCheckpoint c;
                try {
                    c = LegacyCheckpointCodec.decodeFile(bytes, p.toString());
                } catch (CheckpointCorruptedException partial) {
                    if (writtenInPlace) {
                        continue; // still being written
                    }
                    throw partial;
                }
                files.add(new CheckpointFile(p, c.pipelineId(), c.checkpointId(), c.checkpointType()));
            }
        } catch (NoSuchFileException gone) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        files.sort(Comparator.comparingLong(CheckpointFile::checkpointId).thenComparingInt(CheckpointFile::pipelineId));
        return files;
    }

    long maxCheckpointId(long jobId, int pipelineId) {
        return checkpoints(jobId).stream().filter(f -> f.pipelineId() == pipelineId)
                .mapToLong(CheckpointFile::checkpointId).max().orElse(-1);
    }

    List<CheckpointFile> savepointFiles(long jobId) {
        return checkpoints(jobId).stream().filter(f -> f.type() == CheckpointType.SAVEPOINT_TYPE).toList();
    }

    /** Every regular file under the root whose path names the job id. */
    List<Path> filesOfJob(long jobId) {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(root)) {
            String id = Long.toString(jobId);
            return s.filter(Files::isRegularFile)
                    .filter(p -> root.relativize(p).toString().contains(id)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
