package io.keepsake.storage.azure;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.models.BlobStorageException;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.StorageRootNotFoundException;
import io.keepsake.storage.azure.internal.AzureSettings;
import io.keepsake.storage.spi.FileSystemStorageFactory;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.StorageRoots;
import io.keepsake.storage.spi.objectstore.ScopedRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.ServiceLoader;

/**
 * Checkpoints and savepoints on Azure Blob Storage (factory id {@code azure}): a
 * {@link KeepsakeStorage} over {@link AzureFileSystem}, configured by:
 * <ul>
 *   <li>{@code namespace} (required) and {@code savepoint.path}: {@code azure://container/prefix},
 *       or Hadoop's {@code abfs[s]://container@account.dfs.core.windows.net/prefix} or
 *       {@code wasb[s]://container@account.blob.core.windows.net/prefix} of the configured account,
 *       or {@code /prefix} in {@code azure.container};</li>
 *   <li>{@code storage.type}: {@code azure}, {@code abfs}, {@code abfss}, {@code wasb} or {@code wasbs};</li>
 *   <li>{@code azure.account.name} (required), {@code azure.endpoint} (default
 *       {@code https://<account>.blob.core.windows.net}), {@code azure.container};</li>
 *   <li>credentials: {@code azure.account.key}, {@code azure.sas.token}, Hadoop's
 *       {@code fs.azure.account.key.<account>.dfs.core.windows.net} (or {@code .blob.}) and
 *       {@code fs.azure.sas.*} keys of the same account, else {@code DefaultAzureCredential};
 *       {@code azure.credential} ({@code account-key}, {@code sas}, {@code default}) picks one;</li>
 *   <li>{@code azure.block.size}, {@code azure.try.timeout}, {@code azure.max.tries};</li>
 *   <li>{@code azure.conditional-writes}: {@code required} (the default) or {@code unsupported}.</li>
 * </ul>
 * Before returning, the factory checks every container it will use through a client that gives up
 * in seconds (a missing container, refused credentials or an unreachable endpoint fail here,
 * naming the key and the endpoint) and creates the root markers; then, whatever
 * {@code create-roots} says, it checks once per endpoint and container in this JVM that the service
 * refuses a second conditional create of one blob by Put Blob and by Put Block List; a service
 * that accepts either is refused unless {@code azure.conditional-writes=unsupported}. Thread-safe.
 */
public final class AzureStorageFactory extends FileSystemStorageFactory {

    private static final Logger LOG = LoggerFactory.getLogger(AzureStorageFactory.class);

    /** The id users put in their configuration. */
    public static final String IDENTIFIER = "azure";

    /** The factory {@link ServiceLoader} instantiates. */
    public AzureStorageFactory() {
        super(IDENTIFIER, AzureSettings.KEYS, List.of(AzureSettings.HADOOP_PREFIX), AzureSettings.STORAGE_TYPES);
    }

    @Override
    protected StorageFileSystem openFileSystem(StorageOptions options) throws CheckpointStorageException {
        AzureSettings settings = AzureSettings.from(options);
        AzureFileSystem fs = fileSystem(settings, settings.client());
        StorageRoots.requireWellFormed(fs, options, "storage root|Azure path");
        return fs;
    }

    private static AzureFileSystem fileSystem(AzureSettings settings, BlobServiceClient client) {
        return new AzureFileSystem(client, settings.account(), settings.container(), settings.blockSize(),
                settings.conditionalWrites(), settings.endpointText());
    }

    /**
     * Checks every container through a short-timeout client and creates the root markers.
     *
     * @throws CheckpointStorageException when a container is missing, the credentials are refused or the
     *                                    endpoint cannot be reached
     */
    @Override
    protected void prepareRoots(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage)
            throws CheckpointStorageException {
        AzureSettings settings = AzureSettings.from(options);
        AzureFileSystem probe = fileSystem(settings, settings.probeClient());
        for (ScopedRoot root : ScopedRoot.onePerScope(storage, r -> probe.path(r).container())) {
            checkContainer(probe, root.scope(), root.key(), settings);
        }
        StorageRoots.create(probe, storage, (root, e) -> new CheckpointStorageException("Cannot open azure storage at "
                + settings.endpointText() + ": creating " + root + " failed: " + e.getMessage() + " ("
                + AzureSettings.ENDPOINT + ")", e));
        LOG.info("Opened azure storage at {}: checkpoints in {}, savepoints in {}", settings.endpointText(),
                storage.namespace(), storage.savepointRoot());
    }

    private static void checkContainer(AzureFileSystem fs, String container, String key, AzureSettings settings)
            throws CheckpointStorageException {
        try {
            if (!fs.client().getBlobContainerClient(container).exists()) {
                throw new StorageRootNotFoundException("Cannot open azure storage: the container '" + container
                        + "' does not exist at " + settings.endpointText() + " (" + key + ")");
            }
        } catch (BlobStorageException e) {
            if (e.getStatusCode() == 403 || e.getStatusCode() == 401) {
                throw new CheckpointStorageException("Cannot open azure storage: " + settings.endpointText()
                        + " refused the credentials of " + settings.credentialSource() + " for container " + container
                        + " (HTTP " + e.getStatusCode() + " " + e.getErrorCode() + "; check " + AzureSettings.ACCOUNT_KEY
                        + ", " + AzureSettings.SAS_TOKEN + " or " + AzureSettings.CREDENTIAL + ")", e);
            }
            throw new CheckpointStorageException("Cannot open azure storage: checking container " + container
                    + " failed with HTTP " + e.getStatusCode() + " (" + AzureSettings.ENDPOINT + "="
                    + settings.endpointText() + ")", e);
        } catch (RuntimeException e) {
            throw new CheckpointStorageException("Cannot open azure storage: the endpoint cannot be reached or the"
                    + " credential cannot sign: " + e.getMessage() + " (" + AzureSettings.ENDPOINT + "="
                    + settings.endpointText() + ", " + settings.credentialSource() + ")", e);
        }
    }

    /**
     * Checks, whatever {@code create-roots} says, that the service enforces {@code If-None-Match: *}
     * on Put Blob and Put Block List in every container the storage uses; with
     * {@code azure.conditional-writes=unsupported} it checks nothing and warns of the risk.
     *
     * @throws CheckpointStorageException when the service accepts a second conditional create, or the probe fails
     */
    @Override
    protected void checkPrimitives(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage)
            throws CheckpointStorageException {
        AzureSettings settings = AzureSettings.from(options);
        if (!settings.conditionalWrites()) {
            LOG.warn(unsupportedWarning(settings.endpointText()));
            return;
        }
        AzureFileSystem probe = fileSystem(settings, settings.probeClient());
        ConditionalWriteProbe.requireEnforced(probe, ScopedRoot.onePerScope(storage, r -> probe.path(r).container()),
                settings);
    }

    /** The warning of a storage opened with {@code azure.conditional-writes=unsupported}. */
    static String unsupportedWarning(String where) {
        return "Azure storage at " + where + " runs without conditional writes (" + AzureSettings.CONDITIONAL_WRITES
                + "=unsupported): create-if-absent is a check then a write, so two racing commits of one savepoint id"
                + " can both succeed, and nothing decides between a writer that decided to publish and a garbage"
                + " collection; garbage collection therefore leaves every attempt without metadata in place";
    }
}
