package io.keepsake.storage.s3;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.PendingUpload;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
 * Reads of a large payload ({@link #openWhole}) fetch ranges of whole chunks several at once. It appears, whole, when its stream's {@code sync()} returns
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
 */
public final class S3FileSystem implements StorageFileSystem {

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

    private static final int DELETE_BATCH = 1000;
    private static final int CONFLICT_RETRIES = 8;

    private final S3Client client;
    private final String defaultBucket;
    private final int partSize;
    private final boolean conditionalWrites;
    private final String description;
    private volatile int readRangeBytes = READ_RANGE_BYTES;
    private volatile int readRangesInFlight = READ_RANGES_IN_FLIGHT;
    private final AtomicInteger rangeFetchesRunning = new AtomicInteger();
    private ExecutorService rangeReaders;
    private boolean rangeReadersClosed;

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
        this.conditionalWrites = conditionalWrites;
        this.description = description;
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

    S3Path path(String path) {
        return S3Path.parse(path, defaultBucket);
    }

    // ----------------------------------------------------------------- writes

    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        S3Path p = requireFileKey(path);
        if (mustCreate && !conditionalWrites && headObject(p).isPresent()) {
            throw new FileAlreadyExistsException(path);
        }
        return new S3OutputStream(this, p, path, mustCreate && conditionalWrites);
    }

    @Override
    public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        S3Path p = requireFileKey(path);
        int slash = p.key().lastIndexOf('/');
        S3Path parent = new S3Path(p.bucket(), slash < 0 ? "" : p.key().substring(0, slash));
        if (!parent.key().isEmpty()) {
            ListObjectsV2Response page = call(path, "check the parent of", () -> client.listObjectsV2(b -> b
                    .bucket(parent.bucket()).prefix(parent.directoryPrefix()).maxKeys(1)));
            if (page.contents().isEmpty()) {
                throw new NoSuchFileException(path, parent.toString(), "the parent directory is missing");
            }
        }
        return create(path, mustCreate);
    }

    @Override
    public void mkdirs(String path) throws IOException {
        S3Path p = path(path);
        if (p.key().isEmpty()) {
            return;
        }
        Optional<HeadObjectResponse> file = headObject(p);
        if (file.isPresent()) {
            throw new FileAlreadyExistsException(path, null, "a file is there, not a directory");
        }
        call(path, "create directory marker", () -> client.putObject(b -> b.bucket(p.bucket()).key(p.directoryPrefix()),
                RequestBody.empty()));
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
        return getObject(requireFileKey(path), path, null);
    }

    /**
     * Reads a file expected to be larger than one range ({@link #READ_RANGE_BYTES}, rounded up to
     * a whole multiple of {@code alignment}) as several ranged {@code GetObject}s at once, at most
     * {@link #READ_RANGES_IN_FLIGHT} ranges held per stream, the one being read included, so a
     * stream holds at most 32 MiB of ranges in memory (with chunks larger than 16 MiB, two ranges
     * of one chunk each). The first range
     * is asked for here; its response gives the object's length and ETag, and the later ranges ask
     * {@code If-Match} on it. A file expected to fit in one range is one plain {@code GetObject},
     * as is an object the first answer shows to fit in it (or a store that answers a range with
     * the whole object).
     */
    @Override
    public InputStream openWhole(String path, long expectedLength, int alignment) throws IOException {
        if (expectedLength < 0 || alignment < 1) {
            throw new InvalidStorageArgumentException("Cannot open " + path + " in ranges: expected length "
                    + expectedLength + " and alignment " + alignment + " must be at least 0 and 1");
        }
        long range = Math.max(1, (readRangeBytes + alignment - 1) / alignment) * alignment;
        // chunks larger than a range make larger ranges: fewer of them are held, two at least
        int inFlight = (int) Math.max(2, Math.min(readRangesInFlight,
                (long) readRangeBytes * readRangesInFlight / range));
        if (expectedLength <= range || inFlight < 2 || range > Integer.MAX_VALUE - 8) {
            return open(path);
        }
        S3Path p = requireFileKey(path);
        ResponseInputStream<GetObjectResponse> first;
        try {
            first = getObject(p, path, "bytes=0-" + (range - 1));
        } catch (RangeNotSatisfiableException e) {
            // an empty object: read it plainly, so the caller sees it end where it expected more
            return open(path);
        }
        GetObjectResponse response = first.response();
        long[] answered = contentRange(response.contentRange());
        if (answered == null && response.sdkHttpResponse().statusCode() == 206) {
            first.abort();
            throw new IOException("S3 answered the request for bytes 0 to " + (range - 1) + " of " + path
                    + " with a part of it but no Content-Range (" + description + ")");
        }
        if (answered == null || answered[2] <= range || response.eTag() == null) {
            if (answered == null || answered[2] <= range) {
                return first; // the whole object
            }
            first.abort(); // without an ETag, a change between ranges would go unnoticed
            return open(path);
        }
        if (answered[0] != 0 || answered[1] != range - 1) {
            first.abort();
            throw new IOException("S3 answered the request for bytes 0 to " + (range - 1) + " of " + path
                    + " with bytes " + answered[0] + " to " + answered[1] + " (" + description + ")");
        }
        return new S3RangedInputStream(this, p, path, first, answered[2], response.eTag(), (int) range, inFlight,
                rangeReaders());
    }

    /** A {@code GetObject} of the whole object or, with {@code range}, of a range of it. */
    private ResponseInputStream<GetObjectResponse> getObject(S3Path p, String path, String range) throws IOException {
        try {
            return client.getObject(GetObjectRequest.builder().bucket(p.bucket()).key(p.key()).range(range).build());
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(code(e))) {
                if (stat(p, path).map(FileStatus::directory).orElse(false)) {
                    throw new FileSystemException(path, null, "is a directory, not a file");
                }
                throw new NoSuchFileException(path);
            }
            if (range != null && e.statusCode() == 416) {
                throw new RangeNotSatisfiableException(path);
            }
            throw translate(path, "open", e);
        } catch (SdkException e) {
            throw translate(path, "open", e);
        }
    }

    /** A 416 to a range that starts at byte 0: the object is empty. */
    private static final class RangeNotSatisfiableException extends IOException {
        private static final long serialVersionUID = 1L;

        RangeNotSatisfiableException(String path) {
            super(path);
        }
    }

    /**
     * A {@code Content-Range} header, {@code bytes first-last/length}, as {@code [first, last,
     * length]} ({@code length} -1 for {@code *}); null when it is absent or not of that form.
     */
    static long[] contentRange(String header) {
        if (header == null || !header.startsWith("bytes ")) {
            return null;
        }
        try {
            String spec = header.substring(6).trim();
            int dash = spec.indexOf('-');
            int slash = spec.indexOf('/');
            if (dash < 0 || slash < dash) {
                return null;
            }
            String total = spec.substring(slash + 1).trim();
            return new long[] {Long.parseLong(spec.substring(0, dash).trim()),
                    Long.parseLong(spec.substring(dash + 1, slash).trim()),
                    total.equals("*") ? -1 : Long.parseLong(total)};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The threads that fetch ranges, started when first needed; daemons, ended after 30 idle seconds. */
    private synchronized ExecutorService rangeReaders() throws IOException {
        if (rangeReadersClosed) {
            throw new IOException("Cannot read in ranges: the S3 file system is closed (" + description + ")");
        }
        if (rangeReaders == null) {
            AtomicInteger count = new AtomicInteger();
            rangeReaders = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    r -> {
                        Thread t = new Thread(r, "keepsake-s3-range-" + count.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
        }
        return rangeReaders;
    }

    void rangeFetchStarted() {
        rangeFetchesRunning.incrementAndGet();
    }

    void rangeFetchEnded() {
        rangeFetchesRunning.decrementAndGet();
    }

    /** How many ranges are being fetched right now, by every stream of this file system. */
    int rangeFetchesRunning() {
        return rangeFetchesRunning.get();
    }

    /**
     * Sets the bytes per range (before rounding up to the caller's alignment) and the ranges
     * held per stream, for streams opened from now on: for tests that read small payloads in
     * several ranges.
     */
    void readRanges(int rangeBytes, int inFlight) {
        this.readRangeBytes = rangeBytes;
        this.readRangesInFlight = inFlight;
    }

    @Override
    public List<FileStatus> list(String directory) throws IOException {
        S3Path dir = path(directory);
        String prefix = dir.directoryPrefix();
        Map<String, long[]> directories = new LinkedHashMap<>();
        List<FileStatus> files = new ArrayList<>();
        for (S3Object o : listAll(dir, prefix, directory)) {
            String rest = o.key().substring(prefix.length());
            int slash = rest.indexOf('/');
            long time = o.lastModified() == null ? 0 : o.lastModified().toEpochMilli();
            if (slash < 0) {
                if (representable(rest)) {
                    files.add(new FileStatus(child(directory, rest), rest, false, o.size(), time));
                }
            } else if (slash > 0) {
                String name = rest.substring(0, slash);
                if (representable(name)) {
                    long[] newest = directories.computeIfAbsent(name, k -> new long[] {Long.MIN_VALUE});
                    newest[0] = Math.max(newest[0], time);
                }
            }
        }
        List<FileStatus> out = new ArrayList<>(files);
        directories.forEach((name, time) -> out.add(new FileStatus(child(directory, name), name, true, 0, time[0])));
        return out;
    }

    private static boolean representable(String name) {
        return !name.isEmpty() && !name.equals(".") && !name.equals("..");
    }

    /** Every object below {@code prefix}, page after page. */
    private List<S3Object> listAll(S3Path dir, String prefix, String what) throws IOException {
        List<S3Object> out = new ArrayList<>();
        String token = null;
        do {
            String continuation = token;
            ListObjectsV2Response page = call(what, "list", () -> client.listObjectsV2(ListObjectsV2Request.builder()
                    .bucket(dir.bucket()).prefix(prefix).continuationToken(continuation).build()));
            out.addAll(page.contents());
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return out;
    }

    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        return stat(path(path), path);
    }

    private Optional<FileStatus> stat(S3Path p, String path) throws IOException {
        String name = p.key().substring(p.key().lastIndexOf('/') + 1);
        if (!p.key().isEmpty()) {
            Optional<HeadObjectResponse> head = headObject(p);
            if (head.isPresent()) {
                return Optional.of(new FileStatus(path, name, false, head.get().contentLength(),
                        head.get().lastModified() == null ? 0 : head.get().lastModified().toEpochMilli()));
            }
        }
        ListObjectsV2Response page;
        try {
            page = client.listObjectsV2(b -> b.bucket(p.bucket()).prefix(p.directoryPrefix()).maxKeys(1));
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && "NoSuchBucket".equals(code(e))) {
                // not "nothing there": the caller is told which bucket is missing, as a missing parent is told
                throw withCause(new NoSuchFileException(path, null, "S3 bucket '" + p.bucket() + "' does not exist ("
                        + description + ")"), e);
            }
            throw translate(path, "stat", e);
        } catch (SdkException e) {
            throw translate(path, "stat", e);
        }
        if (page.contents().isEmpty()) {
            return p.key().isEmpty() ? Optional.of(new FileStatus(path, "", true, 0, 0)) : Optional.empty();
        }
        S3Object first = page.contents().get(0);
        return Optional.of(new FileStatus(path, name, true, 0,
                first.lastModified() == null ? 0 : first.lastModified().toEpochMilli()));
    }

    private Optional<HeadObjectResponse> headObject(S3Path p) throws IOException {
        try {
            return Optional.of(client.headObject(b -> b.bucket(p.bucket()).key(p.key())));
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(code(e))) {
                return Optional.empty();
            }
            throw translate(p.toString(), "stat", e);
        } catch (SdkException e) {
            throw translate(p.toString(), "stat", e);
        }
    }

    // ----------------------------------------------------------------- deletes and renames

    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        S3Path p = path(path);
        if (p.key().isEmpty()) {
            throw new AccessDeniedException(path, null, "the top of a bucket is never deleted");
        }
        if (headObject(p).isPresent()) {
            call(path, "delete", () -> client.deleteObject(b -> b.bucket(p.bucket()).key(p.key())));
            return true;
        }
        String prefix = p.directoryPrefix();
        if (!recursive) {
            ListObjectsV2Response page = call(path, "delete", () -> client.listObjectsV2(b -> b.bucket(p.bucket())
                    .prefix(prefix).maxKeys(2)));
            for (S3Object o : page.contents()) {
                if (!o.key().equals(prefix)) {
                    throw new DirectoryNotEmptyException(path);
                }
            }
            if (page.contents().isEmpty()) {
                return false;
            }
            call(path, "delete", () -> client.deleteObject(b -> b.bucket(p.bucket()).key(prefix)));
            return true;
        }
        List<S3Object> all = listAll(p, prefix, path);
        // The marker last, so that an interrupted delete leaves a directory that still exists.
        all.sort((a, b) -> Boolean.compare(a.key().equals(prefix), b.key().equals(prefix)));
        for (int from = 0; from < all.size(); from += DELETE_BATCH) {
            List<ObjectIdentifier> batch = new ArrayList<>();
            for (S3Object o : all.subList(from, Math.min(all.size(), from + DELETE_BATCH))) {
                batch.add(ObjectIdentifier.builder().key(o.key()).build());
            }
            DeleteObjectsResponse response = call(path, "delete", () -> client.deleteObjects(b -> b.bucket(p.bucket())
                    .delete(Delete.builder().objects(batch).quiet(true).build())));
            if (!response.errors().isEmpty()) {
                S3Error first = response.errors().get(0);
                throw new IOException("Cannot delete " + response.errors().size() + " object(s) under " + path + ": "
                        + first.code() + " " + first.message() + " (" + p.bucket() + "/" + first.key() + ")");
            }
        }
        return !all.isEmpty();
    }

    /**
     * Renames a file by copy and delete, which is neither atomic nor cheap; directories are refused.
     * The protocol never calls it here (no rename capability is claimed).
     */
    @Override
    public void rename(String source, String target) throws IOException {
        S3Path from = requireFileKey(source);
        S3Path to = requireFileKey(target);
        if (headObject(from).isEmpty()) {
            if (stat(from, source).isPresent()) {
                throw new IOException("Cannot rename " + source + ": S3 has no directory rename (" + target + ")");
            }
            throw new NoSuchFileException(source);
        }
        if (stat(to, target).isPresent()) {
            throw new FileAlreadyExistsException(target);
        }
        call(source, "rename", () -> client.copyObject(CopyObjectRequest.builder().sourceBucket(from.bucket())
                .sourceKey(from.key()).destinationBucket(to.bucket()).destinationKey(to.key()).build()));
        call(source, "rename", () -> client.deleteObject(b -> b.bucket(from.bucket()).key(from.key())));
    }

    @Override
    public void syncDirectory(String directory) {
        // An object is durable once its PUT or multipart completion returned; there are no directory entries to sync.
    }

    @Override
    public Set<FsCapability> capabilities() {
        return conditionalWrites ? EnumSet.of(FsCapability.ATOMIC_FILE_CREATE)
                : EnumSet.of(FsCapability.ATOMIC_FILE_CREATE, FsCapability.NON_EXCLUSIVE_CREATE);
    }

    @Override
    public String normalizeRoot(String root) {
        if (root == null || root.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is empty (" + root + ")");
        }
        S3Path p = S3Path.parse(root.trim(), defaultBucket);
        if (!p.key().isEmpty()) {
            for (String segment : p.key().split("/", -1)) {
                if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                    throw new InvalidStorageArgumentException("Cannot use storage root: it has an empty, . or .. segment ("
                            + root + ")");
                }
            }
        }
        return p.toString();
    }

    // ----------------------------------------------------------------- multipart uploads

    /** The multipart uploads begun below {@code directory} and neither completed nor aborted ({@code ListMultipartUploads}). */
    @Override
    public List<PendingUpload> pendingUploads(String directory) throws IOException {
        S3Path dir = path(directory);
        List<PendingUpload> out = new ArrayList<>();
        String keyMarker = null;
        String idMarker = null;
        do {
            String k = keyMarker;
            String i = idMarker;
            ListMultipartUploadsResponse page = call(directory, "list multipart uploads", () -> client.listMultipartUploads(
                    b -> b.bucket(dir.bucket()).prefix(dir.directoryPrefix()).keyMarker(k).uploadIdMarker(i)));
            for (MultipartUpload u : page.uploads()) {
                out.add(new PendingUpload(new S3Path(dir.bucket(), u.key()).toString(), u.uploadId(),
                        u.initiated() == null ? 0 : u.initiated().toEpochMilli()));
            }
            boolean more = Boolean.TRUE.equals(page.isTruncated());
            keyMarker = more ? page.nextKeyMarker() : null;
            idMarker = more ? page.nextUploadIdMarker() : null;
        } while (keyMarker != null);
        return out;
    }

    /** Aborts one multipart upload; fine when it is already gone. */
    @Override
    public void abortUpload(PendingUpload upload) throws IOException {
        S3Path p = path(upload.path());
        try {
            client.abortMultipartUpload(b -> b.bucket(p.bucket()).key(p.key()).uploadId(upload.uploadId()));
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw translate(upload.path(), "abort upload", e);
            }
        } catch (SdkException e) {
            throw translate(upload.path(), "abort upload", e);
        }
    }

    // ----------------------------------------------------------------- plumbing

    @Override
    public void close() {
        synchronized (this) {
            rangeReadersClosed = true;
            if (rangeReaders != null) {
                rangeReaders.shutdown();
            }
        }
        client.close();
    }

    private S3Path requireFileKey(String path) {
        S3Path p = path(path);
        if (p.key().isEmpty()) {
            throw new InvalidStorageArgumentException("Cannot use S3 path as a file: it names a bucket, not a key ("
                    + path + ")");
        }
        return p;
    }

    /** One SDK call whose errors become IOExceptions naming the path. */
    <T> T call(String path, String what, SdkCall<T> call) throws IOException {
        try {
            return call.run();
        } catch (SdkException e) {
            throw translate(path, what, e);
        }
    }

    /** An SDK call. */
    @FunctionalInterface
    interface SdkCall<T> {
        T run();
    }

    /** The S3 error code of an exception, or null. */
    static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    /** An SDK error as an IOException naming the path, the operation and the store. */
    IOException translate(String path, String what, SdkException e) {
        if (e instanceof S3Exception s3) {
            String detail = "HTTP " + s3.statusCode() + (code(s3) == null ? "" : " " + code(s3));
            if (s3.statusCode() == 403) {
                return withCause(new AccessDeniedException(path, null, "S3 refused to " + what + ": " + detail
                        + " (" + description + ")"), e);
            }
            return new IOException("S3 failed to " + what + " " + path + ": " + detail + " (" + description + ")", e);
        }
        LOG.debug("S3 call failed: {} {}", what, path, e);
        return new IOException("S3 failed to " + what + " " + path + ": " + e.getMessage() + " (" + description + ")", e);
    }

    private static IOException withCause(IOException e, Throwable cause) {
        e.initCause(cause);
        return e;
    }
}
