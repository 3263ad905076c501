package io.keepsake.storage.spi.objectstore;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checks, once per endpoint and bucket (or container) per instance, that an object store enforces
 * {@code If-None-Match: *} on both requests that publish an object: a second single-request create
 * of a name must fail with {@link FileAlreadyExistsException}, and the backend's
 * {@link CommitCheck} must find a multi-block commit of a name that exists refused. The probe object
 * lives under a directory the storage is configured with, named {@value #PROBE_PREFIX}{@code <uuid>},
 * and is removed whatever the outcome. A store that passed is remembered; one that failed is probed
 * again at the next open. A backend keeps one instance for its JVM. Thread-safe.
 */
public final class CreateIfAbsentProbe {

    private static final Logger LOG = LoggerFactory.getLogger(CreateIfAbsentProbe.class);

    /** The name every probe object starts with. */
    public static final String PROBE_PREFIX = ".keepsake-conditional-write-probe-";

    /** What the probe writes, once with each request. */
    public static final byte[] CONTENT = "keepsake conditional-write probe\n".getBytes(StandardCharsets.UTF_8);

    /**
     * The words a backend's messages use.
     *
     * @param scheme        the storage's scheme in "Cannot open {scheme} storage"
     * @param service       what the server is called: "store", "service"
     * @param item          what an object is called: "key", "blob"
     * @param scope         what holds the objects: "bucket", "container"
     * @param createRequest the single request that creates an object
     * @param commitRequest the request that publishes an object of several blocks
     * @param option        the option that turns the check off
     * @param endpointKey   the option that names the store's endpoint
     */
    public record Wording(String scheme, String service, String item, String scope, String createRequest,
                          String commitRequest, String option, String endpointKey) {
    }

    /** The backend's half of the probe: a multi-block publication of a name that exists. */
    @FunctionalInterface
    public interface CommitCheck {
        /**
         * Publishes {@code probe}, which exists, through the multi-block request with
         * {@code If-None-Match: *}.
         *
         * @return true when the store refused it, false when it accepted it
         * @throws CheckpointStorageException when the store answers other than the refusal the backend expects
         * @throws IOException                when a request fails
         */
        boolean refusesCommitOfExisting(String probe) throws CheckpointStorageException, IOException;
    }

    private final Wording wording;
    private final Set<String> passed = ConcurrentHashMap.newKeySet();
    private final ConcurrentMap<String, Object> locks = new ConcurrentHashMap<>();
    private final AtomicInteger runs = new AtomicInteger();

    /** A probe whose messages use {@code wording}. */
    public CreateIfAbsentProbe(Wording wording) {
        this.wording = wording;
    }

    /** Forgets every probe that passed, so the next open of any bucket probes again: for tests. */
    public void forget() {
        passed.clear();
    }

    /** How many probes ran (not answered from the cache): for tests. */
    public int runs() {
        return runs.get();
    }

    /**
     * Probes the bucket (container) of every root unless a probe of the same endpoint and bucket
     * passed, each under its root.
     *
     * @param fs           a file system over a client of the store
     * @param roots        one root per bucket
     * @param endpointText the store's endpoint, as messages name it
     * @param commitCheck  the backend's check of the multi-block publication
     * @throws CheckpointStorageException when the store accepts a second conditional create of a name, answers
     *                                    the probe other than the backend expects, or a request of the probe fails
     */
    public void requireEnforced(StorageFileSystem fs, List<ScopedRoot> roots, String endpointText,
                                CommitCheck commitCheck) throws CheckpointStorageException {
        for (ScopedRoot root : roots) {
            try {
                requireEnforced(fs, root.directory(), root.scope(), endpointText, commitCheck);
            } catch (IOException e) {
                throw new CheckpointStorageException("Cannot open " + wording.scheme() + " storage at " + endpointText
                        + ": checking conditional writes under " + root.directory() + " failed: " + e.getMessage()
                        + " (" + wording.endpointKey() + ")", e);
            }
        }
    }

    /**
     * Probes {@code scopeName} (the bucket or container of {@code directory}) unless a probe of the
     * same endpoint and scope passed; a store that ignores the condition on either request is refused.
     *
     * @param fs           a file system over a client of the store
     * @param directory    where the probe object goes: a root the storage is configured with
     * @param scopeName    the bucket or container of {@code directory}
     * @param endpointText the store's endpoint, as messages name it
     * @param commitCheck  the backend's check of the multi-block publication
     * @throws CheckpointStorageException when the store accepts a second conditional create of a name, or
     *                                    answers the probe other than the backend expects
     * @throws IOException                when a request of the probe fails
     */
    public void requireEnforced(StorageFileSystem fs, String directory, String scopeName, String endpointText,
                                CommitCheck commitCheck) throws CheckpointStorageException, IOException {
        String cacheKey = endpointText + " " + scopeName;
        if (passed.contains(cacheKey)) {
            return;
        }
        synchronized (locks.computeIfAbsent(cacheKey, k -> new Object())) {
            if (passed.contains(cacheKey)) {
                return;
            }
            runs.incrementAndGet();
            String probe = fs.child(directory, PROBE_PREFIX + UUID.randomUUID());
            try {
                if (!probe(fs, probe, endpointText, commitCheck)) {
                    return;
                }
            } finally {
                try {
                    fs.delete(probe, false);
                } catch (IOException e) {
                    LOG.warn("Cannot remove the conditional-write probe {}: {}", probe, e.getMessage());
                }
            }
            passed.add(cacheKey);
            LOG.debug("{} enforces If-None-Match on {} and {} in {} {}", endpointText, wording.createRequest(),
                    wording.commitRequest(), wording.scope(), scopeName);
        }
    }

    /** Runs both checks on {@code probe}; false when the credentials may not write, so nothing was checked. */
    private boolean probe(StorageFileSystem fs, String probe, String endpointText, CommitCheck commitCheck)
            throws CheckpointStorageException, IOException {
        try {
            write(fs, probe);
        } catch (AccessDeniedException e) {
            LOG.info("Cannot check conditional writes at {}: the credentials may not write there, so this storage"
                    + " can only read ({})", endpointText, probe);
            return false;
        }
        try {
            write(fs, probe);
            throw refused(endpointText, wording.createRequest(), probe);
        } catch (FileAlreadyExistsException expected) {
            // the second conditional create was refused
        }
        if (commitCheck.refusesCommitOfExisting(probe)) {
            return true;
        }
        throw refused(endpointText, wording.commitRequest(), probe);
    }

    private CheckpointStorageException refused(String endpointText, String request, String probe) {
        return new CheckpointStorageException("Cannot open " + wording.scheme() + " storage: the "
                + wording.service() + " at " + endpointText + " accepted a " + request + " with If-None-Match: * of a "
                + wording.item() + " that exists, so create-if-absent is not exclusive there: two commits of one"
                + " savepoint id could both win, and a garbage collection could remove the files of a savepoint"
                + " whose commit returned; use a " + wording.service() + " that enforces conditional writes on "
                + wording.createRequest() + " and " + wording.commitRequest() + ", or set " + wording.option()
                + "=unsupported to accept that risk (" + probe + ")");
    }

    private static void write(StorageFileSystem fs, String path) throws IOException {
        try (SyncableOutputStream out = fs.create(path, true)) {
            out.write(CONTENT);
            out.sync();
        }
    }
}
