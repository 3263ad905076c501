package io.keepsake.storage.azure;

import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.objectstore.StoredObject;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Listings, stats and deletes of one {@link AzureFileSystem}, where directories are name prefixes:
 * List Blobs by prefix, paginated and flat, so that a directory's modification time is that of the
 * newest blob below it; names that cannot be a path segment ({@code .}, {@code ..}, empty) are left
 * out. A tree is deleted blob by blob, its marker last. Thread-safe.
 */
final class AzureListing {

    private final AzureFileSystem fs;

    AzureListing(AzureFileSystem fs) {
        this.fs = fs;
    }

    private static long millis(OffsetDateTime time) {
        return time == null ? 0 : time.toInstant().toEpochMilli();
    }

    /** Every blob below {@code prefix}, page after page. */
    List<StoredObject> listAll(AzurePath dir, String prefix, String what) throws IOException {
        return fs.call(what, "list", () -> {
            List<StoredObject> all = new ArrayList<>();
            for (BlobItem b : fs.client().getBlobContainerClient(dir.container())
                    .listBlobs(new ListBlobsOptions().setPrefix(prefix.isEmpty() ? null : prefix), null)) {
                Long size = b.getProperties().getContentLength();
                all.add(new StoredObject(b.getName(), size == null ? 0 : size,
                        millis(b.getProperties().getLastModified())));
            }
            return all;
        });
    }

    /** Up to {@code max} blobs below {@code prefix}: one request. */
    private List<BlobItem> firstBelow(AzurePath dir, String prefix, int max, String what) throws IOException {
        return fs.call(what, "list", () -> {
            List<BlobItem> some = new ArrayList<>();
            var pages = fs.client().getBlobContainerClient(dir.container())
                    .listBlobs(new ListBlobsOptions().setPrefix(prefix.isEmpty() ? null : prefix)
                            .setMaxResultsPerPage(max), null).iterableByPage().iterator();
            if (pages.hasNext()) {
                some.addAll(pages.next().getValue());
            }
            return some;
        });
    }

    /** True when a blob (a marker included) lies below the directory {@code dir}. */
    boolean anyBelow(AzurePath dir, String what) throws IOException {
        return !firstBelow(dir, dir.directoryPrefix(), 1, what).isEmpty();
    }

    /** What is at {@code p}: a blob, or a prefix with blobs below it (a directory), or nothing. */
    Optional<FileStatus> stat(AzurePath p, String path) throws IOException {
        String name = p.lastSegment();
        if (!p.name().isEmpty()) {
            var props = fs.properties(p);
            if (props.isPresent()) {
                return Optional.of(new FileStatus(path, name, false, props.get().getBlobSize(),
                        millis(props.get().getLastModified())));
            }
        }
        List<BlobItem> first = firstBelow(p, p.directoryPrefix(), 1, path);
        if (first.isEmpty()) {
            return p.name().isEmpty() ? Optional.of(new FileStatus(path, "", true, 0, 0)) : Optional.empty();
        }
        return Optional.of(new FileStatus(path, name, true, 0, millis(first.get(0).getProperties().getLastModified())));
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
            for (BlobItem b : firstBelow(p, prefix, 2, path)) {
                if (!b.getName().equals(prefix)) {
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
