package io.keepsake.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.azure.internal.AzureSettings;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checks, once per endpoint and container in this JVM, that the service enforces
 * {@code If-None-Match: *} on both requests that publish a blob: a second Put Blob of a name must
 * be refused, and so must a Put Block List of a name that exists. The probe blob lives under a
 * directory the storage is configured with, named {@value #PROBE_PREFIX}{@code <uuid>}, and is
 * removed whatever the outcome. A service that passed is remembered; one that failed is probed
 * again at the next open. Thread-safe.
 */
final class ConditionalWriteProbe {

    private static final Logger LOG = LoggerFactory.getLogger(ConditionalWriteProbe.class);

    /** The name every probe blob starts with. */
    static final String PROBE_PREFIX = ".keepsake-conditional-write-probe-";

    private static final byte[] CONTENT = "keepsake conditional-write probe\n".getBytes(StandardCharsets.UTF_8);
    private static final Set<String> PASSED = ConcurrentHashMap.newKeySet();
    private static final ConcurrentMap<String, Object> LOCKS = new ConcurrentHashMap<>();
    private static final AtomicInteger RUNS = new AtomicInteger();

    private ConditionalWriteProbe() {
    }

    /** Forgets every probe that passed: for tests. */
    static void forget() {
        PASSED.clear();
    }

    /** How many probes ran in this JVM (not answered from the cache): for tests. */
    static int runs() {
        return RUNS.get();
    }

    /**
     * Probes the container of {@code directory} unless a probe of the same endpoint and container
     * passed in this JVM; a service that ignores the condition on either request is refused.
     *
     * @throws CheckpointStorageException when the service accepts a second conditional create of a name
     * @throws IOException                when a request of the probe fails
     */
    static void requireEnforced(AzureFileSystem fs, String directory, AzureSettings settings)
            throws CheckpointStorageException, IOException {
        String container = fs.path(directory).container();
        String cacheKey = settings.endpointText() + " " + container;
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
            LOG.debug("{} enforces If-None-Match on Put Blob and Put Block List in container {}",
                    settings.endpointText(), container);
        }
    }

    /** Runs both checks on {@code probe}; false when the credentials may not write, so nothing was checked. */
    private static boolean probe(AzureFileSystem fs, String probe, AzureSettings settings)
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
            throw refused(settings, "Put Blob", probe);
        } catch (FileAlreadyExistsException expected) {
            // the second conditional Put Blob was refused
        }
        BlockBlobClient blob = fs.blockBlob(fs.path(probe));
        String id = Base64.getEncoder().encodeToString("probe-block".getBytes(StandardCharsets.US_ASCII));
        fs.call(probe, "stage a block of", () -> {
            blob.stageBlock(id, BinaryData.fromBytes(CONTENT));
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
        throw refused(settings, "Put Block List", probe);
    }

    private static CheckpointStorageException refused(AzureSettings settings, String request, String probe) {
        return new CheckpointStorageException("Cannot open azure storage: the service at " + settings.endpointText()
                + " accepted a " + request + " with If-None-Match: * of a blob that exists, so create-if-absent is"
                + " not exclusive there: two commits of one savepoint id could both win, and a garbage collection"
                + " could remove the files of a savepoint whose commit returned; use a service that enforces"
                + " conditional writes on Put Blob and Put Block List, or set " + AzureSettings.CONDITIONAL_WRITES
                + "=unsupported to accept that risk (" + probe + ")");
    }

    private static void write(AzureFileSystem fs, String path) throws IOException {
        try (SyncableOutputStream out = fs.create(path, true)) {
            out.write(CONTENT);
            out.sync();
        }
    }
}
