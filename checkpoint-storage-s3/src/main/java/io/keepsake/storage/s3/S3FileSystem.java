package io.keepsake.storage.s3;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.PendingUpload;
import io.keepsake.storage.spi.objectstore.ObjectStoreFileSystem;
import io.keepsake.storage.spi.objectstore.StoredObject;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Optional;

/**
 * The file-system primitives on S3 (or any store speaking its API with conditional writes), over
 * one AWS SDK v2 client. Paths are {@code s3://bucket/key} ({@link #normalizeRoot} also takes
 * {@code s3a://} and absolute keys in the default bucket); "directories" are key prefixes, and
 * {@link #mkdirs} leaves an empty marker object {@code key/} so that an empty directory exists.
 *
 * <p>Writes: a created file is buffered up to one part ({@link #partSize()}); a small file is one
 * {@code PutObject}, a larger one a multipart upload with that many bytes per part, whatever its
 * size. The part size is a whole multiple of the savepoint chunk size, so every part of a
 * format-version-2 payload starts and ends on a chunk boundary (only the last part is shorter).
 * Reads of a large payload ({@link #openWhole}) fetch ranges of whole chunks several at once. A
 * created file appears, whole, when its stream's {@code sync()} returns
 * ({@link FsCapability#ATOMIC_FILE_CREATE}); a stream closed without it, or whose upload failed, is
 * aborted on the server and leaves nothing visible. A must-create is conditional
 * ({@code If-None-Match: *} on the PUT or on {@code CompleteMultipartUpload}); a 412 is
 * {@link FileAlreadyExistsException} unless the object there carries this stream's write id (the
 * SDK retried a request whose response was lost), and a 409 {@code ConditionalRequestConflict} is
 * retried. There is no rename: {@link FsCapability#ATOMIC_DIRECTORY_RENAME} is not claimed, so the
 * protocol publishes savepoints by creating {@code _metadata.ser} last. Deletes of a tree are
 * batched ({@code DeleteObjects}). Listing is {@code ListObjectsV2}, paginated; a directory's
 * modification time is that of the newest object below it. Thread-safe; the client is closed
 * with this file system.
 *
 * <p>The reads are {@link S3Reads}', the listings and stats {@link S3Listing}'s, the deletes and
 * the rename {@link S3Deletes}'; the writes are {@link S3OutputStream}'s.
 */
public final class S3FileSystem extends ObjectStoreFileSystem<S3Path> {

    private static final Logger LOG = LoggerFactory.getLogger(S3FileSystem.class);

    /** The smallest part S3 accepts (except the last one). */
    public static final int MIN_PART_SIZE = 5 << 20;
    /** The part size used unless configured: 8 MiB. */
    public static final int DEFAULT_PART_SIZE = 8 << 20;

    /** The user-metadata key that carries a stream's write id, so that a retried create recognises its own object. */
    static final String WRITE_ID = "keepsake-write-id";
    /** The user-metadata key that carries a created object's SHA-256 (hex). */
    static final String SHA256 = "keepsake-sha256";

    /** Bytes per ranged read of a large file, before rounding up to a whole multiple of its chunks: 8 MiB. */
    public static final int READ_RANGE_BYTES = 8 << 20;
    /** Ranges of one stream held at a time, the one being read included. */
    public static final int READ_RANGES_IN_FLIGHT = 4;

    private static final int CONFLICT_RETRIES = 8;

    private final S3Client client;
    private final String defaultBucket;
    private final int partSize;
    private final S3Reads reads = new S3Reads(this);
    private final S3Listing listing = new S3Listing(this);
    private final S3Deletes deletes = new S3Deletes(this, listing);

    /**
     * A file system over {@code client}.
     *
     * @param client            the client; closed with this file system
     * @param defaultBucket     the bucket of absolute keys ({@code /a/b}), or null to accept only {@code s3://} paths
     * @param partSize          bytes per multipart part, at least {@link #MIN_PART_SIZE} and a whole multiple of
     *                          {@link ChunkDigests#CHUNK_SIZE}, so that a payload's parts hold whole chunks
     * @param conditionalWrites true to create with {@code If-None-Match: *}; false (only when the
     *                          store ignores it and the user opted in) checks before writing, which
     *                          two racing creators can both pass
     * @param description       where the store is (its endpoint), for messages
     * @throws InvalidStorageArgumentException when the part size is out of range
     */
    public S3FileSystem(S3Client client, String defaultBucket, int partSize, boolean conditionalWrites,
                        String description) {
        super(new StoreWords("S3", "S3", "bucket", "key"), SdkException.class, conditionalWrites, description);
        if (partSize < MIN_PART_SIZE) {
            throw new InvalidStorageArgumentException("Cannot configure S3 storage: the part size must be at least "
                    + MIN_PART_SIZE + " bytes (" + partSize + ")");
        }
        if (partSize % ChunkDigests.CHUNK_SIZE != 0) {
            throw new InvalidStorageArgumentException("Cannot configure S3 storage: the part size must be a whole"
                    + " multiple of the savepoint chunk size, " + ChunkDigests.CHUNK_SIZE + " bytes, so that every part"
                    + " of a payload holds whole chunks (" + partSize + ")");
        }
        this.client = client;
        this.defaultBucket = defaultBucket;
        this.partSize = partSize;
    }

    /** The client this file system calls. */
    S3Client client() {
        return client;
    }

    /** Bytes per multipart part; files up to this size are one PUT. */
    public int partSize() {
        return partSize;
    }

