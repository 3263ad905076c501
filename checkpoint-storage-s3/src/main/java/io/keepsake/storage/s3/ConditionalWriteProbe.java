package io.keepsake.storage.s3;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.s3.internal.S3Settings;
import io.keepsake.storage.spi.objectstore.CreateIfAbsentProbe;
import io.keepsake.storage.spi.objectstore.ScopedRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.util.List;

/**
 * Checks, once per endpoint and bucket in this JVM, that the store enforces {@code If-None-Match: *}
 * on both requests that publish an object: a second {@code PutObject} of a key must fail, and so
 * must a {@code CompleteMultipartUpload} of a key that exists (HTTP 412 both). The probe object and
 * its upload live under a directory the storage is configured with (its namespace or savepoint
 * root) and are removed (the upload aborted) whatever the outcome; {@link CreateIfAbsentProbe} runs
 * the checks and remembers the stores that passed. Thread-safe.
 */
final class ConditionalWriteProbe {

    private static final Logger LOG = LoggerFactory.getLogger(ConditionalWriteProbe.class);

    /** The name every probe object starts with. */
    static final String PROBE_PREFIX = CreateIfAbsentProbe.PROBE_PREFIX;

    private static final CreateIfAbsentProbe PROBE = new CreateIfAbsentProbe(new CreateIfAbsentProbe.Wording(
            "s3", "store", "key", "bucket", "PutObject", "CompleteMultipartUpload", S3Settings.CONDITIONAL_WRITES,
            S3Settings.ENDPOINT));

    private ConditionalWriteProbe() {
    }

    /** Forgets every probe that passed, so the next open of any bucket probes again: for tests. */
    static void forget() {
        PROBE.forget();
    }

    /** How many probes ran in this JVM (not answered from the cache): for tests. */
    static int runs() {
        return PROBE.runs();
    }

    /**
     * Probes the bucket of every root unless a probe of the same endpoint and bucket passed in this
     * JVM; a store that ignores the condition on either request is refused.
     *
     * @param fs    a file system over a client of the store
     * @param roots where the probe objects go: one root the storage is configured with per bucket
     * @throws CheckpointStorageException when the store accepts a second conditional create of a key,
     *                                    answers the probe other than S3 does, or a request of the probe fails
     */
    static void requireEnforced(S3FileSystem fs, List<ScopedRoot> roots, S3Settings settings)
            throws CheckpointStorageException {
        PROBE.requireEnforced(fs, roots, settings.endpointText(), probe -> completeRefused(fs, probe, settings));
    }

    /** Completes a one-part multipart upload of {@code probe}, which exists; true when S3 answered 412. */
    private static boolean completeRefused(S3FileSystem fs, String probe, S3Settings settings)
            throws CheckpointStorageException, IOException {
        S3Path p = fs.path(probe);
        String uploadId = fs.call(probe, "begin the multipart upload of", () -> fs.client().createMultipartUpload(b -> b
                .bucket(p.bucket()).key(p.key()))).uploadId();
        try {
            String etag = fs.call(probe, "upload a part of", () -> fs.client().uploadPart(b -> b.bucket(p.bucket())
                    .key(p.key()).uploadId(uploadId).partNumber(1), RequestBody.fromBytes(CreateIfAbsentProbe.CONTENT)))
                    .eTag();
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
            return false;
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
}
