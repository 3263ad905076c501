package io.keepsake.storage;

import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The optional savepoint capability of a storage: isolated, versioned, checksummed savepoints
 * that are kept until someone deletes them. Detect it with {@code storage instanceof
 * SavepointStorage}. Savepoints live under the savepoint root, apart from checkpoints:
 * {@code <root>/<jobId>/<savepointId>/}. A savepoint is visible if and only if its
 * {@code _metadata.ser} is in place and verifies. Implementations are thread-safe.
 */
public interface SavepointStorage {

    /** How many periodic savepoints of a job to keep ({@code savepoint.periodic.max-retained}); 0 keeps all. */
    default int periodicMaxRetained() {
        return 0;
    }

    /** The savepoint root this view reads and writes, in the backend's path syntax. */
    String savepointRoot();

    /**
     * A view of the same storage whose savepoint root is {@code root}, for one savepoint written
     * or read elsewhere (another disk, a copied directory).
     *
     * @throws InvalidStorageArgumentException when the root is not an absolute, normalised path
     */
    SavepointStorage withSavepointRoot(String root);

    /**
     * Starts a staged savepoint; nothing is visible until {@link SavepointWriter#commit} succeeds.
     *
     * @throws SavepointAlreadyExistsException when a savepoint with that id is already committed
     * @throws SavepointStorageException       when the staging area cannot be created
     */
    SavepointWriter beginSavepoint(SavepointRequest request);

    /** The complete savepoints of a job, newest first; broken directories are skipped with a warning. */
    List<SavepointHandle> listSavepoints(String jobId);

    /**
     * Every savepoint directory of a job, newest first, complete or not, with what is wrong with each
     * and, for a directory without {@code _metadata.ser}, the entry in it Keepsake does not write, if
     * any ({@link SavepointEntry#foreign}: garbage collection leaves such a directory alone).
     */
    List<SavepointEntry> scanSavepoints(String jobId);

    /**
     * The folders under a job's savepoint folder, each with the pipeline and checkpoint ids and the
     * completion time its index marker claims, found without reading any metadata (one listing of
     * the job folder and one of its index). Claims are hints: verify a folder's metadata before
     * trusting one. The default reads every folder's metadata and claims what verified.
     */
    default List<SavepointHint> hintSavepoints(String jobId) {
        List<SavepointHint> hints = new ArrayList<>();
        for (SavepointEntry e : scanSavepoints(jobId)) {
            hints.add(e.handle().map(h -> SavepointHint.of(h, e.modificationTime()))
                    .orElseGet(() -> new SavepointHint(e.savepointId(), e.modificationTime(), Map.of())));
        }
        return hints;
    }

    /** The job ids that have a folder under the savepoint root. */
    List<String> listJobs();

    /**
     * Reads and verifies the metadata of one savepoint, without reading its payloads.
     *
     * @throws SavepointNotFoundException  when it has no {@code _metadata.ser}
     * @throws SavepointCorruptedException when the metadata does not verify
     */
    SavepointHandle readMetadata(String jobId, String savepointId);

    /**
     * Opens one payload as a stream that fails at its end if length or SHA-256 differ from the manifest.
     *
     * @throws SavepointCorruptedException (while reading) when the bytes do not match
     */
    InputStream openPayload(SavepointHandle handle, ManifestEntry entry);

    /**
     * Reads a whole savepoint with every payload verified.
     *
     * @throws SavepointNotFoundException  when it has no {@code _metadata.ser}
     * @throws SavepointCorruptedException when any byte does not verify
     */
    SavepointContent readSavepoint(String jobId, String savepointId);

    /**
     * Deletes one savepoint, {@code _metadata.ser} first so that a crash leaves it invisible.
     *
     * @throws SavepointNotFoundException when there is no such savepoint directory
     */
    void deleteSavepoint(String jobId, String savepointId);

    /** Deletes every savepoint of a job, and the job's staging area; returns how many savepoints went. */
    int deleteSavepoints(String jobId);

    /**
     * What {@link #collectGarbage} with the same age would remove now, found without removing anything.
     *
     * @throws InvalidStorageArgumentException when the age is negative
     */
    List<GcCandidate> planGarbage(Duration olderThan);

    /**
     * Removes staging attempts and never-completed savepoint directories older than {@code olderThan};
     * complete savepoints are never touched.
     */
    GcReport collectGarbage(Duration olderThan);
}
