package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Removal that deletes only what Keepsake wrote, shared by garbage collection and delete: files
 * one by one by their whole name (never a folder recursively), a folder only once it is empty, and
 * an attempt's files (where publication is create-if-absent) only after its outcome says
 * "collected" ({@link AttemptOutcome}). Whatever it leaves is reported with the reason. Stateless
 * over the file system and the registry of attempts in flight; thread-safe.
 */
final class OwnedRemoval {

    private static final Logger LOG = LoggerFactory.getLogger(OwnedRemoval.class);

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final InFlightAttempts inFlight;

    OwnedRemoval(StorageLayout layout, InFlightAttempts inFlight) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.inFlight = inFlight;
    }

    /** What one removal did: paths deleted, paths left on purpose (with why), paths it failed to remove. */
    record Result(List<String> deleted, List<String> kept, List<String> failed) {

        static Result empty() {
            return new Result(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }

        Result keep(String path, String why) {
            kept.add(path + ": " + why);
            return this;
        }

        Result fail(String path, String why) {
            failed.add(path + ": " + why);
            return this;
        }

        void addAll(Result other) {
            deleted.addAll(other.deleted);
            kept.addAll(other.kept);
            failed.addAll(other.failed);
        }
    }

    /** True when a fresh lease file names the attempt, or it is in flight in this process. */
    boolean attemptAlive(String jobId, AttemptId attempt, long nowMillis) throws IOException {
        String lease = layout.leasePath(jobId, attempt);
        if (inFlight.containsLease(lease)) {
            return true;
        }
        Optional<FileStatus> s = fs.stat(lease);
        return s.isPresent() && inFlight.isFresh(s.get(), nowMillis);
    }

    /** The payload files of {@code attempt} in the savepoint folder, by name. */
    List<String> attemptFiles(String folder, AttemptId attempt) throws IOException {
        String name = name(folder);
        List<String> files = new ArrayList<>();
        for (FileStatus s : fs.list(folder)) {
            if (s.regularFile() && AttemptId.ofPayloadName(name, s.name()).filter(attempt::equals).isPresent()) {
                files.add(s.name());
            }
        }
        return files;
    }

    /**
     * Removes one attempt's payload files from a savepoint folder, create-if-absent publication:
     * first its outcome is made (or found) "collected", so its writer can no longer publish; a
     * writer that decided to publish first keeps everything. The outcome goes once no file of the
     * attempt is left. Files listed before the decision are the only ones removed: whatever the
     * writer adds later, its commit finds the removed ones missing.
     */
    Result collectAttempt(String jobId, String folder, AttemptId attempt) throws IOException {
        Result result = Result.empty();
        List<String> files = attemptFiles(folder, attempt);
        String outcome = AttemptOutcome.path(fs, layout.stagingDir(jobId), attempt);
        fs.mkdirs(layout.stagingDir(jobId));
        boolean claimed;
        try {
            claimed = AttemptOutcome.claim(fs, outcome, AttemptOutcome.COLLECTED);
        } catch (NoSuchFileException tempTaken) {
            // another collection removed this one's temporary file before it was renamed: nothing was decided
            return result.keep(attemptFilesPath(folder, attempt), "its decision could not be recorded (another"
                    + " collection removed the temporary file); the next collection tries again");
        }
        if (!claimed) {
            Optional<AttemptOutcome.Decision> d = AttemptOutcome.read(fs, outcome);
            if (d.isEmpty()) {
                return result.keep(attemptFilesPath(folder, attempt), "its outcome was settled by another process"
                        + " meanwhile");
            }
            if (d.get().kind() != AttemptOutcome.Kind.COLLECTED) {
                return result.keep(attemptFilesPath(folder, attempt), d.get().kind()
                        == AttemptOutcome.Kind.PUBLISHING ? "its writer decided to publish it meanwhile"
                        : "its outcome file was not written by Keepsake (" + outcome + ")");
            }
        } else {
            try {
                fs.syncDirectory(layout.stagingDir(jobId));
            } catch (NoSuchFileException tidied) {
                // another collection found the attempt settled and tidied the decision and the
                // emptied staging folder away; what follows checks the attempt again
            }
        }
        if (publishedBy(folder, attempt)) {
            if (claimed) {
                deleteQuietly(outcome); // this collection's own decision; another's is its creator's to tidy
            }
            return result.keep(folder, "it became a complete savepoint meanwhile");
        }
        for (String file : files) {
            deleteFile(fs.child(folder, file), result);
        }
        if (attemptFiles(folder, attempt).isEmpty()) {
            deleteQuietly(outcome);
        }
        return result;
    }

    /** True when the folder's metadata names a file of {@code attempt}. */
    private boolean publishedBy(String folder, AttemptId attempt) {
        try {
            SavepointMeta meta = readMeta(folder);
            return meta != null && meta.manifest().stream().anyMatch(e ->
                    AttemptId.ofPayloadName(name(folder), e.file()).filter(attempt::equals).isPresent());
        } catch (SavepointStorageException unreadable) {
            return true;
        }
    }

    /** The folder's verified metadata, or null when there is none. */
    private SavepointMeta readMeta(String folder) {
        String jobDir = folder.substring(0, folder.lastIndexOf('/'));
        String jobId = name(jobDir);
        try {
            return new SavepointStore(layout, inFlight).readMetadata(jobId, name(folder)).meta();
        } catch (SavepointNotFoundException none) {
            return null;
        }
    }

    /**
     * Looks at the decision of an attempt whose writer decided to publish and is gone (its lease
     * expired): when the folder holds exactly the decided metadata, the decision is settled and
     * tidied away; otherwise it is left whole. Only the writer acts on its decision (it publishes,
     * or removes its files and then the decision), so no other process finishes, gives up or
     * overwrites it, and nothing of the attempt is removed here.
     */
    Result settlePublication(String jobId, AttemptId attempt, byte[] metaBytes) {
        Result result = Result.empty();
        String outcome = AttemptOutcome.path(fs, layout.stagingDir(jobId), attempt);
        SavepointMeta decided = MetadataCodec.decode(metaBytes, outcome);
        if (!decided.jobId().equals(jobId) || !Names.isSafeName(decided.savepointId())
                || !attempt.savepointId().equals(decided.savepointId())) {
            return result.keep(outcome, "it names another savepoint than its attempt");
        }
        String folder = layout.savepointDir(jobId, decided.savepointId());
        if (StagedFiles.metadata(fs, folder, metaBytes) == StagedFiles.Answer.OURS) {
            deleteFile(outcome, result);
            return result;
        }
        return result.keep(outcome, UNFINISHED_DECISION);
    }

    /** Why a decision to publish that its writer has not carried out is left. */
    static final String UNFINISHED_DECISION = "its writer decided to publish the attempt and has not finished (it is"
            + " stalled, or it died between its decision and its metadata); only the writer acts on its decision,"
            + " so the attempt and its files are left. Once that writer is known to be gone for good, removing this"
            + " file lets garbage collection remove the attempt";

    /**
     * Removes a folder Keepsake wrote: each entry whose whole name is one of {@code ownName}'s
     * files is deleted by name, then the folder if it is empty; any other entry, and the folder, are
     * left and reported.
     */
    Result removeOwnedFolder(String folder, Predicate<String> ownName) throws IOException {
        Result result = Result.empty();
        for (FileStatus s : fs.list(folder)) {
            String path = fs.child(folder, s.name());
            if (s.regularFile() && ownName.test(s.name())) {
                deleteFile(path, result);
            } else {
                result.keep(path, "Keepsake did not write it");
            }
        }
        removeFolderIfEmpty(folder, result);
        return result;
    }

    /**
     * The first entry of a savepoint folder that no Keepsake attempt writes (anything but a regular
     * file named as its metadata or payloads), if any: such a folder is not Keepsake's to remove.
     */
    Optional<String> foreignEntry(String folder) throws IOException {
        return foreignEntry(folder, n -> StorageLayout.isKeepsakeFile(name(folder), n));
    }

    /** The first entry of a folder that is not a regular file with a name {@code own} accepts, if any. */
    Optional<String> foreignEntry(String folder, Predicate<String> own) throws IOException {
        for (FileStatus s : fs.list(folder)) {
            if (!s.regularFile() || !own.test(s.name())) {
                return Optional.of(s.name());
            }
        }
        return Optional.empty();
    }

    /** Deletes a folder that is empty; a folder with entries is reported as kept. */
    void removeFolderIfEmpty(String folder, Result result) throws IOException {
        if (!fs.list(folder).isEmpty()) {
            if (result.kept().stream().noneMatch(k -> k.startsWith(folder + "/"))) {
                result.keep(folder, "it is no longer empty");
            } else {
                result.keep(folder, "it still holds the entries kept in it");
            }
            return;
        }
        try {
            fs.delete(folder, false);
        } catch (DirectoryNotEmptyException filled) {
            result.keep(folder, "it was filled meanwhile");
            return;
        }
        if (fs.stat(folder).isPresent()) {
            // the delete took effect (it did not fail): another process created the folder again since
            result.keep(folder, CREATED_AGAIN);
        } else {
            result.deleted().add(folder);
        }
    }

    /** Why a path removed a moment ago and found there again is reported as kept. */
    static final String CREATED_AGAIN = "it was removed and another process created it again meanwhile";

    /** Deletes one file by name and records it; a file already gone is not reported. */
    void deleteFile(String path, Result result) {
        try {
            if (fs.delete(path, false)) {
                if (fs.stat(path).isPresent()) {
                    result.keep(path, CREATED_AGAIN);
                } else {
                    result.deleted().add(path);
                }
            }
        } catch (IOException | RuntimeException e) {
            result.fail(path, e.getMessage());
        }
    }

    private void deleteQuietly(String path) {
        try {
            fs.delete(path, false);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot remove {}; garbage collection will", path, e);
        }
    }

    /** The manifest's file names, for deleting a published savepoint's files by name. */
    static List<String> files(SavepointMeta meta) {
        return meta.manifest().stream().map(ManifestEntry::file).toList();
    }

    /** What joins a folder and an attempt id in {@link #attemptFilesPath}. */
    static final String ATTEMPT_FILES_MARK = "/pipeline-*.";

    /** How reports and gc candidates name one attempt's payload files in a savepoint folder. */
    static String attemptFilesPath(String folder, AttemptId attempt) {
        return folder + ATTEMPT_FILES_MARK + attempt + ".wire";
    }

    static String name(String path) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return p.substring(p.lastIndexOf('/') + 1);
    }
}
