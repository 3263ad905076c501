package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCommitStateUnknownException;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Optional;

/**
 * How a commit publishes where directories do not rename atomically
 * ({@link FsCapability#ATOMIC_DIRECTORY_RENAME} absent), in two atomic steps: first the attempt's decision
 * ({@link AttemptOutcome}): the outcome file is created, whole and only if absent, holding the
 * metadata. A collection or delete creates the same file before it removes anything of the
 * attempt, so exactly one side goes on: when a collector was first (this writer stalled past
 * its lease), the attempt is aborted and the commit fails. After the decision nobody else
 * removes the attempt's files while the decision stands, so they are checked once more and the
 * metadata is published with create-if-absent, which decides between attempts at the same id:
 * <ul>
 *   <li>where files rename atomically, the outcome file itself is renamed onto
 *   {@code _metadata.ser}: the decision is consumed at the instant the metadata appears, and a
 *   collection that finishes a gone writer's decision does so with the same rename. Whoever
 *   gives the decision up deletes the outcome file first, and only a delete that found it
 *   (not consumed) may remove the attempt's files;</li>
 *   <li>on an object store, one conditional PUT of {@code _metadata.ser}; then the writer reads
 *   its outcome back and returns only when it still holds its decision (or is gone while every
 *   payload is still there). A collection that gives up a gone writer's decision first
 *   overwrites the outcome with "withdrawn", then looks for the metadata; of the two, at least
 *   one sees the other, so a payload is never removed under a commit that returns.</li>
 * </ul>
 *
 * <p>One instance serves one commit of one {@link StagedSavepointWriter}, under the writer's lock;
 * what it does to the attempt (abort it, or let it go when the outcome is unknown) it does through
 * the writer. Not thread-safe on its own.
 */
final class CreateIfAbsentPublication {

    /** Logged under the writer's name, as before this path moved out of it. */
    private static final Logger LOG = LoggerFactory.getLogger(StagedSavepointWriter.class);

    private final StagedSavepointWriter attempt;
    private final StorageFileSystem fs;
    private final StorageLayout layout;
    private final SavepointRequest request;
    private final String attemptId;
    private final String workDir;
    private final String target;

    CreateIfAbsentPublication(StagedSavepointWriter attempt, StorageLayout layout, SavepointRequest request,
                              String attemptId, String workDir, String target) {
        this.attempt = attempt;
        this.fs = layout.fileSystem();
        this.layout = layout;
        this.request = request;
        this.attemptId = attemptId;
        this.workDir = workDir;
        this.target = target;
    }

    /**
     * Publishes the attempt's metadata: its decision, a last check of its payloads, then
     * {@code _metadata.ser}; returns when the savepoint is published.
     *
     * @throws io.keepsake.storage.SavepointCommitFailedException  when nothing was published (the attempt is aborted)
     * @throws io.keepsake.storage.SavepointAlreadyExistsException when another attempt published this id first
     * @throws SavepointCommitStateUnknownException                when the outcome cannot be told
     */
    void publish(byte[] metaBytes, List<ManifestEntry> manifest) {
        try {
            fs.syncDirectory(target);
        } catch (IOException | RuntimeException e) {
            attempt.abortQuietly();
            throw attempt.failed("syncing payloads failed", e);
        }
        String outcome = AttemptOutcome.path(fs, layout.stagingDir(request.jobId()), attemptId);
        boolean decided;
        try {
            decided = AttemptOutcome.claim(fs, outcome, metaBytes)
                    || AttemptOutcome.readQuietly(fs, outcome).filter(d -> d.publishes(metaBytes)).isPresent();
        } catch (IOException | RuntimeException e) {
            if (AttemptOutcome.readQuietly(fs, outcome).filter(d -> d.publishes(metaBytes)).isEmpty()) {
                attempt.abortQuietly();
                throw attempt.failed("recording its decision to publish failed", e);
            }
            decided = true;
        }
        if (!decided) {
            attempt.abortQuietly();
            throw attempt.failed("another process collected the attempt before it could publish (it stalled past its"
                    + " lease, which then expired: " + outcome + ")", null);
        }
        Optional<String> missing;
        try {
            missing = StagedFiles.missingOrChanged(fs, workDir, manifest);
        } catch (IOException | RuntimeException e) {
            missing = Optional.of("could not be checked: " + e.getMessage());
        }
        if (missing.isPresent()) {
            giveUpDecision(outcome, metaBytes, attempt.failed("a payload " + missing.get() + " before publication", null));
            return;
        }
        if (fs.capabilities().contains(FsCapability.ATOMIC_FILE_CREATE)) {
            publishByPut(outcome, metaBytes, manifest);
        } else {
            publishByRenamingTheDecision(outcome, metaBytes);
        }
    }

