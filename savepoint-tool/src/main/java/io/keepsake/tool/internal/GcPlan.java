package io.keepsake.tool.internal;

import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FileSystemStorage;
import io.keepsake.storage.spi.StorageFileSystem;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link FileSystemStorage#collectGarbage} would delete, found without deleting anything:
 * staging attempts under {@code <job>/.staging/} and savepoint directories without
 * {@code _metadata.ser}, last modified at or before {@code now - olderThan}. The public savepoint
 * API has no dry run and no way to list staging, so this reads the storage's public file-system
 * view, applying the same rules. Attempts still open in another process cannot be seen from
 * here, exactly as the real collection cannot see them. Stateless.
 */
public final class GcPlan {

    /**
     * One directory the collection would remove.
     *
     * @param jobId            the job it belongs to
     * @param path             the directory
     * @param what             "staging attempt" or "incomplete savepoint directory"
     * @param modificationTime epoch millis
     */
    public record Candidate(String jobId, String path, String what, long modificationTime) {
    }

    private GcPlan() {
    }

    /**
     * The directories a collection with {@code olderThan} would remove now.
     *
     * @throws SavepointStorageException when a listing fails
     */
    public static List<Candidate> candidates(FileSystemStorage storage, Duration olderThan) {
        long cutoff = System.currentTimeMillis() - olderThan.toMillis();
        StorageFileSystem fs = storage.fileSystem();
        List<Candidate> candidates = new ArrayList<>();
        for (String jobId : storage.listJobs()) {
            String staging = fs.child(storage.savepointJobDir(jobId), FileSystemStorage.STAGING_DIR);
            List<FileStatus> attempts;
            try {
                attempts = fs.list(staging);
            } catch (IOException e) {
                throw new SavepointStorageException("Cannot list staging of job " + jobId + ": " + e.getMessage()
                        + " (" + staging + ")", e);
            }
            for (FileStatus attempt : attempts) {
                if (attempt.modificationTime() <= cutoff) {
                    candidates.add(new Candidate(jobId, fs.child(staging, attempt.name()), "staging attempt",
                            attempt.modificationTime()));
                }
            }
            for (SavepointEntry e : storage.scanSavepoints(jobId)) {
                if (e.incomplete() && e.modificationTime() <= cutoff) {
                    candidates.add(new Candidate(jobId, e.location(), "incomplete savepoint directory",
                            e.modificationTime()));
                }
            }
        }
        return candidates;
    }
}
