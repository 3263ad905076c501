package io.keepsake.storage.s3;

import io.keepsake.storage.spi.PendingUpload;
import io.keepsake.storage.spi.objectstore.StoredObject;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.util.ArrayList;
import java.util.List;

/**
 * The deletes of one {@link S3FileSystem}: an object, an empty directory's marker, a tree in
 * batches of {@code DeleteObjects}, a pending multipart upload; and the move of one object by
 * copy and delete. Thread-safe.
 */
final class S3Deletes {

    private static final int DELETE_BATCH = 1000;

    private final S3FileSystem fs;
    private final S3Listing listing;

    S3Deletes(S3FileSystem fs, S3Listing listing) {
        this.fs = fs;
        this.listing = listing;
    }

    /** Deletes an object, or a directory (its whole tree with {@code recursive}); the top of a bucket never. */
    boolean delete(String path, boolean recursive) throws IOException {
        S3Path p = fs.path(path);
        if (p.key().isEmpty()) {
            throw new AccessDeniedException(path, null, "the top of a bucket is never deleted");
        }
        if (fs.headObject(p).isPresent()) {
            fs.call(path, "delete", () -> fs.client().deleteObject(b -> b.bucket(p.bucket()).key(p.key())));
            return true;
        }
        return recursive ? deleteTree(p, path) : deleteEmptyDirectory(p, path);
    }

    /** Deletes a directory's marker when nothing else is below it; false when there is no directory. */
    private boolean deleteEmptyDirectory(S3Path p, String path) throws IOException {
        String prefix = p.directoryPrefix();
        ListObjectsV2Response page = fs.call(path, "delete", () -> fs.client().listObjectsV2(b -> b
                .bucket(p.bucket()).prefix(prefix).maxKeys(2)));
        for (S3Object o : page.contents()) {
            if (!o.key().equals(prefix)) {
                throw new DirectoryNotEmptyException(path);
            }
        }
        if (page.contents().isEmpty()) {
            return false;
        }
        fs.call(path, "delete", () -> fs.client().deleteObject(b -> b.bucket(p.bucket()).key(prefix)));
        return true;
    }

    /** Deletes every object below a directory in batches, its marker last; false when there was none. */
    private boolean deleteTree(S3Path p, String path) throws IOException {
        String prefix = p.directoryPrefix();
        List<StoredObject> all = listing.listAll(p, prefix, path);
        // The marker last, so that an interrupted delete leaves a directory that still exists.
        all.sort((a, b) -> Boolean.compare(a.name().equals(prefix), b.name().equals(prefix)));
        for (int from = 0; from < all.size(); from += DELETE_BATCH) {
            List<ObjectIdentifier> batch = new ArrayList<>();
            for (StoredObject o : all.subList(from, Math.min(all.size(), from + DELETE_BATCH))) {
                batch.add(ObjectIdentifier.builder().key(o.name()).build());
            }
            DeleteObjectsResponse response = fs.call(path, "delete", () -> fs.client().deleteObjects(b -> b
                    .bucket(p.bucket()).delete(Delete.builder().objects(batch).quiet(true).build())));
            if (!response.errors().isEmpty()) {
                S3Error first = response.errors().get(0);
                throw new IOException("Cannot delete " + response.errors().size() + " object(s) under " + path + ": "
                        + first.code() + " " + first.message() + " (" + p.bucket() + "/" + first.key() + ")");
            }
        }
        return !all.isEmpty();
    }

    /** Copies the object at {@code from} to {@code to}, then deletes {@code from}; {@code source} names it in messages. */
    void move(S3Path from, S3Path to, String source) throws IOException {
        fs.call(source, "rename", () -> fs.client().copyObject(CopyObjectRequest.builder()
                .sourceBucket(from.bucket()).sourceKey(from.key())
                .destinationBucket(to.bucket()).destinationKey(to.key()).build()));
        fs.call(source, "rename", () -> fs.client().deleteObject(b -> b.bucket(from.bucket()).key(from.key())));
    }

    /** Aborts one multipart upload; fine when it is already gone. */
    void abortUpload(PendingUpload upload) throws IOException {
        S3Path p = fs.path(upload.path());
        try {
            fs.client().abortMultipartUpload(b -> b.bucket(p.bucket()).key(p.key()).uploadId(upload.uploadId()));
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw fs.translate(upload.path(), "abort upload", e);
            }
        } catch (SdkException e) {
            throw fs.translate(upload.path(), "abort upload", e);
        }
    }
}
