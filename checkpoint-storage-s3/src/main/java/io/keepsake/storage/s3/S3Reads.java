package io.keepsake.storage.s3;

import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reads of one {@link S3FileSystem}: a whole object with one {@code GetObject}, a large one as
 * ranges of whole chunks fetched several at once by {@link S3RangedInputStream} on threads this
 * class starts when first needed. Thread-safe.
 */
final class S3Reads {

    private final S3FileSystem fs;
    private volatile int readRangeBytes = S3FileSystem.READ_RANGE_BYTES;
    private volatile int readRangesInFlight = S3FileSystem.READ_RANGES_IN_FLIGHT;
    private final AtomicInteger rangeFetchesRunning = new AtomicInteger();
    private ExecutorService rangeReaders;
    private boolean rangeReadersClosed;

    S3Reads(S3FileSystem fs) {
        this.fs = fs;
    }

    /** The file system whose objects are read. */
    S3FileSystem fileSystem() {
        return fs;
    }

    /** One {@code GetObject} of the whole object. */
    InputStream open(S3Path p, String path) throws IOException {
        return getObject(p, path, null);
    }

    /**
     * Reads a file expected to be larger than one range ({@link S3FileSystem#READ_RANGE_BYTES},
     * rounded up to a whole multiple of {@code alignment}) as several ranged {@code GetObject}s at
     * once, at most {@link S3FileSystem#READ_RANGES_IN_FLIGHT} ranges held per stream, the one being
     * read included, so a stream holds at most 32 MiB of ranges in memory (with chunks larger than
     * 16 MiB, two ranges of one chunk each). The first range is asked for here; its response gives the object's length and ETag, and the later ranges ask
     * {@code If-Match} on it. A file expected to fit in one range is one plain {@code GetObject},
     * as is an object the first answer shows to fit in it (or a store that answers a range with
     * the whole object).
     */
    InputStream openWhole(S3Path p, String path, long expectedLength, int alignment) throws IOException {
        long range = Math.max(1, (readRangeBytes + alignment - 1) / alignment) * alignment;
        // chunks larger than a range make larger ranges: fewer of them are held, two at least
        int inFlight = (int) Math.max(2, Math.min(readRangesInFlight,
                (long) readRangeBytes * readRangesInFlight / range));
        if (expectedLength <= range || inFlight < 2 || range > Integer.MAX_VALUE - 8) {
            return open(p, path);
        }
        ResponseInputStream<GetObjectResponse> first;
        try {
            first = getObject(p, path, "bytes=0-" + (range - 1));
        } catch (RangeNotSatisfiableException e) {
            // an empty object: read it plainly, so the caller sees it end where it expected more
            return open(p, path);
        }
        GetObjectResponse response = first.response();
        long[] answered = contentRange(response.contentRange());
        if (answered == null && response.sdkHttpResponse().statusCode() == 206) {
            first.abort();
            throw new IOException("S3 answered the request for bytes 0 to " + (range - 1) + " of " + path
                    + " with a part of it but no Content-Range (" + fs.description() + ")");
        }
        if (answered == null || answered[2] <= range || response.eTag() == null) {
            if (answered == null || answered[2] <= range) {
                return first; // the whole object
            }
            first.abort(); // without an ETag, a change between ranges would go unnoticed
            return open(p, path);
        }
        if (answered[0] != 0 || answered[1] != range - 1) {
            first.abort();
            throw new IOException("S3 answered the request for bytes 0 to " + (range - 1) + " of " + path
                    + " with bytes " + answered[0] + " to " + answered[1] + " (" + fs.description() + ")");
        }
        return new S3RangedInputStream(this, p, path, first, answered[2], response.eTag(), (int) range, inFlight,
                rangeReaders());
    }

    /** A {@code GetObject} of the whole object or, with {@code range}, of a range of it. */
    private ResponseInputStream<GetObjectResponse> getObject(S3Path p, String path, String range) throws IOException {
        try {
            return fs.client().getObject(GetObjectRequest.builder().bucket(p.bucket()).key(p.key()).range(range)
                    .build());
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(S3FileSystem.code(e))) {
                throw fs.notAFile(path);
            }
            if (range != null && e.statusCode() == 416) {
                throw new RangeNotSatisfiableException(path);
            }
            throw fs.translate(path, "open", e);
        } catch (SdkException e) {
            throw fs.translate(path, "open", e);
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
            throw new IOException("Cannot read in ranges: the S3 file system is closed (" + fs.description() + ")");
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

    /** Counts a range fetch that starts. */
    void rangeFetchStarted() {
        rangeFetchesRunning.incrementAndGet();
    }

    /** Counts a range fetch that ended. */
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

    /** Stops the range threads; a ranged read asked for later fails. */
    synchronized void close() {
        rangeReadersClosed = true;
        if (rangeReaders != null) {
            rangeReaders.shutdown();
        }
    }
}
