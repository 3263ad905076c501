package io.keepsake.storage.s3;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.s3.internal.S3Settings;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checks, once per endpoint and bucket in this JVM, that the store enforces {@code If-None-Match: *}
 * on both requests that publish an object: a second {@code PutObject} of a key must fail, and so
 * must a {@code CompleteMultipartUpload} of a key that exists (HTTP 412 both). The probe object and
 * its upload live under a directory the storage is configured with (its namespace or savepoint
 * root), named {@value #PROBE_PREFIX}{@code <uuid>}, and are removed (the upload aborted) whatever
 * the outcome. A store that passed is remembered; one that failed is probed again at the next open.
 * Thread-safe.
 */
final class ConditionalWriteProbe {

    private static final Logger LOG = LoggerFactory.getLogger(ConditionalWriteProbe.class);

    /** The name every probe object starts with. */
    static final String PROBE_PREFIX = ".keepsake-conditional-write-probe-";

    private static final byte[] CONTENT = "keepsake conditional-write probe\n".getBytes(StandardCharsets.UTF_8);

    private static final Set<String> PASSED = ConcurrentHashMap.newKeySet();
    private static final ConcurrentMap<String, Object> LOCKS = new ConcurrentHashMap<>();
    private static final AtomicInteger RUNS = new AtomicInteger();

    private ConditionalWriteProbe() {
    }

    /** Forgets every probe that passed, so the next open of any bucket probes again: for tests. */
    static void forget() {
        PASSED.clear();
    }

    /** How many probes ran in this JVM (not answered from the cache): for tests. */
    static int runs() {
        return RUNS.get();
    }

    /**
     * Probes the bucket of {@code directory} unless a probe of the same endpoint and bucket passed
     * in this JVM; a store that ignores the condition on either request is refused.
     *
     * @param fs        a file system over a client of the store
     * @param directory where the probe object goes: a root the storage is configured with
     * @throws CheckpointStorageException when the store accepts a second conditional create of a key, or
     *                                    answers the probe other than S3 does
     * @throws IOException                when a request of the probe fails
     */
    static void requireEnforced(S3FileSystem fs, String directory, S3Settings settings)
            throws CheckpointStorageException, IOException {
        String bucket = fs.path(directory).bucket();
        String cacheKey = settings.endpointText() + " " + bucket;
        if (PASSED.contains(cacheKey)) {
            return;
        }
        synchronized (LOCKS.computeIfAbsent(cacheKey, k -> new Object())) {
            if (PASSED.contains(cacheKey)) {
                return;
            }
            RUNS.incrementAndGet();
            String probe = fs.child(directory, PROBE_PREFIX + UUID.randomUUID());
            try {
                if (!probe(fs, probe, settings)) {
                    return;
                }
            } finally {
                try {
                    fs.delete(probe, false);
                } catch (IOException e) {
                    LOG.warn("Cannot remove the conditional-write probe {}: {}", probe, e.getMessage());
                }
            }
            PASSED.add(cacheKey);
            LOG.debug("{} enforces If-None-Match on PutObject and CompleteMultipartUpload in bucket {}",
                    settings.endpointText(), bucket);
        }
    }

    /** Runs both checks on {@code probe}; false when the credentials may not write, so nothing was checked. */
    private static boolean probe(S3FileSystem fs, String probe, S3Settings settings)
            throws CheckpointStorageException, IOException {
        try {
            write(fs, probe);
        } catch (AccessDeniedException e) {
            LOG.info("Cannot check conditional writes at {}: the credentials may not write there, so this storage"
                    + " can only read ({})", settings.endpointText(), probe);
            return false;
        }
        try {
            write(fs, probe);
            throw refused(settings, "PutObject", probe);
        } catch (FileAlreadyExistsException expected) {
            // the second conditional PutObject was refused
        }
        S3Path p = fs.path(probe);
        String uploadId = fs.call(probe, "begin the multipart upload of", () -> fs.client().createMultipartUpload(b -> b
                .bucket(p.bucket()).key(p.key()))).uploadId();
        try {
            String etag = fs.call(probe, "upload a part of", () -> fs.client().uploadPart(b -> b.bucket(p.bucket())
                    .key(p.key()).uploadId(uploadId).partNumber(1), RequestBody.fromBytes(CONTENT))).eTag();
            try {
                fs.client().completeMultipartUpload(b -> b.bucket(p.bucket()).key(p.key()).uploadId(uploadId)
                        .ifNoneMatch("*").multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1)
                                .eTag(etag).build())));
            } catch (S3Exception e) {
                if (e.statusCode() == 412) {
                    return true;
                }
                throw new CheckpointStorageException("Cannot open s3 storage: the store at " + settings.endpointText()
                        + " answered HTTP " + e.statusCode() + " (" + S3FileSystem.code(e) + ") to a"
                        + " CompleteMultipartUpload with If-None-Match: * of a key that exists, where S3 answers 412;"
                        + " Keepsake publishes every file larger than one part that way (" + probe + ")", e);
            } catch (SdkException e) {
                throw fs.translate(probe, "complete the multipart upload of", e);
            }
            throw refused(settings, "CompleteMultipartUpload", probe);
        } finally {
            abortQuietly(fs, p, uploadId, probe);
        }
    }

    /** Aborts the probe's multipart upload; a failure is logged, since the probe's answer is known by then. */
    private static void abortQuietly(S3FileSystem fs, S3Path p, String uploadId, String probe) {
        try {
            fs.client().abortMultipartUpload(b -> b.bucket(p.bucket()).key(p.key()).uploadId(uploadId));
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                LOG.warn("Cannot abort the conditional-write probe's upload {} of {}: {}", uploadId, probe,
                        e.getMessage());
            }
        } catch (SdkException e) {
            LOG.warn("Cannot abort the conditional-write probe's upload {} of {}: {}", uploadId, probe,
                    e.getMessage());
        }
    }

    private static CheckpointStorageException refused(S3Settings settings, String request, String probe) {
        return new CheckpointStorageException("Cannot open s3 storage: the store at " + settings.endpointText()
                + " accepted a " + request + " with If-None-Match: * of a key that exists, so create-if-absent is"
                + " not exclusive there: two commits of one savepoint id could both win, and a garbage collection"
                + " could remove the files of a savepoint whose commit returned; use a store that enforces"
                + " conditional writes on PutObject and CompleteMultipartUpload, or set "
                + S3Settings.CONDITIONAL_WRITES + "=unsupported to accept that risk (" + probe + ")");
    }

    private static void write(S3FileSystem fs, String path) throws IOException {
        try (SyncableOutputStream out = fs.create(path, true)) {
            out.write(CONTENT);
            out.sync();
        }
    }
}
