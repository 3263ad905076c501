package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCommitFailedException;
import io.keepsake.storage.SavepointCommitStateUnknownException;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.List;

/**
 * How one class of backend publishes an attempt: where its files are written, the atomic step
 * that decides it against every collection, and how its writer removes its own work. One
 * implementation per class: {@link DirectoryRenamePublication} where a directory renames in one
 * atomic step, {@link CreateIfAbsentPublication} where only a file can be created whole and only
 * if absent. Each serves one attempt of one {@link StagedSavepointWriter}, under the writer's lock.
 */
sealed interface Publication permits DirectoryRenamePublication, CreateIfAbsentPublication {

    /** The directory the attempt writes its payloads into. */
    String workDir();

    /** Prepares the work directory once the attempt holds its lease, before any payload is created. */
    void beginWork() throws IOException;

    /**
     * What is left to do once the commit returned (removing what only decided the attempt), run by
     * the storage's background executor before the lease file goes; null when there is nothing.
     */
    Runnable tidyingAfterCommit();

    /** The directory whose entries publication changes, synced after it. */
    String publishedParent();

    /**
     * Creates one payload file in the work directory.
     *
     * @throws NoSuchFileException when the work directory is gone and must not be recreated
     */
    SyncableOutputStream createPayload(String path) throws IOException;

    /**
     * Decides and publishes the attempt once every payload is written; returns when it is published.
     *
     * @throws SavepointCommitFailedException       when nothing was published (the attempt is aborted)
     * @throws SavepointAlreadyExistsException      when another attempt published this id first
     * @throws SavepointCommitStateUnknownException when the outcome cannot be told
     */
    void publish(SavepointMeta meta, byte[] metaBytes, List<ManifestEntry> manifest);

    /** Removes what the attempt wrote ({@code files}, names in the work directory) when it is aborted. */
    void removeWork(List<String> files) throws IOException;
}
