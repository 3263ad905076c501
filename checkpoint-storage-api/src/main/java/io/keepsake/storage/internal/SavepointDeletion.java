package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Deleting savepoints on purpose, for {@link SavepointStore}: one by id or every one of a job.
 * Only what Keepsake wrote is removed, by name and never a folder recursively: a published
 * savepoint's decision and index marker, its {@code _metadata.ser}, the files its manifest names,
 * then the files of attempts at the id that are not in flight. Nothing is removed under a root
 * Keepsake has not marked as its own. Stateless over the store; thread-safe.
 */
final class SavepointDeletion {

    /** Logged under the store's name: deleting is the store's operation. */
    private static final Logger LOG = LoggerFactory.getLogger(SavepointStore.class);

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final InFlightAttempts inFlight;
    private final SavepointStore store;

    SavepointDeletion(StorageLayout layout, InFlightAttempts inFlight, SavepointStore store) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.inFlight = inFlight;
        this.store = store;
    }

    // About 55 lines: one try maps a vanished file to "not found" or, once unpublished, to done, for every step.
    /**
     * Deletes one savepoint, {@code _metadata.ser} first, then exactly the files its manifest names,
     * by name, then the folder if that left it empty; never a folder recursively, so a new attempt
     * at the same id writing into the folder meanwhile (its files carry its attempt id) keeps its
     * files, and entries Keepsake did not write stay (logged). A folder without metadata loses only
     * the files of attempts that are not in flight, each after its outcome says "collected"
     * (create-if-absent publication), or Keepsake's own files when no attempt is writing it (atomic
     * rename). Nothing is removed under a root Keepsake has not marked as its own.
     *
     * @return what was removed and what was left, with the reason
     * @throws SavepointNotFoundException when there is no such folder, or it holds nothing Keepsake wrote
     */
    OwnedRemoval.Result delete(String jobId, String savepointId) {
        String dir = layout.savepointDir(jobId, savepointId);
        String what = "delete savepoint " + savepointId + " of job " + jobId;
        inFlight.awaitTidying();
        if (!RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(), what)) {
            throw new SavepointNotFoundException("Cannot " + what + ": it does not exist (" + dir + ")");
        }
        OwnedRemoval removal = new OwnedRemoval(layout, inFlight);
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        boolean unpublished = false;
        try {
            Optional<FileStatus> status = fs.stat(dir);
            if (status.isEmpty() || !status.get().directory()) {
                throw new SavepointNotFoundException("Cannot " + what + ": it does not exist (" + dir + ")");
            }
            Optional<SavepointStore.MetadataRead> read = Optional.empty();
            boolean hasMetadata = true;
            try {
                read = Optional.of(store.readVerifiedMetadata(jobId, savepointId));
            } catch (SavepointNotFoundException none) {
                hasMetadata = false;
            } catch (SavepointStorageException unreadable) {
                LOG.warn("Deleting savepoint {} of job {} whose metadata does not verify: {}", savepointId, jobId,
                        unreadable.getMessage());
            }
            if (hasMetadata) {
                unpublish(jobId, savepointId, dir, what, read, result);
                unpublished = true;
                removePublishedFiles(jobId, savepointId, dir, read, removal, result);
            }
            result.addAll(deleteAttempts(dir, jobId, savepointId, what, hasMetadata, removal));
            if (fs.stat(dir).isPresent()) {
                removal.removeFolderIfEmpty(dir, result);
            }
        } catch (NoSuchFileException e) {
            if (unpublished) {
                // this delete removed the metadata; a collection in another process took the rest
                LOG.debug("Deleting savepoint {} of job {}: {} was collected meanwhile", savepointId, jobId, e.getFile());
                return result;
            }
            throw new SavepointNotFoundException("Cannot " + what + ": " + e.getFile() + " vanished while it was being"
                    + " deleted (another process deleted it meanwhile) (" + dir + ")");
        } catch (DirectoryNotEmptyException e) {
            throw new SavepointStorageException("Cannot " + what + ": the folder was filled again while it was being"
                    + " deleted (an attempt at this id began meanwhile) (" + dir + ")", e);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": " + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + " (" + dir + ")", e);
        }
        if (!result.kept().isEmpty() || !result.failed().isEmpty()) {
            LOG.warn("Deleting savepoint {} of job {} left {} {}", savepointId, jobId, result.kept(), result.failed());
        }
        LOG.info("Deleted savepoint {} of job {} ({})", savepointId, jobId, dir);
        return result;
    }

    /**
     * Removes the savepoint's {@code _metadata.ser} under a deletion record, after its decision and
     * index markers; returns once the metadata is gone.
     *
     * @throws SavepointNotFoundException when another process deleted it meanwhile
     */
    private void unpublish(String jobId, String savepointId, String dir, String what,
                           Optional<SavepointStore.MetadataRead> read, OwnedRemoval.Result result) throws IOException {
        String metadata = fs.child(dir, MetadataCodec.FILE_NAME);
        byte[] bytes = read.isPresent() ? read.get().bytes() : readRaw(metadata, what);
        String record = claimDeletion(jobId, savepointId, bytes, what);
        try {
            requireStillThere(metadata, bytes, what, dir);
            read.ifPresent(r -> dropDecisionOf(r.handle(), jobId, savepointId, result));
            deleteIndexMarkers(jobId, savepointId, read.map(r -> r.handle().meta()), result);
            if (!fs.delete(metadata, false)) {
                throw new SavepointNotFoundException("Cannot " + what + ": another process deleted it"
                        + " meanwhile (" + dir + ")");
            }
            result.deleted().add(metadata);
        } finally {
            dropDeletionRecord(record);
        }
    }

    /** After the metadata went: the savepoint's newest markers, then the files its manifest names. */
    private void removePublishedFiles(String jobId, String savepointId, String dir,
                                      Optional<SavepointStore.MetadataRead> read, OwnedRemoval removal,
                                      OwnedRemoval.Result result) throws IOException {
        fs.syncDirectory(dir);
        if (read.isPresent()) {
            // after the metadata went, so a published savepoint never lacks its newest marker
            result.deleted().addAll(NewestMarkers.removeFor(layout, jobId, read.get().handle().meta(),
                    store.isLeased(jobId, savepointId, System.currentTimeMillis())));
        }
        for (String file : read.map(r -> OwnedRemoval.files(r.handle().meta())).orElse(List.of())) {
            removal.deleteFile(fs.child(dir, Names.requireSafeName("manifest file name", file)), result);
        }
    }

    /** What a deletion record's name ends with: {@code .staging/<savepointId>.<16 hex>.deletion}. */
    static final String RECORD_SUFFIX = ".deletion";

    /**
     * The savepoint a deletion record's name is for: {@code <savepointId>.<16 hex>.deletion}, the
     * hex being the start of the SHA-256 of the metadata being deleted; empty for other names. The
     * part before the suffix has an attempt id's shape, and is read as one.
     */
    static Optional<String> recordSavepointId(String name) {
        if (!name.endsWith(RECORD_SUFFIX)) {
            return Optional.empty();
        }
        return AttemptId.parse(name.substring(0, name.length() - RECORD_SUFFIX.length())).map(AttemptId::savepointId);
    }

    /** Why garbage collection leaves a deletion record whose metadata is still there. */
    static final String UNSETTLED_RECORD = "a delete holds it while it removes the savepoint's metadata; if no delete"
            + " is running, one was interrupted: delete the savepoint again after removing this file";

    /**
     * True when a deletion record can go: the savepoint's {@code _metadata.ser} is absent or holds
     * other bytes than the ones the record names. While the named bytes are there only the record's
     * holder removes them, so once they are gone the holder is past its removal; a read that fails
     * answers false.
     */
    static boolean recordSettled(StorageLayout layout, String jobId, String recordName) {
        StorageFileSystem fs = layout.fileSystem();
        String savepointId = recordSavepointId(recordName).orElseThrow();
        String metadata = fs.child(layout.savepointDir(jobId, savepointId), MetadataCodec.FILE_NAME);
        try (InputStream in = fs.open(metadata)) {
            return !recordName.equals(recordName(savepointId, in.readNBytes(MetadataCodec.MAX_LENGTH + 1)));
        } catch (NoSuchFileException gone) {
            return true;
        } catch (IOException | RuntimeException unknown) {
            return false;
        }
    }

    /** The deletion record's name for these metadata bytes of {@code savepointId}. */
    private static String recordName(String savepointId, byte[] bytes) {
        return savepointId + "." + HexFormat.of().formatHex(HashingOutputStream.sha256().digest(bytes), 0, 8)
                + RECORD_SUFFIX;
    }

    /**
     * Takes the right to remove exactly these metadata bytes: creates the empty file
     * {@code .staging/<savepointId>.<first 16 hex of their SHA-256>.deletion}, only if absent.
     * Between the check that {@code _metadata.ser} still holds the bytes and its removal, only the
     * holder of this record removes them, so a delete that read the metadata long ago can never
     * remove a savepoint published again under the same id since.
     *
     * @throws SavepointNotFoundException when another delete of the same metadata holds the record
     */
    private String claimDeletion(String jobId, String savepointId, byte[] bytes, String what) throws IOException {
        String record = fs.child(layout.stagingDir(jobId), recordName(savepointId, bytes));
        SyncableOutputStream created;
        try {
            created = StagedFiles.createWithParents(fs, record);
        } catch (FileAlreadyExistsException e) {
            throw beingDeleted(what, record);
        }
        try (SyncableOutputStream out = created) {
            StagedFiles.endVolatileFile(fs, out);
        } catch (FileAlreadyExistsException e) {
            // an object store creates it at sync: the record there is another delete's
            throw beingDeleted(what, record);
        } catch (IOException | RuntimeException e) {
            dropDeletionRecord(record); // this call created it: it is ours to remove
            throw e;
        }
        return record;
    }

    private static SavepointNotFoundException beingDeleted(String what, String record) {
        return new SavepointNotFoundException("Cannot " + what + ": another process is deleting it (" + record
                + "); if no other delete is running (it was interrupted), remove that file and delete again");
    }

    /** After the record: the metadata must still be exactly what was read; otherwise nothing is removed. */
    private void requireStillThere(String metadata, byte[] bytes, String what, String dir) {
        switch (StagedFiles.holds(fs, metadata, bytes)) {
            case OURS -> {
            }
            case ABSENT -> throw new SavepointNotFoundException("Cannot " + what + ": another process deleted it"
                    + " meanwhile (" + dir + ")");
            case OTHER -> throw new SavepointNotFoundException("Cannot " + what + ": another process deleted it and"
                    + " a new savepoint with this id was committed meanwhile; the new one was left (" + dir + ")");
            default -> throw new SavepointStorageException("Cannot " + what + ": its metadata cannot be read back;"
                    + " nothing was deleted (" + metadata + ")");
        }
    }

    private void dropDeletionRecord(String record) {
        try {
            fs.delete(record, false);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot remove the deletion record {}; a later delete of the same savepoint reports it", record, e);
        }
    }

    /** The bytes of a metadata file that does not verify, to name what this delete removes. */
    private byte[] readRaw(String metadata, String what) {
        try (InputStream in = fs.open(metadata)) {
            return in.readNBytes(MetadataCodec.MAX_LENGTH + 1);
        } catch (NoSuchFileException e) {
            throw new SavepointNotFoundException("Cannot " + what + ": another process deleted it meanwhile ("
                    + metadata + ")");
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": its metadata cannot be read: " + e.getMessage()
                    + "; nothing was deleted (" + metadata + ")", e);
        }
    }

    /**
     * Before a published savepoint goes: the decision of the attempt that published it, when it is
     * still there (a writer on an object store between its publication and tidying up, or one that
     * died there; a crash between the two halves of a local rename), is removed first, so that no
     * collection can take it for a gone writer's unfinished publication and publish it again.
     */
    private void dropDecisionOf(SavepointHandle handle, String jobId, String savepointId,
                                OwnedRemoval.Result result) {
        for (ManifestEntry e : handle.meta().manifest()) {
            Optional<AttemptId> attempt = AttemptId.ofPayloadName(savepointId, e.file());
            if (attempt.isPresent()) {
                String outcome = AttemptOutcome.path(fs, layout.stagingDir(jobId), attempt.get());
                if (AttemptOutcome.readQuietly(fs, outcome).filter(d -> d.kind() == AttemptOutcome.Kind.PUBLISHING)
                        .isPresent()) {
                    try {
                        if (fs.delete(outcome, false)) {
                            result.deleted().add(outcome);
                        }
                    } catch (IOException ex) {
                        throw new SavepointStorageException("Cannot delete savepoint " + savepointId + " of job " + jobId
                                + ": removing the decision that published it failed: " + ex.getMessage() + " ("
                                + outcome + ")", ex);
                    }
                }
                return;
            }
        }
    }

    /**
     * Removes the index markers of one savepoint (before its metadata, so a crash leaves the
     * savepoint without a marker, which readers handle by reading its metadata).
     */
    private void deleteIndexMarkers(String jobId, String savepointId, Optional<SavepointMeta> verified,
                                    OwnedRemoval.Result result) throws IOException {
        String indexDir = layout.indexDir(jobId);
        if (verified.isPresent()) {
            Optional<String> name = StorageLayout.indexMarker(verified.get());
            if (name.isEmpty()) {
                return; // too long to have a marker
            }
            if (fs.delete(fs.child(indexDir, name.get()), false)) {
                result.deleted().add(fs.child(indexDir, name.get()));
                return; // its marker removed
            }
        }
        // no verified metadata to name it by, or not under the name this build writes (a marker
        // written without the completion time): any marker of this id
        for (FileStatus s : fs.list(indexDir)) {
            if (StorageLayout.parseMarker(s.name()).filter(m -> m.savepointId().equals(savepointId)).isPresent()
                    && fs.delete(fs.child(indexDir, s.name()), false)) {
                result.deleted().add(fs.child(indexDir, s.name()));
            }
        }
    }

    /**
     * What is left in a savepoint folder after its published files went (or in one that never had
     * metadata): files of attempts that are not in flight. Without metadata, a folder holding only
     * entries Keepsake did not write is "not found", and one an attempt is writing fails.
     */
    private OwnedRemoval.Result deleteAttempts(String dir, String jobId, String savepointId, String what,
                                               boolean hadMetadata, OwnedRemoval removal) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        boolean renameMode = fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME);
        List<FileStatus> entries = fs.list(dir);
        if (!hadMetadata) {
            requireCollectable(dir, savepointId, what, entries, renameMode);
        } else if (entries.stream().anyMatch(s -> s.name().equals(MetadataCodec.FILE_NAME))) {
            // the folder went and the id was published again since this delete removed the metadata:
            // nothing in it is this delete's (the files it removes are named by what it listed)
            return result.keep(dir, "a new savepoint with this id was committed meanwhile");
        }
        Set<AttemptId> attempts = new TreeSet<>();
        for (FileStatus s : entries) {
            Optional<AttemptId> attempt = s.regularFile() ? AttemptId.ofPayloadName(savepointId, s.name())
                    : Optional.empty();
            if (attempt.isPresent() && renameMode) {
                // published by a rename and left by a delete: no attempt writes into this folder
                removal.deleteFile(fs.child(dir, s.name()), result);
            } else if (attempt.isPresent()) {
                attempts.add(attempt.get());
            } else {
                result.keep(fs.child(dir, s.name()), "Keepsake did not write it");
            }
        }
        long now = System.currentTimeMillis();
        for (AttemptId attempt : attempts) {
            if (removal.attemptAlive(jobId, attempt, now)) {
                result.keep(OwnedRemoval.attemptFilesPath(dir, attempt), "attempt " + attempt + " is writing it");
            } else {
                result.addAll(removal.collectAttempt(jobId, dir, attempt));
            }
        }
        return result;
    }

    private void requireCollectable(String dir, String savepointId, String what, List<FileStatus> entries,
                                    boolean renameMode) throws IOException {
        String jobId = layout.jobIdOf(dir);
        boolean keepsakeEntry = false;
        for (FileStatus s : entries) {
            if (s.name().equals(MetadataCodec.FILE_NAME)) {
                throw new SavepointStorageException("Cannot " + what + ": it was published while being deleted;"
                        + " nothing was deleted, delete it again (" + dir + ")");
            }
            keepsakeEntry |= s.regularFile() && StorageLayout.isKeepsakeFile(savepointId, s.name());
        }
        if (!keepsakeEntry && !entries.isEmpty()) {
            throw new SavepointNotFoundException("Cannot " + what + ": the folder has no " + MetadataCodec.FILE_NAME
                    + " and holds only entries Keepsake does not write (" + entries.get(0).name() + "); nothing was"
                    + " deleted (" + dir + ")");
        }
        if (renameMode && (inFlight.contains(dir) || store.isLeased(jobId, savepointId, System.currentTimeMillis()))) {
            throw new SavepointStorageException("Cannot " + what + ": a savepoint with this id is being written (" + dir
                    + ")");
        }
    }

    /**
     * Deletes every savepoint of a job; folders Keepsake did not write, and attempts in flight,
     * stay. Returns how many complete savepoints went.
     */
    int deleteAll(String jobId) {
        int[] deleted = new int[1];
        deleteAll(jobId, deleted);
        return deleted[0];
    }

    /**
     * Deletes every savepoint of a job as {@link #deleteAll(String)} does; returns every path
     * removed and every path left, with the reason (a folder that is not Keepsake's included).
     */
    OwnedRemoval.Result deleteAllReporting(String jobId) {
        return deleteAll(jobId, new int[1]);
    }

    private OwnedRemoval.Result deleteAll(String jobId, int[] complete) {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        inFlight.awaitTidying();
        if (!RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(), "delete savepoints of job " + jobId)) {
            return result;
        }
        for (SavepointEntry e : store.scan(jobId)) {
            try {
                result.addAll(delete(jobId, e.savepointId()));
                if (e.handle().isPresent()) {
                    complete[0]++;
                }
            } catch (SavepointNotFoundException notOurs) {
                LOG.warn("Keeping {}: {}", e.location(), notOurs.getMessage());
                result.keep(e.location(), notOurs.getMessage());
            }
        }
        return result;
    }
}
