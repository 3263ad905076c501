package io.keepsake.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlobInputStreamOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.objectstore.ObjectStoreFileSystem;
import io.keepsake.storage.spi.objectstore.StoredObject;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The file-system primitives on Azure Blob Storage (block blobs), over one Azure SDK client. Paths
 * are {@code azure://container/name} ({@link AzurePath} also reads Hadoop's {@code abfs[s]://} and
 * {@code wasb[s]://} forms of the same account); "directories" are name prefixes, and
 * {@link #mkdirs} leaves an empty marker blob {@code name/} so that an empty directory exists.
 *
 * <p>Writes: a created file is buffered up to one block ({@link #blockSize()}); a small file is one
 * Put Blob, a larger one staged blocks (Put Block) of that many bytes, a whole multiple of the
 * savepoint chunk size, then one Put Block List. A created file appears, whole, when its stream's
 * {@code sync()} returns ({@link FsCapability#ATOMIC_FILE_CREATE}); a stream closed without it
 * leaves at most uncommitted blocks, which no listing or stat shows and which are never part of a
 * blob until a Put Block List names them. A must-create sends {@code If-None-Match: *} on the
 * Put Blob or the Put Block List; a refusal is {@link FileAlreadyExistsException} unless the blob
 * there carries this stream's write id (a retried request whose response was lost). There is no
 * rename: {@link FsCapability#ATOMIC_DIRECTORY_RENAME} is not claimed, so the protocol publishes
 * savepoints by creating {@code _metadata.ser} last. Listing is a flat List Blobs by prefix,
 * paginated; a directory's modification time is that of the newest blob below it. Thread-safe;
 * the client needs no closing.
 *
 * <p>The listings, stats and deletes are {@link AzureListing}'s, the writes {@link AzureOutputStream}'s.
 */
public final class AzureFileSystem extends ObjectStoreFileSystem<AzurePath> {

    private static final Logger LOG = LoggerFactory.getLogger(AzureFileSystem.class);

    /** The metadata name that carries a stream's write id, so that a retried create recognises its own blob. */
    static final String WRITE_ID = "keepsake_write_id";

    private final BlobServiceClient client;
    private final String account;
    private final String defaultContainer;
    private final int blockSize;
    private final AzureListing listing = new AzureListing(this);

    /**
     * A file system over {@code client}.
     *
     * @param client            the client of the account's Blob service
     * @param account           the account, which Hadoop-style paths must name
     * @param defaultContainer  the container of absolute names ({@code /a/b}), or null to refuse them
     * @param blockSize         bytes per staged block, a positive whole multiple of {@link ChunkDigests#CHUNK_SIZE}
     * @param conditionalWrites true to create with {@code If-None-Match: *}; false (only when the
     *                          service ignores it and the user opted in) checks before writing
     * @param description       where the service is (its endpoint), for messages
     * @throws InvalidStorageArgumentException when the block size is not a whole number of chunks
     */
    public AzureFileSystem(BlobServiceClient client, String account, String defaultContainer, int blockSize,
                           boolean conditionalWrites, String description) {
        super(new StoreWords("Azure", "Azure Blob Storage", "container", "blob"), RuntimeException.class,
                conditionalWrites, description);
        if (blockSize < ChunkDigests.CHUNK_SIZE || blockSize % ChunkDigests.CHUNK_SIZE != 0) {
            throw new InvalidStorageArgumentException("Cannot configure azure storage: the block size must be a whole"
                    + " positive multiple of the savepoint chunk size, " + ChunkDigests.CHUNK_SIZE + " bytes, so that"
                    + " every block of a payload holds whole chunks (" + blockSize + ")");
        }
        this.client = client;
        this.account = account;
        this.defaultContainer = defaultContainer;
        this.blockSize = blockSize;
    }

    /** Bytes per staged block; files up to this size are one Put Blob. */
    public int blockSize() {
        return blockSize;
    }

    String description() {
        return description;
    }

    boolean conditionalWrites() {
        return conditionalWrites;
    }

    @Override
    protected AzurePath path(String path) {
        return AzurePath.parse(path, account, defaultContainer);
    }

    BlobClient blob(AzurePath p) {
        return client.getBlobContainerClient(p.container()).getBlobClient(p.name());
    }

    BlockBlobClient blockBlob(AzurePath p) {
        return blob(p).getBlockBlobClient();
    }

    /** The client this file system calls. */
    BlobServiceClient client() {
        return client;
    }

    // ----------------------------------------------------------------- writes

    @Override
    protected SyncableOutputStream newStream(AzurePath file, String path, boolean conditional) {
        return new AzureOutputStream(this, file, path, conditional);
    }

    @Override
    protected Optional<StoredObject> object(AzurePath file) throws IOException {
        return properties(file).map(props -> new StoredObject(file.name(), props.getBlobSize(),
                AzureListing.millis(props.getLastModified())));
    }

    @Override
    protected Optional<StoredObject> firstBelow(AzurePath directory, String path) throws IOException {
        return listing.firstBelow(directory, directory.directoryPrefix(), 1, path).stream().findFirst();
    }

    @Override
    protected void putDirectoryMarker(AzurePath directory, String path) throws IOException {
        AzurePath marker = new AzurePath(directory.container(), directory.directoryPrefix());
        call(path, "create directory marker", () -> blockBlob(marker).upload(BinaryData.fromBytes(new byte[0]), true));
    }

    /** True when the blob at {@code p} was created by the stream with {@code writeId}. */
    boolean isOurs(AzurePath p, String writeId) throws IOException {
        Optional<BlobProperties> props = properties(p);
        return props.isPresent() && props.get().getMetadata() != null
                && writeId.equals(props.get().getMetadata().get(WRITE_ID));
    }

    // ----------------------------------------------------------------- reads

    /** One ranged-download stream of the whole blob, in requests of one block each. */
    @Override
    public InputStream open(String path) throws IOException {
        AzurePath p = requireFile(path);
        try {
            return blob(p).openInputStream(new BlobInputStreamOptions()
                    .setBlockSize(blockSize));
        } catch (RuntimeException e) {
            if (isNoSuchObject(e)) {
                throw notAFile(path);
            }
            throw translate(path, "open", e);
        }
    }

    // ----------------------------------------------------------------- listings

    @Override
    protected List<StoredObject> listBelow(AzurePath directory, String path) throws IOException {
        return listing.listAll(directory, directory.directoryPrefix(), path);
    }

    /** The properties of the blob at {@code p}, empty when there is none (a missing container is an error). */
    Optional<BlobProperties> properties(AzurePath p) throws IOException {
        return ifExists(p, () -> blob(p).getProperties());
    }

    /** A 404 of anything but a missing container. */
    @Override
    protected boolean isNoSuchObject(RuntimeException error) {
        return error instanceof BlobStorageException e && e.getStatusCode() == 404
                && e.getErrorCode() != BlobErrorCode.CONTAINER_NOT_FOUND;
    }

    // ----------------------------------------------------------------- deletes and renames

    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        return listing.delete(path, recursive);
    }

    /** Reads the blob and creates the target if absent, then deletes the source. */
    @Override
    protected void moveObject(AzurePath from, AzurePath to, String source, String target) throws IOException {
        try (InputStream in = open(source); SyncableOutputStream out = create(target, true)) {
            in.transferTo(out);
            out.sync();
        }
        delete(source, false);
    }

    // ----------------------------------------------------------------- plumbing

    /** An SDK error as an IOException naming the path, the operation and the service. */
    @Override
    protected IOException translate(String path, String what, RuntimeException e) {
        if (e instanceof BlobStorageException b) {
            if (b.getStatusCode() != 403 && b.getErrorCode() == BlobErrorCode.CONTAINER_NOT_FOUND) {
                return withCause(new NoSuchFileException(path, null, "the Azure container '" + path(path).container()
                        + "' does not exist (" + description + ")"), e);
            }
            return answered(path, what, b.getStatusCode(), Objects.toString(b.getErrorCode(), null), e);
        }
        if (e instanceof UncheckedIOException u) {
            return unanswered(path, what, u.getCause().getMessage(), u.getCause());
        }
        LOG.debug("Azure call failed: {} {}", what, path, e);
        return unanswered(path, what, e.getMessage(), e);
    }
}
