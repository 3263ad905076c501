package io.keepsake.storage.s3;

import io.keepsake.storage.spi.SyncableOutputStream;
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
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
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
final class S3OutputStream extends SyncableOutputStream {

    private static final Logger LOG = LoggerFactory.getLogger(S3OutputStream.class);
    private static final int FIRST_BUFFER = 64 << 10;

    private final S3FileSystem fs;
    private final S3Path target;
    private final String path;
    private final boolean conditional;
    private final String writeId = UUID.randomUUID().toString();
    private final MessageDigest sha256;
    private final List<CompletedPart> parts = new ArrayList<>();
    private byte[] buffer = new byte[FIRST_BUFFER];
    private int count;
    private String uploadId;
    private boolean published;
    private boolean failed;
    private boolean closed;

    S3OutputStream(S3FileSystem fs, S3Path target, String path, boolean conditional) {
        this.fs = fs;
        this.target = target;
        this.path = path;
        this.conditional = conditional;
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Cannot hash: the JDK has no SHA-256", e);
        }
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        requireWritable();
        Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            if (count == buffer.length && buffer.length < fs.partSize()) {
                buffer = Arrays.copyOf(buffer, (int) Math.min(fs.partSize(), (long) buffer.length * 2));
            }
            int n = Math.min(len, buffer.length - count);
            System.arraycopy(b, off, buffer, count, n);
            count += n;
            off += n;
            len -= n;
            if (count == fs.partSize()) {
                sendPart();
            }
        }
    }

    /**
     * Publishes the object with every byte written so far; a second call does nothing.
     *
     * @throws java.nio.file.FileAlreadyExistsException when the file must be created and another writer created it first
     */
    @Override
    public void sync() throws IOException {
        if (published) {
            return;
        }
        requireWritable();
        try {
            if (uploadId == null) {
                putWhole();
            } else {
                if (count > 0) {
                    sendPart();
                }
                complete();
            }
            published = true;
        } catch (IOException | RuntimeException e) {
            failed = true;
            throw e;
        } finally {
            buffer = null;
        }
    }

    @Override
    public void flush() throws IOException {
        requireWritable();
    }

    private void requireWritable() throws IOException {
        if (published) {
            throw new IOException("Cannot write " + path + ": the object was published by sync() and S3 cannot append");
        }
        if (closed) {
            throw new IOException("Cannot write " + path + ": the stream is closed");
        }
        if (failed) {
            throw new IOException("Cannot write " + path + ": an earlier upload of this stream failed");
        }
    }

    private Map<String, String> metadata() {
        return Map.of(S3FileSystem.WRITE_ID, writeId);
    }

    /** The buffered bytes as a request body, without a copy; each retry of the SDK reads them afresh. */
    private RequestBody body() {
        byte[] bytes = buffer;
        int length = count;
        return RequestBody.fromContentProvider(() -> new ByteArrayInputStream(bytes, 0, length), length,
                "application/octet-stream");
    }

    private void sendPart() throws IOException {
        try {
            if (uploadId == null) {
                uploadId = fs.call(path, "begin multipart upload", () -> fs.client().createMultipartUpload(b -> b
                        .bucket(target.bucket()).key(target.key()).metadata(metadata()))).uploadId();
            }
            int number = parts.size() + 1;
            UploadPartResponse r = fs.call(path, "upload part " + number, () -> fs.client().uploadPart(b -> b
                    .bucket(target.bucket()).key(target.key()).uploadId(uploadId).partNumber(number), body()));
            parts.add(CompletedPart.builder().partNumber(number).eTag(r.eTag()).build());
            count = 0;
        } catch (IOException | RuntimeException e) {
            failed = true;
            abortUpload();
            throw e;
        }
    }

    /** Releases the stream; an object not published by {@link #sync()} is abandoned and its upload aborted. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!published) {
            abortUpload();
        }
        buffer = null;
    }

    /** One PutObject of the buffer, conditional when the file must be created. */
    private void putWhole() throws IOException {
        sha256.update(buffer, 0, count);
        String hash = HexFormat.of().formatHex(sha256.digest());
        RequestBody body = body();
        PutObjectRequest.Builder request = PutObjectRequest.builder().bucket(target.bucket()).key(target.key())
                .metadata(Map.of(S3FileSystem.WRITE_ID, writeId, S3FileSystem.SHA256, hash));
        if (conditional) {
            request.ifNoneMatch("*");
        }
        PutObjectRequest built = request.build();
        publish(() -> fs.client().putObject(built, body));
    }

    private void complete() throws IOException {
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
                    if (fs.isOurs(target, writeId)) {
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
                IOException failure = failureUnlessOurs(e);
                if (failure == null) {
                    return;
                }
                throw failure;
            } catch (SdkException e) {
                IOException failure = failureUnlessOurs(e);
                if (failure == null) {
                    return;
                }
                throw failure;
            }
        }
    }

    /** After a failure: null when the object is ours after all (the request took effect), else the failure. */
    private IOException failureUnlessOurs(SdkException e) {
        IOException failure = fs.translate(path, "create", e);
        try {
            if (fs.isOurs(target, writeId)) {
                LOG.debug("Create of {} reported an error but took effect", path, e);
                return null;
            }
        } catch (IOException unreadable) {
            failure.addSuppressed(unreadable);
        }
        failed = true;
        return failure;
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
