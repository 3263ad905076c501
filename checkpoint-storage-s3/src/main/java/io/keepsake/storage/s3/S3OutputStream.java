package io.keepsake.storage.s3;

import io.keepsake.storage.spi.objectstore.BlockBufferingOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One object on its way to S3: bytes gather in one buffer of at most a part; a full buffer
 * becomes a part of a multipart upload (begun on the first full buffer), and {@link #sync()}
 * publishes the object: one {@code PutObject} when no part was sent, else the last part and
 * {@code CompleteMultipartUpload}, conditional when the file must be created. Nothing can be
 * written after that (S3 objects are not appended to). The object carries a random write id (and,
 * when it is one PUT, the SHA-256 of its bytes) as user metadata, so that a retried
 * request meeting a 412 can tell its own object from another writer's. A stream closed without a
 * successful {@code sync()}, or after a failed request, aborts its upload and leaves nothing.
 * Not thread-safe: one thread writes one object.
 */
final class S3OutputStream extends BlockBufferingOutputStream {

    private static final Logger LOG = LoggerFactory.getLogger(S3OutputStream.class);

    private final S3FileSystem fs;
    private final S3Path target;
    private final MessageDigest sha256;
    private final List<CompletedPart> parts = new ArrayList<>();
    private String uploadId;

    S3OutputStream(S3FileSystem fs, S3Path target, String path, boolean conditional) {
        super(path, conditional, fs.partSize(), "the object was published by sync() and S3 cannot append",
                "an earlier upload of this stream failed");
        this.fs = fs;
        this.target = target;
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Cannot hash: the JDK has no SHA-256", e);
        }
    }

    @Override
    protected boolean isOurs() throws IOException {
        return fs.isOurs(target, writeId);
    }

    private Map<String, String> metadata() {
        return Map.of(S3FileSystem.WRITE_ID, writeId);
    }

    /** The bytes as a request body, without a copy; each retry of the SDK reads them afresh. */
    private static RequestBody body(byte[] bytes, int length) {
        return RequestBody.fromContentProvider(() -> new ByteArrayInputStream(bytes, 0, length), length,
                "application/octet-stream");
    }

    /** Sends the bytes as the next part of the multipart upload, begun on the first part. */
    @Override
    protected void stageBlock(byte[] bytes, int length, int index) throws IOException {
        try {
            if (uploadId == null) {
                uploadId = fs.call(path, "begin multipart upload", () -> fs.client().createMultipartUpload(b -> b
                        .bucket(target.bucket()).key(target.key()).metadata(metadata()))).uploadId();
            }
            int number = index + 1;
            UploadPartResponse r = fs.call(path, "upload part " + number, () -> fs.client().uploadPart(b -> b
                    .bucket(target.bucket()).key(target.key()).uploadId(uploadId).partNumber(number),
                    body(bytes, length)));
            parts.add(CompletedPart.builder().partNumber(number).eTag(r.eTag()).build());
        } catch (IOException | RuntimeException e) {
            abortUpload();
            throw e;
        }
    }

    /** Aborts the upload of an object not published by {@link #sync()}. */
    @Override
    protected void abandon() {
        abortUpload();
    }

    /** One PutObject of the bytes, conditional when the file must be created. */
    @Override
    protected void putWhole(byte[] bytes, int length) throws IOException {
        sha256.update(bytes, 0, length);
        String hash = HexFormat.of().formatHex(sha256.digest());
        RequestBody body = body(bytes, length);
        PutObjectRequest.Builder request = PutObjectRequest.builder().bucket(target.bucket()).key(target.key())
                .metadata(Map.of(S3FileSystem.WRITE_ID, writeId, S3FileSystem.SHA256, hash));
        if (conditional) {
            request.ifNoneMatch("*");
        }
        PutObjectRequest built = request.build();
        publish(() -> fs.client().putObject(built, body));
    }

    @Override
    protected void commitBlocks() throws IOException {
        CompleteMultipartUploadRequest.Builder request = CompleteMultipartUploadRequest.builder()
                .bucket(target.bucket()).key(target.key()).uploadId(uploadId)
                .multipartUpload(m -> m.parts(parts));
        if (conditional) {
            request.ifNoneMatch("*");
        }
        CompleteMultipartUploadRequest built = request.build();
        try {
            publish(() -> fs.client().completeMultipartUpload(built));
        } catch (IOException | RuntimeException e) {
            abortUpload();
            throw e;
        }
    }

    /**
     * Sends the publishing request; retries a 409 conflict; a 412 (or a vanished upload) is success
     * when the object there is ours, else {@link FileAlreadyExistsException}; any other failure is
     * success when the object there is ours after all (the request took effect), else thrown.
     */
    private void publish(Runnable request) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                request.run();
                return;
            } catch (S3Exception e) {
                String code = S3FileSystem.code(e);
                if (e.statusCode() == 409 && attempt < S3FileSystem.conflictRetries()) {
                    LOG.debug("Conditional write conflict on {}; retrying ({})", path, code);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(
                            ThreadLocalRandom.current().nextLong(5, 20L * attempt)));
                    continue;
                }
                if (e.statusCode() == 412 || (e.statusCode() == 404 && "NoSuchUpload".equals(code))) {
                    if (isOurs()) {
                        LOG.debug("Create of {} met its own object after a lost response", path);
                        return;
                    }
                    if (e.statusCode() == 412) {
                        FileAlreadyExistsException exists = new FileAlreadyExistsException(path, null,
                                "another writer created it first (HTTP 412)");
                        exists.initCause(e);
                        throw exists;
                    }
                }
                failUnlessOurs(fs.translate(path, "create", e), e);
                return;
            } catch (SdkException e) {
                failUnlessOurs(fs.translate(path, "create", e), e);
                return;
            }
        }
    }

    private void abortUpload() {
        if (uploadId == null) {
            return;
        }
        String id = uploadId;
        uploadId = null;
        try {
            fs.client().abortMultipartUpload(b -> b.bucket(target.bucket()).key(target.key()).uploadId(id));
        } catch (SdkException e) {
            LOG.warn("Cannot abort multipart upload {} of {}; garbage collection will ({})", id, path,
                    fs.description(), e);
        }
    }
}
