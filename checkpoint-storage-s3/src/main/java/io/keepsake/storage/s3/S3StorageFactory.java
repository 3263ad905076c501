package io.keepsake.storage.s3;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.StorageRootNotFoundException;
import io.keepsake.storage.s3.internal.S3Settings;
import io.keepsake.storage.spi.FileSystemStorageFactory;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.StorageRoots;
import io.keepsake.storage.spi.objectstore.ScopedRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.util.List;

/**
 * Checkpoints and savepoints on Amazon S3 or an S3-compatible store (factory id {@code s3}): a
 * {@link KeepsakeStorage} over {@link S3FileSystem}, configured by the keys SeaTunnel users write
 * for its S3 checkpoint storage:
 * <ul>
 *   <li>{@code namespace} (required; an absolute key such as {@code /seatunnel/checkpoint/} in
 *       {@code s3.bucket}, or {@code s3a://bucket/prefix}), {@code savepoint.path} (the same forms,
 *       so savepoints may live in another bucket or prefix), {@code savepoint.periodic.max-retained};</li>
 *   <li>{@code storage.type}: {@code s3} or {@code s3a};</li>
 *   <li>{@code s3.bucket} ({@code s3a://bucket}), {@code fs.s3a.endpoint},
 *       {@code fs.s3a.endpoint.region}, {@code fs.s3a.path.style.access},
 *       {@code fs.s3a.connection.ssl.enabled};</li>
 *   <li>credentials: {@code fs.s3a.access.key} with {@code fs.s3a.secret.key} (and
 *       {@code fs.s3a.session.token}), or {@code fs.s3a.aws.credentials.provider} (Hadoop S3A's
 *       provider class names), else the SDK's default chain;</li>
 *   <li>{@code fs.s3a.multipart.size}, {@code fs.s3a.connection.establish.timeout},
 *       {@code fs.s3a.connection.timeout}, {@code fs.s3a.attempts.maximum};</li>
 *   <li>{@code s3.conditional-writes}: {@code required} (the default) or {@code unsupported}.</li>
 * </ul>
 * Before returning, the factory checks every bucket it will use through a client that gives up in
 * seconds (a missing bucket, refused credentials or an unreachable endpoint fail here, naming the
 * key and the endpoint) and creates the root markers; then, whatever {@code create-roots} says, it
 * checks once per endpoint and bucket in this JVM that the store refuses a second conditional
 * create of one key by {@code PutObject} and by {@code CompleteMultipartUpload}; a store that
 * accepts either is refused unless {@code s3.conditional-writes=unsupported}, which is warned of
 * with its whole risk. Thread-safe; the probe's results are cached per JVM.
 */
public final class S3StorageFactory extends FileSystemStorageFactory {

    private static final Logger LOG = LoggerFactory.getLogger(S3StorageFactory.class);

    /** The id users put in their configuration. */
    public static final String IDENTIFIER = "s3";

    /** The factory {@link java.util.ServiceLoader} instantiates. */
    public S3StorageFactory() {
        super(IDENTIFIER, S3Settings.KEYS, List.of(), S3Settings.STORAGE_TYPES);
    }

    /**
     * Parses the keys and opens the file system; checks both roots' syntax, naming the key of a bad one.
     *
     * @throws InvalidStorageArgumentException when a key is malformed or a root names no bucket
     */
    @Override
    protected StorageFileSystem openFileSystem(StorageOptions options) throws CheckpointStorageException {
        S3Settings settings = S3Settings.from(options);
        S3FileSystem fs = new S3FileSystem(settings.client(), settings.bucket(), settings.partSize(),
                settings.conditionalWrites(), settings.endpointText());
        StorageRoots.requireWellFormed(fs, options, "storage root|S3 path");
        return fs;
    }

    /**
     * Checks every bucket through a short-timeout client, creates the root markers, and checks
     * that the store refuses a second conditional create.
     *
     * @throws CheckpointStorageException when a bucket is missing, the credentials are refused, the
     *                                    endpoint cannot be reached or conditional writes are not enforced
     */
    @Override
    protected void prepareRoots(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage)
            throws CheckpointStorageException {
        S3Settings settings = S3Settings.from(options);
        S3FileSystem main = (S3FileSystem) fileSystem;
        try (S3Client probeClient = settings.probeClient()) {
            S3FileSystem probe = new S3FileSystem(probeClient, settings.bucket(), settings.partSize(),
                    settings.conditionalWrites(), settings.endpointText());
            for (ScopedRoot root : ScopedRoot.onePerScope(storage, r -> main.path(r).bucket())) {
                checkBucket(probeClient, root.scope(), settings);
            }
            StorageRoots.create(probe, storage, (root, e) -> new CheckpointStorageException("Cannot open s3 storage at "
                    + settings.endpointText() + ": creating " + root + " failed: " + e.getMessage() + " ("
                    + S3Settings.ENDPOINT + ")", e));
        }
        LOG.info("Opened s3 storage at {}: checkpoints in {}, savepoints in {}", settings.endpointText(),
                storage.namespace(), storage.savepointRoot());
    }

