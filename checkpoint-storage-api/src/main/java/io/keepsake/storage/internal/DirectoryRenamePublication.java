package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.internal.StagedFiles.Answer;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.List;

/**
 * Publication where a directory renames in one atomic step that never replaces its target
 * ({@link FsCapability#ATOMIC_DIRECTORY_RENAME}: the local disk, HDFS on a
 * cluster). The attempt writes its payloads and {@code _metadata.ser} into
 * {@code .staging/<attemptId>/}; the rename of that directory onto the savepoint's name is both the
 * decision and the publication. A collection decides the other way by renaming the same directory
 * aside, so exactly one of them finds it. A rename that reports an error is resolved by reading
 * back, three ways: ours at the target (it took effect), ours still in staging (it did not), or
 * anything else (unknown: nothing is removed).
 */
final class DirectoryRenamePublication implements Publication {

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryRenamePublication.class);

    private final StagedSavepointWriter attempt;
    private final StorageFileSystem fs;
    private final SavepointRequest request;
    private final String staging;
    private final String target;
    private final String jobDir;

    DirectoryRenamePublication(StagedSavepointWriter attempt, StorageFileSystem fs, SavepointRequest request,
                               String staging, String target, String jobDir) {
        this.attempt = attempt;
        this.fs = fs;
        this.request = request;
        this.staging = staging;
        this.target = target;
        this.jobDir = jobDir;
    }

    @Override
    public String workDir() {
        return staging;
    }

    @Override
    public String publishedParent() {
        return jobDir;
    }

    /** The attempt's own staging directory, which its payloads are created in and never recreate. */
    @Override
    public void beginWork() throws IOException {
        fs.mkdirs(staging);
    }

    /** The rename published and decided at once: nothing is left but the lease, removed at commit. */
    @Override
    public Runnable tidyingAfterCommit() {
        return null;
    }

    /** Never recreates a staging directory this attempt lost: a collection took it. */
    @Override
    public SyncableOutputStream createPayload(String path) throws IOException {
        return fs.createInExistingDirectory(path, true);
    }

    @Override
    public void publish(SavepointMeta meta, byte[] metaBytes, List<ManifestEntry> manifest) {
        // the marker and the staged metadata need only the hashes: written while payloads sync
        attempt.writeIndexMarker(meta);
        attempt.writeNewestMarker(meta);
        stageMetadata(metaBytes);
        attempt.requirePayloadsDurable();
        attempt.requireIntact(manifest);
        try {
            fs.syncDirectory(staging);
        } catch (IOException | RuntimeException e) {
            attempt.abortQuietly();
            throw attempt.failed("syncing the staging directory failed", e);
        }
        try {
            fs.rename(staging, target);
        } catch (FileAlreadyExistsException e) {
            attempt.abortQuietly();
            throw attempt.alreadyExists(e);
        } catch (IOException | RuntimeException e) {
            resolve(metaBytes, e);
        }
    }

    /** Writes the metadata into staging and syncs it; nothing is visible until the rename. */
    private void stageMetadata(byte[] metaBytes) {
        try {
            StagedFiles.writeSynced(fs, fs.child(staging, MetadataCodec.FILE_NAME), metaBytes);
        } catch (NoSuchFileException e) {
            attempt.abortQuietly();
            throw attempt.failed("its staging area vanished before the metadata was written; another process may"
                    + " have collected the attempt", e);
        } catch (IOException | RuntimeException e) {
            attempt.abortQuietly();
            throw attempt.failed("writing metadata failed", e);
        }
    }

    /**
     * The rename reported an error: it took effect when the target holds our metadata; it did not
     * when the staging directory still holds it, or was taken away (a collection decided first);
     * any read that fails, or any other answer, leaves the attempt as it is and says so.
     */
    private void resolve(byte[] metaBytes, Exception e) {
        Answer published = StagedFiles.metadata(fs, target, metaBytes);
        if (published == Answer.OURS) {
            LOG.warn("Publishing savepoint {} of job {} reported an error but took effect ({})", request.savepointId(),
                    request.jobId(), target, e);
            return;
        }
        if (published != Answer.UNKNOWN) {
            Answer staged = StagedFiles.metadata(fs, staging, metaBytes);
            if (staged == Answer.OURS) {
                attempt.abortQuietly();
                throw published == Answer.OTHER ? attempt.alreadyExists(e) : attempt.failed("publishing failed", e);
            }
            if (staged == Answer.ABSENT && e instanceof NoSuchFileException) {
                attempt.abortQuietly();
                throw attempt.failed("its staging area was removed before publication", e);
            }
        }
        attempt.letGo();
        throw attempt.unknown("publishing failed and its outcome cannot be read back", e);
    }

    /** The staging directory is the attempt's alone (a collection renames it aside before touching it). */
    @Override
    public void removeWork(List<String> files) throws IOException {
        fs.delete(staging, true);
    }
}
