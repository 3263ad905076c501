package io.keepsake.storage.s3;

import io.keepsake.storage.spi.SegmentedInputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One object read from its start to its end as several ranged {@code GetObject}s at once, its bytes
 * handed out in order. The object is cut into ranges of {@code rangeBytes} (the last one shorter);
 * at most {@code inFlight} ranges are held at a time, each fetched whole into a buffer of its own
 * by a thread of the file system's read pool, the one being read by the caller included, so the
 * memory of a stream is at most {@code inFlight * rangeBytes}. When the caller has read a range to
 * its end, its buffer goes to the next range to fetch.
 *
 * <p>The first range was read by the opener, whose response gave the object's length and ETag;
 * every later range asks {@code If-Match} on that ETag and must come back with the same ETag and
 * length, otherwise the read fails with {@link S3ObjectChangedException}. A failed request, or a
 * range whose body ends early, fails the read with an {@link IOException} naming the object and
 * the bytes; the first failure is thrown again by every later read. Closing the stream aborts the
 * ranges still being fetched (their connections are closed, not drained) and does not wait for
 * them. Not thread-safe: one reader.
 */
final class S3RangedInputStream extends SegmentedInputStream {

    private final S3FileSystem fs;
    private final S3Reads reads;
    private final S3Path object;
    private final String path;
    private final long length;
    private final String eTag;
    private final int rangeBytes;
    private final int inFlight;
    private final int rangeCount;
    private final Executor executor;
    /** The ranges started and not yet handed to the reader, in order. */
    private final ArrayDeque<Fetch> fetches = new ArrayDeque<>();
    private int nextRange;
    private byte[] current;
    private int position;
    private int limit;
    /** The buffer of the range read last, for the next range to fetch. */
    private byte[] spare;

