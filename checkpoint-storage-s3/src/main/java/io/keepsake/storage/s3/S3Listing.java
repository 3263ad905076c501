package io.keepsake.storage.s3;

import io.keepsake.storage.spi.PendingUpload;
import io.keepsake.storage.spi.objectstore.StoredObject;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Listings of one {@link S3FileSystem}, where directories are key prefixes:
 * {@code ListObjectsV2}, paginated; a directory's modification time is that of the newest object
 * below it; names that cannot be a path segment ({@code .}, {@code ..}, empty) are left out.
 * Thread-safe.
 */
final class S3Listing {

    private final S3FileSystem fs;

    S3Listing(S3FileSystem fs) {
        this.fs = fs;
    }

    /** Every object below {@code prefix}, page after page. */
    List<StoredObject> listAll(S3Path dir, String prefix, String what) throws IOException {
        List<StoredObject> out = new ArrayList<>();
        String token = null;
        do {
            String continuation = token;
            ListObjectsV2Response page = fs.call(what, "list", () -> fs.client().listObjectsV2(
                    ListObjectsV2Request.builder().bucket(dir.bucket()).prefix(prefix)
                            .continuationToken(continuation).build()));
            for (S3Object o : page.contents()) {
                out.add(stored(o));
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return out;
    }

    private static StoredObject stored(S3Object o) {
        return new StoredObject(o.key(), o.size(), millis(o.lastModified()));
    }

    /** A time in milliseconds since the epoch, 0 for none. */
    static long millis(Instant time) {
        return time == null ? 0 : time.toEpochMilli();
    }

    /** One object below the directory {@code p}: one request; a missing bucket is {@link NoSuchFileException}. */
    Optional<StoredObject> firstBelow(S3Path p, String path) throws IOException {
        ListObjectsV2Response page;
        try {
            page = fs.client().listObjectsV2(b -> b.bucket(p.bucket()).prefix(p.directoryPrefix()).maxKeys(1));
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && "NoSuchBucket".equals(S3FileSystem.code(e))) {
                // not "nothing there": the caller is told which bucket is missing, as a missing parent is told
                throw S3FileSystem.withCause(new NoSuchFileException(path, null, "S3 bucket '" + p.bucket()
                        + "' does not exist (" + fs.description() + ")"), e);
            }
            throw fs.translate(path, "stat", e);
        } catch (SdkException e) {
            throw fs.translate(path, "stat", e);
        }
        return page.contents().stream().findFirst().map(S3Listing::stored);
    }

    /** The multipart uploads begun below {@code directory} and neither completed nor aborted. */
    List<PendingUpload> pendingUploads(String directory) throws IOException {
        S3Path dir = fs.path(directory);
        List<PendingUpload> out = new ArrayList<>();
        String keyMarker = null;
        String idMarker = null;
        do {
            String k = keyMarker;
            String i = idMarker;
            ListMultipartUploadsResponse page = fs.call(directory, "list multipart uploads",
                    () -> fs.client().listMultipartUploads(b -> b.bucket(dir.bucket())
                            .prefix(dir.directoryPrefix()).keyMarker(k).uploadIdMarker(i)));
            for (MultipartUpload u : page.uploads()) {
                out.add(new PendingUpload(new S3Path(dir.bucket(), u.key()).toString(), u.uploadId(),
                        u.initiated() == null ? 0 : u.initiated().toEpochMilli()));
            }
            boolean more = Boolean.TRUE.equals(page.isTruncated());
            keyMarker = more ? page.nextKeyMarker() : null;
            idMarker = more ? page.nextUploadIdMarker() : null;
        } while (keyMarker != null);
        return out;
    }
}