    /** Renames the decision onto {@code _metadata.ser} (never replacing): the decision is consumed as it is published. */
    private void publishByRenamingTheDecision(String outcome, byte[] metaBytes) {
        String metadata = fs.child(target, MetadataCodec.FILE_NAME);
        try {
            fs.rename(outcome, metadata);
        } catch (FileAlreadyExistsException e) {
            giveUpDecision(outcome, metaBytes, attempt.alreadyExists(e));
        } catch (NoSuchFileException e) {
            if (StagedFiles.hasMetadata(fs, target, metaBytes)) {
                return; // a collection published the decision on this writer's behalf
            }
            attempt.abortQuietly();
            throw attempt.failed("a collection gave its decision up while it was stalled (" + outcome + ")", e);
        } catch (IOException | RuntimeException e) {
            if (StagedFiles.hasMetadata(fs, target, metaBytes)) {
                return;
            }
            giveUpDecision(outcome, metaBytes, attempt.failed("publishing failed", e));
        }
    }

    /**
     * One conditional PUT of {@code _metadata.ser}, then the decision read back: the commit returns
     * only when the decision still stands (or it is gone while the metadata and every payload are
     * there, which is a collection tidying up after a publication it saw); a decision withdrawn
     * meanwhile withdraws the metadata too and fails the commit.
     */
    private void publishByPut(String outcome, byte[] metaBytes, List<ManifestEntry> manifest) {
        String metadata = fs.child(target, MetadataCodec.FILE_NAME);
        try {
            StagedFiles.writeSynced(fs, metadata, metaBytes);
        } catch (FileAlreadyExistsException e) {
            if (!StagedFiles.hasMetadata(fs, target, metaBytes)) {
                giveUpDecision(outcome, metaBytes, attempt.alreadyExists(e));
                return;
            }
        } catch (IOException | RuntimeException e) {
            if (!StagedFiles.hasMetadata(fs, target, metaBytes)) {
                giveUpDecision(outcome, metaBytes, attempt.failed("publishing failed", e));
                return;
            }
        }
        Optional<AttemptOutcome.Decision> now = AttemptOutcome.readQuietly(fs, outcome);
        if (now.isPresent() && now.get().publishes(metaBytes)) {
            withdrawDecision(outcome);
            return;
        }
        Optional<String> missing;
        try {
            missing = now.isEmpty() ? StagedFiles.missingOrChanged(fs, workDir, manifest) : Optional.of("was given up");
        } catch (IOException | RuntimeException e) {
            missing = Optional.of("could not be checked: " + e.getMessage());
        }
        if (missing.isEmpty()) {
            return; // a collection saw the publication and tidied the decision away
        }
        try {
            if (StagedFiles.hasMetadata(fs, target, metaBytes)) {
                fs.delete(metadata, false);
            }
        } catch (IOException | RuntimeException e) {
            attempt.letGo();
            throw attempt.unknown("a collection gave its decision up while it published, and withdrawing the metadata"
                    + " failed", e);
        }
        attempt.abortQuietly();
        throw attempt.failed("a collection gave its decision up while it published (it stalled past its lease); the"
                + " metadata was withdrawn (" + outcome + ")", null);
    }

    /**
     * After the decision, a commit that cannot publish gives the decision up before it removes
     * anything: where files rename atomically, by deleting the outcome file, which fails when a
     * collection consumed it by publishing it (then the commit returns normally, the savepoint
     * being published); on an object store, where nobody but the writer publishes a decision, by
     * overwriting it. Then the attempt is aborted and {@code failure} thrown.
     */
    private void giveUpDecision(String outcome, byte[] metaBytes, RuntimeException failure) {
        boolean objectStore = fs.capabilities().contains(FsCapability.ATOMIC_FILE_CREATE);
        try {
            if (objectStore) {
                AttemptOutcome.overwrite(fs, outcome, AttemptOutcome.WITHDRAWN);
            } else if (!fs.delete(outcome, false)) {
                if (StagedFiles.hasMetadata(fs, target, metaBytes)) {
                    LOG.warn("Savepoint {} of job {} was published by a collection on behalf of this attempt while it"
                            + " failed ({})", request.savepointId(), request.jobId(), failure.getMessage());
                    return;
                }
                attempt.letGo();
                throw attempt.unknown("its decision to publish vanished while it gave it up (" + outcome + ")", failure);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof SavepointCommitStateUnknownException unknown) {
                throw unknown;
            }
            attempt.letGo();
            throw attempt.unknown("giving its decision to publish up failed (" + outcome + ")", e);
        }
        attempt.abortQuietly();
        if (objectStore) {
            withdrawDecision(outcome);
        }
        throw failure;
    }

    /** Removes this attempt's outcome file; a failure leaves it to garbage collection. */
    private void withdrawDecision(String outcome) {
        try {
            fs.delete(outcome, false);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot remove the outcome of savepoint {} of job {}; garbage collection will ({})",
                    request.savepointId(), request.jobId(), outcome, e);
        }
    }
}
