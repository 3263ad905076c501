package io.keepsake.storage.azure;

import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.keepsake.storage.spi.objectstore.StoredObject;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Listings and deletes of one {@link AzureFileSystem}, where directories are name prefixes:
 * List Blobs by prefix, paginated and flat, so that a directory's modification time is that of the
 * newest blob below it; names that cannot be a path segment ({@code .}, {@code ..}, empty) are left
 * out. A tree is deleted blob by blob, its marker last. Thread-safe.
 */
final class AzureListing {

    private final AzureFileSystem fs;

    AzureListing(AzureFileSystem fs) {
        this.fs = fs;
    }

    /** A time in milliseconds since the epoch, 0 for none. */
    static long millis(OffsetDateTime time) {
        return time == null ? 0 : time.toInstant().toEpochMilli();
    }

    private static StoredObject stored(BlobItem b) {
        Long size = b.getProperties().getContentLength();
        return new StoredObject(b.getName(), size == null ? 0 : size, millis(b.getProperties().getLastModified()));
    }

    /** Every blob below {@code prefix}, page after page. */
    List<StoredObject> listAll(AzurePath dir, String prefix, String what) throws IOException {
        return fs.call(what, "list", () -> {
            List<StoredObject> all = new ArrayList<>();
            for (BlobItem b : fs.client().getBlobContainerClient(dir.container())
                    .listBlobs(new ListBlobsOptions().setPrefix(prefix.isEmpty() ? null : prefix), null)) {
                all.add(stored(b));
            }
            return all;
        });
    }

    /** Up to {@code max} blobs below {@code prefix}: one request. */
    List<StoredObject> firstBelow(AzurePath dir, String prefix, int max, String what) throws IOException {
        return fs.call(what, "list", () -> {
            List<StoredObject> some = new ArrayList<>();
            var pages = fs.client().getBlobContainerClient(dir.container())
                    .listBlobs(new ListBlobsOptions().setPrefix(prefix.isEmpty() ? null : prefix)
                            .setMaxResultsPerPage(max), null).iterableByPage().iterator();
            if (pages.hasNext()) {
                pages.next().getValue().forEach(b -> some.add(stored(b)));
            }
            return some;
        });
    }

    /** Deletes a blob, or a directory (its whole tree with {@code recursive}); the top of a container never. */
    boolean delete(String path, boolean recursive) throws IOException {
        AzurePath p = fs.path(path);
        if (p.name().isEmpty()) {
            throw new AccessDeniedException(path, null, "the top of a container is never deleted");
        }
        if (deleteBlob(p, path)) {
            return true;
        }
        String prefix = p.directoryPrefix();
        if (!recursive) {
            for (StoredObject b : firstBelow(p, prefix, 2, path)) {
                if (!b.name().equals(prefix)) {
                    throw new DirectoryNotEmptyException(path);
                }
            }
            return deleteBlob(new AzurePath(p.container(), prefix), path);
        }
        List<StoredObject> all = listAll(p, prefix, path);
        // The marker last, so that an interrupted delete leaves a directory that still exists.
        all.sort((a, b) -> Boolean.compare(a.name().equals(prefix), b.name().equals(prefix)));
        for (StoredObject b : all) {
            deleteBlob(new AzurePath(p.container(), b.name()), path);
        }
        return !all.isEmpty();
    }

    /** Deletes one blob; false when none was there. */
    private boolean deleteBlob(AzurePath p, String path) throws IOException {
        return fs.call(path, "delete", () -> fs.blob(p).deleteIfExists());
    }
}
