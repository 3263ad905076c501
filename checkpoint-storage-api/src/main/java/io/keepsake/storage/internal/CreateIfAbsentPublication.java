package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.internal.StagedFiles.Answer;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Optional;

/**
 * How a commit publishes where directories do not rename atomically (an object store, or a file
 * system whose file rename is a link followed by an unlink), in two steps that are each one atomic
 * create-if-absent ({@link StagedFiles#createWhole}):
 * <ol>
 *   <li>the decision: the attempt's outcome file ({@link AttemptOutcome}) is created holding the
 *   metadata. A collection or delete creates the same name holding "collected" before it removes
 *   anything of the attempt, so exactly one side goes on. Once created, the decision is this
 *   writer's alone: nobody else removes a file of the attempt, gives the decision up or publishes
 *   it. So the files are checked once more after it, and nothing can remove them after that check;</li>
 *   <li>the publication: {@code _metadata.ser} is created whole and only if absent, which decides
 *   between attempts at the same id.</li>
 * </ol>
 * Every read that steers what happens next answers ours, absent, another's or unknown, and an
 * unknown answer removes nothing: the commit then lets the attempt go as it is and says that its
 * outcome is unknown. A commit that fails after its decision removes its own files first and its
 * decision last; one that publishes leaves the removal of its decision, then of its lease, to the
 * storage's background executor once the commit returned ({@link #tidyingAfterCommit}).
 *
 * <p>One instance serves one commit of one {@link StagedSavepointWriter}, under the writer's lock;
 * what it does to the attempt (abort it, or let it go when the outcome is unknown) it does through
 * the writer. Not thread-safe on its own.
 */
final class CreateIfAbsentPublication implements Publication {

    private static final Logger LOG = LoggerFactory.getLogger(CreateIfAbsentPublication.class);

    private final StagedSavepointWriter attempt;
    private final StorageFileSystem fs;
    private final SavepointRequest request;
    private final String workDir;
    private final String target;
    private final String outcome;
    /** Set when {@code _metadata.ser} holds this attempt's metadata: its decision is then settled. */
    private boolean published;
    private byte[] publishedBytes;

    CreateIfAbsentPublication(StagedSavepointWriter attempt, StorageLayout layout, SavepointRequest request,
                              AttemptId attemptId, String target) {
        this.attempt = attempt;
        this.fs = layout.fileSystem();
        this.request = request;
        this.workDir = target;
        this.target = target;
        this.outcome = AttemptOutcome.path(fs, layout.stagingDir(request.jobId()), attemptId);
    }

    @Override
    public String workDir() {
        return workDir;
    }

    @Override
    public String publishedParent() {
        return target;
    }

    /**
     * Nothing to prepare: the savepoint folder is made by the first payload created in it. Every
     * attempt at the id shares it and a collection removes it when it empties, so it is no
     * protection of this attempt's files (whether they survive is decided by its outcome at
     * commit, which checks them); an object store has no folders to make, and a folder marker
     * written here would cost two round trips (a look for a file of that name, then the marker).
     */
    @Override
    public void beginWork() {
    }

    /**
     * Creates a payload file in the savepoint folder, and the folder when it is missing (the first
     * payload, or a collection removed it when it was empty): see {@link #beginWork}. On an object
     * store this sends nothing until the payload is synced (one conditional PUT): a check of the
     * folder first would be one more round trip per payload, on the writer's thread.
     */
    @Override
    public SyncableOutputStream createPayload(String path) throws IOException {
        return StagedFiles.createWithParents(fs, path);
    }

    /**
     * Publishes the attempt's metadata: its decision, a last check of its payloads, then
     * {@code _metadata.ser}; returns when the savepoint is published.
     *
     * <p>The index marker and the newest marker are written while the decision is created: none
     * of the three depends on another (each marker is a hint that readers check against the
     * metadata, and a marker without a published savepoint is removed by the attempt's abort or by
     * a collection), so on an object store they cost one round trip. All three are joined before
     * anything acts on any: a decision that is not ours aborts only after both markers' writes
     * ended (so the abort removes them), and a marker that failed makes a commit that decided give
     * up, removing its files and then its decision. The check of the payloads follows the
     * decision, and publication follows the check.
     */
    @Override
    public void publish(SavepointMeta meta, byte[] metaBytes, List<ManifestEntry> manifest) {
        attempt.requirePayloadsDurable();
        attempt.requireLease();
        try {
            if (manifest.isEmpty()) {
                fs.mkdirs(target); // no payload made the folder that _metadata.ser goes into
            }
            fs.syncDirectory(target);
        } catch (IOException | RuntimeException e) {
            attempt.abortQuietly();
            throw attempt.failed("syncing payloads failed", e);
        }
        StagedSavepointWriter.MarkerWrite<Boolean> marker = attempt.startIndexMarker(meta, true);
        StagedSavepointWriter.MarkerWrite<String> newest = attempt.startNewestMarker(meta, true);
        RuntimeException notDecided = decide(metaBytes);
        Exception markerFailed = attempt.awaitIndexMarker(marker);
        Exception newestFailed = attempt.awaitNewestMarker(newest);
        if (notDecided != null) {
            attempt.abortQuietly();
            throw notDecided;
        }
        if (markerFailed != null) {
            giveUp(metaBytes, attempt.failed("writing its index marker failed", markerFailed));
        }
        if (newestFailed != null) {
            giveUp(metaBytes, attempt.failed("writing its newest marker failed", newestFailed));
        }
        Optional<String> missing;
        try {
            missing = StagedFiles.missingOrChanged(fs, workDir, manifest);
        } catch (IOException | RuntimeException e) {
            missing = Optional.of("could not be checked: " + e.getMessage());
        }
        if (missing.isPresent()) {
            giveUp(metaBytes, attempt.failed("a payload " + missing.get() + " before publication", null));
        }
        publishMetadata(metaBytes);
    }