    /** Where the store is, for messages. */
    String description() {
        return description;
    }

    @Override
    protected S3Path path(String path) {
        return S3Path.parse(path, defaultBucket);
    }

    // ----------------------------------------------------------------- writes

    @Override
    protected SyncableOutputStream newStream(S3Path file, String path, boolean conditional) {
        return new S3OutputStream(this, file, path, conditional);
    }

    @Override
    protected Optional<StoredObject> object(S3Path file) throws IOException {
        return headObject(file).map(head -> new StoredObject(file.key(), head.contentLength(),
                S3Listing.millis(head.lastModified())));
    }

    @Override
    protected Optional<StoredObject> firstBelow(S3Path directory, String path) throws IOException {
        return listing.firstBelow(directory, path);
    }

    /** One {@code ListObjectsV2} of at most one key; a missing bucket is an error of the request, not a missing parent. */
    @Override
    protected boolean anyBelow(S3Path directory, String path) throws IOException {
        ListObjectsV2Response page = call(path, "check the parent of", () -> client.listObjectsV2(b -> b
                .bucket(directory.bucket()).prefix(directory.directoryPrefix()).maxKeys(1)));
        return !page.contents().isEmpty();
    }

    @Override
    protected void putDirectoryMarker(S3Path directory, String path) throws IOException {
        call(path, "create directory marker", () -> client.putObject(b -> b.bucket(directory.bucket())
                .key(directory.directoryPrefix()), RequestBody.empty()));
    }

    /** True when the create of {@code p} by the stream with {@code writeId} is what is there. */
    boolean isOurs(S3Path p, String writeId) throws IOException {
        Optional<HeadObjectResponse> head = headObject(p);
        return head.isPresent() && writeId.equals(head.get().metadata().get(WRITE_ID));
    }

    boolean conditionalWrites() {
        return conditionalWrites;
    }

    /** How many times a 409 ConditionalRequestConflict is retried. */
    static int conflictRetries() {
        return CONFLICT_RETRIES;
    }

    // ----------------------------------------------------------------- reads

    @Override
    public InputStream open(String path) throws IOException {
        return reads.open(requireFile(path), path);
    }

    /**
     * Reads a file expected to be larger than one range ({@link #READ_RANGE_BYTES}, rounded up to
     * a whole multiple of {@code alignment}) as several ranged {@code GetObject}s at once, at most
     * {@link #READ_RANGES_IN_FLIGHT} ranges held per stream; a smaller file is one plain
     * {@code GetObject} ({@link S3Reads#openWhole}).
     */
    @Override
    public InputStream openWhole(String path, long expectedLength, int alignment) throws IOException {
        if (expectedLength < 0 || alignment < 1) {
            throw new InvalidStorageArgumentException("Cannot open " + path + " in ranges: expected length "
                    + expectedLength + " and alignment " + alignment + " must be at least 0 and 1");
        }
        return reads.openWhole(requireFile(path), path, expectedLength, alignment);
    }

    /** How many ranges are being fetched right now, by every stream of this file system. */
    int rangeFetchesRunning() {
        return reads.rangeFetchesRunning();
    }

    /**
     * Sets the bytes per range (before rounding up to the caller's alignment) and the ranges
     * held per stream, for streams opened from now on: for tests that read small payloads in
     * several ranges.
     */
    void readRanges(int rangeBytes, int inFlight) {
        reads.readRanges(rangeBytes, inFlight);
    }

    // ----------------------------------------------------------------- listings

    @Override
    protected List<StoredObject> listBelow(S3Path directory, String path) throws IOException {
        return listing.listAll(directory, directory.directoryPrefix(), path);
    }

    /** The object at {@code p}, empty when there is none (a missing bucket is an error). */
    Optional<HeadObjectResponse> headObject(S3Path p) throws IOException {
        return ifExists(p, () -> client.headObject(b -> b.bucket(p.bucket()).key(p.key())));
    }

    /** A 404 of anything but a missing bucket. */
    @Override
    protected boolean isNoSuchObject(RuntimeException error) {
        return error instanceof S3Exception e && e.statusCode() == 404 && !"NoSuchBucket".equals(code(e));
    }

    // ----------------------------------------------------------------- deletes and renames

    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        return deletes.delete(path, recursive);
    }

    /** A {@code CopyObject} then a {@code DeleteObject}. */
    @Override
    protected void moveObject(S3Path from, S3Path to, String source, String target) throws IOException {
        deletes.move(from, to, source);
    }

    // ----------------------------------------------------------------- multipart uploads

    /** The multipart uploads begun below {@code directory} and neither completed nor aborted ({@code ListMultipartUploads}). */
    @Override
    public List<PendingUpload> pendingUploads(String directory) throws IOException {
        return listing.pendingUploads(directory);
    }

    /** Aborts one multipart upload; fine when it is already gone. */
    @Override
    public void abortUpload(PendingUpload upload) throws IOException {
        deletes.abortUpload(upload);
    }

    // ----------------------------------------------------------------- plumbing

    @Override
    public void close() {
        reads.close();
        client.close();
    }

    /** The S3 error code of an exception, or null. */
    static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    /** An SDK error as an IOException naming the path, the operation and the store. */
    @Override
    protected IOException translate(String path, String what, RuntimeException e) {
        if (e instanceof S3Exception s3) {
            return answered(path, what, s3.statusCode(), code(s3), e);
        }
        LOG.debug("S3 call failed: {} {}", what, path, e);
        return unanswered(path, what, e.getMessage(), e);
    }
}