    /**
     * @param first the open response to the first range, {@code bytes=0-(rangeBytes - 1)}
     * @param length the object's length, from the first response's {@code Content-Range}
     * @param eTag the object's ETag, from the first response
     */
    S3RangedInputStream(S3Reads reads, S3Path object, String path, ResponseInputStream<GetObjectResponse> first,
                        long length, String eTag, int rangeBytes, int inFlight, Executor executor) throws IOException {
        super("Stream of " + path + " is closed");
        this.reads = reads;
        this.fs = reads.fileSystem();
        this.object = object;
        this.path = path;
        this.length = length;
        this.eTag = eTag;
        this.rangeBytes = rangeBytes;
        this.inFlight = inFlight;
        this.rangeCount = (int) ((length + rangeBytes - 1) / rangeBytes);
        this.executor = executor;
        Fetch head = new Fetch(0, first);
        fetches.add(head);
        nextRange = 1;
        try {
            start(head);
            startFetches();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    protected int remaining() {
        return current == null ? 0 : limit - position;
    }

    @Override
    protected void copy(byte[] b, int off, int n) {
        System.arraycopy(current, position, b, off, n);
        position += n;
    }

    @Override
    protected void drop(int n) {
        position += n;
    }

    /** Makes {@link #current} the next range; false at the object's end. */
    @Override
    protected boolean next() throws IOException {
        if (current != null) {
            spare = current;
            current = null;
        }
        if (fetches.isEmpty()) {
            return false;
        }
        try {
            startFetches();
            Fetch next = fetches.poll();
            current = await(next);
            position = 0;
            limit = next.length;
            return true;
        } catch (IOException | RuntimeException | Error e) {
            fail(e);
            cancelAll();
            throw e;
        }
    }

    /** Starts ranges until {@link #inFlight} are held, the one being read included. */
    private void startFetches() throws IOException {
        while (nextRange < rangeCount && fetches.size() + (current == null ? 0 : 1) < inFlight) {
            Fetch f = new Fetch(nextRange++, null);
            fetches.add(f);
            start(f);
        }
    }

    private void start(Fetch f) throws IOException {
        f.buffer = spare;
        spare = null;
        try {
            executor.execute(f);
        } catch (RejectedExecutionException e) {
            f.cancel();
            throw new IOException("Cannot read " + path + " in ranges: its storage is closed", e);
        }
    }

    private byte[] await(Fetch f) throws IOException {
        try {
            return f.result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting for bytes " + f.start + " to "
                    + (f.start + f.length - 1) + " of " + path);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException("Reading bytes " + f.start + " to " + (f.start + f.length - 1) + " of " + path
                    + " failed: " + cause, cause);
        }
    }

    private void cancelAll() {
        for (Fetch f : fetches) {
            f.cancel();
        }
        fetches.clear();
    }

    /** Aborts the ranges still being fetched and drops the buffers; does not wait for the fetches to end. */
    @Override
    public void close() {
        if (!markClosed()) {
            return;
        }
        cancelAll();
        current = null;
        spare = null;
    }

    /** One range: fetched whole on a read thread, or failed, or cancelled by the reader. */
    private final class Fetch implements Runnable {
        final long start;
        final int length;
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        /** The response to the first range, opened by the opener, until the fetch or a cancel takes it; null for the others. */
        private final AtomicReference<ResponseInputStream<GetObjectResponse>> opened;
        /** A buffer to fill, when it is large enough; written before the fetch is started. */
        byte[] buffer;
        /** Guarded by this. */
        private ResponseInputStream<GetObjectResponse> body;
        /** Guarded by this. */
        private boolean cancelled;

        Fetch(int index, ResponseInputStream<GetObjectResponse> opened) {
            this.start = (long) index * rangeBytes;
            this.length = (int) Math.min(rangeBytes, S3RangedInputStream.this.length - start);
            this.opened = new AtomicReference<>(opened);
        }

        private String bytes() {
            return "bytes " + start + " to " + (start + length - 1) + " of " + path;
        }

        @Override
        public void run() {
            reads.rangeFetchStarted();
            ResponseInputStream<GetObjectResponse> in = opened.getAndSet(null);
            try {
                if (in == null && isCancelled()) {
                    return;
                }
                if (in == null) {
                    in = fs.client().getObject(GetObjectRequest.builder().bucket(object.bucket()).key(object.key())
                            .range("bytes=" + start + "-" + (start + length - 1)).ifMatch(eTag).build());
                }
                if (!attach(in)) {
                    return;
                }
                requireSameObject(in.response());
                byte[] b = readWhole(in);
                if (release(in)) {
                    in.close();
                }
                result.complete(b);
            } catch (S3Exception e) {
                result.completeExceptionally(e.statusCode() == 412
                        ? withCause(new S3ObjectChangedException(path, eTag, "S3 refused " + bytes() + " with 412"
                                + " PreconditionFailed on If-Match"), e)
                        : fs.translate(path, "read " + bytes() + " of", e));
            } catch (SdkException e) {
                result.completeExceptionally(fs.translate(path, "read " + bytes() + " of", e));
            } catch (IOException e) {
                result.completeExceptionally(isCancelled() ? e
                        : new IOException("S3 failed to read " + bytes() + ": " + e.getMessage() + " ("
                        + fs.description() + ")", e));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            } finally {
                if (!result.isDone() || result.isCompletedExceptionally()) {
                    if (in != null && release(in)) {
                        in.abort();
                    }
                    result.completeExceptionally(new IOException("Reading " + bytes() + " was cancelled"));
                }
                reads.rangeFetchEnded();
            }
        }

        /** Reads the range's bytes into the spare buffer or a new one, failing when the body is shorter or longer. */
        private byte[] readWhole(ResponseInputStream<GetObjectResponse> in) throws IOException {
            byte[] b = buffer != null && buffer.length >= length ? buffer : new byte[length];
            buffer = null;
            int got = in.readNBytes(b, 0, length);
            if (got < length) {
                throw new IOException("S3 ended " + bytes() + " after " + got + " bytes (" + fs.description()
                        + ")");
            }
            if (in.read() != -1) {
                throw new IOException("S3 sent more than " + bytes() + " (" + fs.description() + ")");
            }
            return b;
        }

        /** Checks that a later range comes from the object whose first range was read. */
        private void requireSameObject(GetObjectResponse response) throws IOException {
            if (response.eTag() != null && !response.eTag().equals(eTag)) {
                throw new S3ObjectChangedException(path, eTag, bytes() + " came with ETag " + response.eTag());
            }
            long[] range = S3Reads.contentRange(response.contentRange());
            if (range == null) {
                throw new IOException("S3 answered the request for " + bytes() + " without a Content-Range ("
                        + fs.description() + ")");
            }
            if (range[2] >= 0 && range[2] != S3RangedInputStream.this.length) {
                throw new S3ObjectChangedException(path, eTag, bytes() + " came from an object of " + range[2]
                        + " bytes, not " + S3RangedInputStream.this.length);
            }
            if (range[0] != start || range[1] != start + length - 1) {
                throw new IOException("S3 answered the request for " + bytes() + " with bytes " + range[0] + " to "
                        + range[1] + " (" + fs.description() + ")");
            }
        }

        private synchronized boolean attach(ResponseInputStream<GetObjectResponse> in) {
            if (cancelled) {
                in.abort();
                return false;
            }
            body = in;
            return true;
        }

        /**
         * Takes the response back from {@link #body}; true when this thread now owns it and must
         * close or abort it, false when {@link #cancel} took it first (and aborts it) or it was
         * never attached. A response is closed or aborted once, by one thread.
         */
        private synchronized boolean release(ResponseInputStream<GetObjectResponse> in) {
            if (body != in) {
                return false;
            }
            body = null;
            return true;
        }

        private synchronized boolean isCancelled() {
            return cancelled;
        }

        /** Stops the fetch: aborts its request if it is open, and drops its result. */
        void cancel() {
            ResponseInputStream<GetObjectResponse> open;
            synchronized (this) {
                cancelled = true;
                open = body;
                body = null;
            }
            if (open != null) {
                open.abort();
            }
            ResponseInputStream<GetObjectResponse> notStarted = opened.getAndSet(null);
            if (notStarted != null) {
                notStarted.abort();
            }
            result.completeExceptionally(new IOException("Reading " + bytes() + " was cancelled"));
        }
    }

    private static <T extends Throwable> T withCause(T e, Throwable cause) {
        e.initCause(cause);
        return e;
    }
}