    /**
     * After the commit returned, on the storage's background executor: the decision is removed
     * once a read shows it still holds exactly this attempt's metadata (publication settled it
     * for good); absent, another's or unreadable, it is left (a delete of the savepoint removed
     * it, and garbage collection tidies whatever is left). Until this ran the decision says
     * "publishing" to every reader, which is what it is; its lease file goes after it, so that no
     * collection takes the decision for a gone writer's unfinished publication meanwhile. The read
     * and the delete are two steps: between them a delete of the savepoint may remove the decision
     * and a collection may then create "collected" under the same (attempt-unique) name for files
     * of this attempt left behind. Removing that only lets a later collection decide again: the one
     * actor that acts on a missing decision is this attempt's writer, whose commit has returned.
     */
    @Override
    public Runnable tidyingAfterCommit() {
        if (!published) {
            return null;
        }
        byte[] decided = publishedBytes;
        return () -> {
            if (StagedFiles.holds(fs, outcome, decided) == Answer.OURS) {
                tidyDecision();
            }
        };
    }

    /** Removes the attempt's own files by name, then the folder if that left it empty. */
    @Override
    public void removeWork(List<String> files) throws IOException {
        for (String file : files) {
            fs.delete(fs.child(workDir, file), false);
        }
        if (fs.list(workDir).isEmpty()) {
            fs.delete(workDir, false);
        }
    }

    /**
     * Creates the decision; returns null when it is ours, or the failure to throw (after the
     * caller aborts the attempt) when a collection decided first or it could not be recorded.
     */
    private RuntimeException decide(byte[] metaBytes) {
        IOException error = null;
        try {
            if (AttemptOutcome.claim(fs, outcome, metaBytes)) {
                return null;
            }
        } catch (IOException | RuntimeException e) {
            error = e instanceof IOException io ? io : new IOException(e);
        }
        // not created, or created with an error: it is ours only if it holds exactly our metadata
        if (StagedFiles.holds(fs, outcome, metaBytes) == Answer.OURS) {
            return null;
        }
        if (error != null) {
            return attempt.failed("recording its decision to publish failed", error);
        }
        return attempt.failed("another process collected the attempt before it could publish (it stalled past its"
                + " lease, which then expired: " + outcome + ")", null);
    }

    /**
     * Creates {@code _metadata.ser} whole and only if absent; an error or a taken name is resolved
     * by reading back what is there.
     */
    private void publishMetadata(byte[] metaBytes) {
        String metadata = fs.child(target, MetadataCodec.FILE_NAME);
        Exception error = null;
        boolean created = false;
        try {
            created = StagedFiles.createWhole(fs, metadata, metaBytes, outcome);
        } catch (IOException | RuntimeException e) {
            error = e;
        }
        Answer there = created ? Answer.OURS : StagedFiles.metadata(fs, target, metaBytes);
        switch (there) {
            case OURS -> {
                if (error != null) {
                    LOG.warn("Publishing savepoint {} of job {} reported an error but took effect ({})",
                            request.savepointId(), request.jobId(), target, error);
                }
                published = true;
                publishedBytes = metaBytes;
            }
            case OTHER -> giveUp(metaBytes, attempt.alreadyExists(error));
            case ABSENT -> giveUp(metaBytes, error == null
                    ? attempt.failed("its metadata was taken away while it was published", null)
                    : attempt.failed("publishing failed", error));
            default -> {
                attempt.letGo();
                throw attempt.unknown("publishing failed and its metadata cannot be read back", error);
            }
        }
    }

    /**
     * After the decision, a commit that cannot publish removes its own files, then its decision,
     * and throws {@code failure}. Nobody else acts on the decision, so nothing can publish it meanwhile.
     */
    private void giveUp(byte[] metaBytes, RuntimeException failure) {
        attempt.abortQuietly();
        if (StagedFiles.holds(fs, outcome, metaBytes) == Answer.OURS) {
            tidyDecision();
        }
        throw failure;
    }

    /** Removes this attempt's decision once it is settled; a failure leaves it to garbage collection. */
    private void tidyDecision() {
        try {
            fs.delete(outcome, false);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot remove the outcome of savepoint {} of job {}; garbage collection will ({})",
                    request.savepointId(), request.jobId(), outcome, e);
        }
    }
}
