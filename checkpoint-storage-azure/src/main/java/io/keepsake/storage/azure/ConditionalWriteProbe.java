package io.keepsake.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.azure.internal.AzureSettings;
import io.keepsake.storage.spi.objectstore.CreateIfAbsentProbe;
import io.keepsake.storage.spi.objectstore.ScopedRoot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * Checks, once per endpoint and container in this JVM, that the service enforces
 * {@code If-None-Match: *} on both requests that publish a blob: a second Put Blob of a name must
 * be refused, and so must a Put Block List of a name that exists. The probe blob lives under a
 * directory the storage is configured with and is removed whatever the outcome;
 * {@link CreateIfAbsentProbe} runs the checks and remembers the services that passed. Thread-safe.
 */
final class ConditionalWriteProbe {

    /** The name every probe blob starts with. */
    static final String PROBE_PREFIX = CreateIfAbsentProbe.PROBE_PREFIX;

    private static final CreateIfAbsentProbe PROBE = new CreateIfAbsentProbe(new CreateIfAbsentProbe.Wording(
            "azure", "service", "blob", "container", "Put Blob", "Put Block List", AzureSettings.CONDITIONAL_WRITES,
            AzureSettings.ENDPOINT));

    private ConditionalWriteProbe() {
    }

    /** Forgets every probe that passed: for tests. */
    static void forget() {
        PROBE.forget();
    }

    /** How many probes ran in this JVM (not answered from the cache): for tests. */
    static int runs() {
        return PROBE.runs();
    }

    /**
     * Probes the container of every root unless a probe of the same endpoint and container passed
     * in this JVM; a service that ignores the condition on either request is refused.
     *
     * @throws CheckpointStorageException when the service accepts a second conditional create of a name, or
     *                                    a request of the probe fails
     */
    static void requireEnforced(AzureFileSystem fs, List<ScopedRoot> roots, AzureSettings settings)
            throws CheckpointStorageException {
        PROBE.requireEnforced(fs, roots, settings.endpointText(), probe -> commitRefused(fs, probe, settings));
    }

    /** Stages a block of {@code probe}, which exists, and commits it conditionally; true when refused. */
    private static boolean commitRefused(AzureFileSystem fs, String probe, AzureSettings settings)
            throws CheckpointStorageException, IOException {
        BlockBlobClient blob = fs.blockBlob(fs.path(probe));
        String id = Base64.getEncoder().encodeToString("probe-block".getBytes(StandardCharsets.US_ASCII));
        fs.call(probe, "stage a block of", () -> {
            blob.stageBlock(id, BinaryData.fromBytes(CreateIfAbsentProbe.CONTENT));
            return null;
        });
        try {
            blob.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(List.of(id))
                    .setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*")), null, null);
        } catch (BlobStorageException e) {
            if (e.getStatusCode() == 412 || e.getErrorCode() == BlobErrorCode.BLOB_ALREADY_EXISTS) {
                return true;
            }
            throw new CheckpointStorageException("Cannot open azure storage: the service at " + settings.endpointText()
                    + " answered HTTP " + e.getStatusCode() + " (" + e.getErrorCode() + ") to a Put Block List with"
                    + " If-None-Match: * of a blob that exists, where Azure refuses it with 409 or 412; Keepsake"
                    + " publishes every file larger than one block that way (" + probe + ")", e);
        } catch (RuntimeException e) {
            throw fs.translate(probe, "commit the block list of", e);
        }
        return false;
    }
}