    private static void checkBucket(S3Client client, String bucket, S3Settings settings)
            throws CheckpointStorageException {
        try {
            client.headBucket(b -> b.bucket(bucket));
        } catch (S3Exception e) {
            String key = bucket.equals(settings.bucket()) ? S3Settings.BUCKET : StorageOptions.NAMESPACE + " / "
                    + StorageOptions.SAVEPOINT_PATH;
            if (e.statusCode() == 404) {
                throw new StorageRootNotFoundException("Cannot open s3 storage: the bucket does not exist at "
                        + settings.endpointText() + " (" + key + "=" + bucket + ")", e);
            }
            if (e.statusCode() == 403 || e.statusCode() == 400 || e.statusCode() == 401) {
                throw new CheckpointStorageException("Cannot open s3 storage: " + settings.endpointText()
                        + " refused the credentials of " + settings.credentialsSource() + " for bucket " + bucket
                        + " (HTTP " + e.statusCode() + "; check " + S3Settings.ACCESS_KEY + ", " + S3Settings.SECRET_KEY
                        + " or " + S3Settings.CREDENTIALS_PROVIDER + ")", e);
            }
            throw new CheckpointStorageException("Cannot open s3 storage: checking bucket " + bucket + " failed with HTTP "
                    + e.statusCode() + " (" + S3Settings.ENDPOINT + "=" + settings.endpointText() + ")", e);
        } catch (SdkClientException e) {
            throw new CheckpointStorageException("Cannot open s3 storage: the endpoint cannot be reached or signed for: "
                    + e.getMessage() + " (" + S3Settings.ENDPOINT + "=" + settings.endpointText() + ")", e);
        } catch (SdkException e) {
            throw new CheckpointStorageException("Cannot open s3 storage: checking bucket " + bucket + " failed: "
                    + e.getMessage() + " (" + S3Settings.ENDPOINT + "=" + settings.endpointText() + ")", e);
        }
    }

    /**
     * Checks, whatever {@code create-roots} says, that the store enforces {@code If-None-Match: *} on
     * {@code PutObject} and {@code CompleteMultipartUpload} in every bucket the storage uses (once per
     * endpoint and bucket in this JVM, see {@link ConditionalWriteProbe}); with
     * {@code s3.conditional-writes=unsupported} it checks nothing and warns of the whole risk.
     *
     * @throws CheckpointStorageException when the store accepts a second conditional create of one key, or
     *                                    the probe's requests fail
     */
    @Override
    protected void checkPrimitives(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage)
            throws CheckpointStorageException {
        S3Settings settings = S3Settings.from(options);
        if (!settings.conditionalWrites()) {
            LOG.warn(unsupportedWarning(settings.describe()));
            return;
        }
        S3FileSystem main = (S3FileSystem) fileSystem;
        List<ScopedRoot> roots = ScopedRoot.onePerScope(storage, r -> main.path(r).bucket());
        try (S3Client probeClient = settings.probeClient()) {
            S3FileSystem probe = new S3FileSystem(probeClient, settings.bucket(), settings.partSize(), true,
                    settings.endpointText());
            ConditionalWriteProbe.requireEnforced(probe, roots, settings);
        }
    }

    /** The warning of a storage opened with {@code s3.conditional-writes=unsupported}: the whole risk it takes. */
    static String unsupportedWarning(String where) {
        return "S3 storage at " + where + " runs without conditional writes (" + S3Settings.CONDITIONAL_WRITES
                + "=unsupported): create-if-absent is a check then a write, so two racing commits of one savepoint id"
                + " can both succeed (the last one's files stay, under the handle the first was given), and nothing"
                + " decides between a writer that decided to publish and a garbage collection, which could remove the"
                + " files of an attempt whose commit returned; garbage collection therefore leaves every attempt"
                + " without metadata in place and reports it as kept (delete such a savepoint explicitly once no"
                + " writer of it runs)";
    }
}
