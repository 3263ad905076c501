package io.keepsake.storage.internal;

import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Optional;

/**
 * The file that marks a savepoint root as Keepsake's own, {@code <root>/.keepsake-root}, written
 * with the first savepoint begun there (I9). Garbage collection and deletion refuse to remove
 * anything under a root that holds entries but no marker: pointed at the wrong folder, they
 * delete nothing. Stateless.
 */
final class RootMarker {

    /** The marker's name; it starts with a dot, so it is never taken for a job. */
    static final String NAME = ".keepsake-root";

    private RootMarker() {
    }

    /**
     * Writes the marker when it is missing, looking for it once per root and storage instance
     * ({@code known}): a marker removed later is not written again by this instance, which only
     * makes collections and deletes under that root refuse to remove anything (the safe side); the
     * writer's own guarantees never depend on the marker.
     */
    static void ensure(StorageFileSystem fs, String root, InFlightAttempts known) throws IOException {
        if (known.rootKnownMarked(root)) {
            return;
        }
        ensure(fs, root);
        known.rootMarked(root);
    }

    /** Writes the marker when it is missing. */
    static void ensure(StorageFileSystem fs, String root) throws IOException {
        String path = fs.child(root, NAME);
        if (fs.stat(path).isPresent()) {
            return;
        }
        try (SyncableOutputStream out = fs.create(path, true)) {
            out.write("Keepsake savepoint root: savepoints are removed only by an explicit delete\n"
                    .getBytes(StandardCharsets.UTF_8));
            out.sync();
        } catch (FileAlreadyExistsException raced) {
            return;
        }
        fs.syncDirectory(root);
    }

    /**
     * Refuses, with a typed error naming the root, to {@code what} under a root that holds entries
     * but no marker; false when the root is missing or empty (nothing to do there), true when marked.
     *
     * @throws SavepointStorageException when the root has entries but no marker, or cannot be read
     */
    static boolean requireMarkedOrEmpty(StorageFileSystem fs, String root, String what) {
        try {
            Optional<FileStatus> marker = fs.stat(fs.child(root, NAME));
            if (marker.isPresent() && !marker.get().directory()) {
                return true;
            }
            List<FileStatus> entries = fs.list(root);
            if (entries.isEmpty()) {
                return false;
            }
            // The first savepoint may have marked the root between the stat and the listing (the
            // listing then shows its job folder, or on some object stores the marker's upload in
            // flight): look once more before refusing.
            marker = fs.stat(fs.child(root, NAME));
            if (marker.isPresent() && !marker.get().directory()) {
                return true;
            }
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": " + e.getMessage() + " (" + root + ")", e);
        }
        throw new SavepointStorageException("Cannot " + what + ": the folder is not marked as a Keepsake savepoint root"
                + " (no " + NAME + "), so nothing there is deleted; check savepoint.path, or, if an earlier Keepsake"
                + " wrote it, commit one savepoint there to mark it (" + root + ")");
    }
}
