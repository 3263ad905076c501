package io.keepsake.storage.s3;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A client-side log of the requests an S3 client sends, one {@link Entry} per HTTP attempt: its
 * method, path, {@code Range} header, when it was sent and when it ended. An attempt that the SDK
 * retries ends when the retry is sent. A request ends when its response was handled, except a {@code GetObject} (a GET without a query), which ends when its
 * body was read to the end, closed or aborted, so that a body still being streamed counts as a
 * request running. The bodies of GETs that {@link #hold} matches are held before their first byte
 * until {@link #release} (or until they are closed, which an aborted request is).
 */
final class RangedRequestLog implements ExecutionInterceptor {

    private static final ExecutionAttribute<Entry> ENTRY = new ExecutionAttribute<>("keepsake-test-request-log");

    /** One request: {@code end} stays -1 while it runs. */
    static final class Entry {
        final String method;
        final String path;
        final String range;
        final long start;
        volatile long end = -1;
        volatile boolean streaming;

        Entry(String method, String path, String range, long start) {
            this.method = method;
            this.path = path;
            this.range = range;
            this.start = start;
        }

        boolean running() {
            return end < 0;
        }

        /** The first byte of the range asked for, or 0 without a range. */
        long rangeStart() {
            return range == null ? 0 : Long.parseLong(range.substring("bytes=".length(), range.indexOf('-')));
        }

        boolean overlaps(Entry other) {
            long thisEnd = end < 0 ? Long.MAX_VALUE : end;
            long otherEnd = other.end < 0 ? Long.MAX_VALUE : other.end;
            return start < otherEnd && other.start < thisEnd;
        }

        @Override
        public String toString() {
            return method + " " + path + (range == null ? "" : " " + range) + " [" + start + ", "
                    + (end < 0 ? "running" : end) + "]";
        }
    }

    private final List<Entry> entries = new ArrayList<>();
    private volatile Predicate<Entry> hold = e -> false;
    private final Object gate = new Object();
    private boolean released;
    private int releaseAfter;
    private int matched;

    /**
     * Holds the bodies of GETs that {@code which} matches until {@code releaseAfter} requests it
     * matches have been sent, or {@link #release} is called, or {@link #HOLD_AT_MOST} has passed
     * (so a test that waits for a request that never comes fails on its assertions, not by hanging).
     */
    void hold(Predicate<Entry> which, int releaseAfter) {
        synchronized (gate) {
            released = false;
            matched = 0;
            this.releaseAfter = releaseAfter;
        }
        hold = which;
    }

    /** The longest a body is held. */
    static final long HOLD_AT_MOST = java.util.concurrent.TimeUnit.SECONDS.toNanos(20);

    /** Lets held bodies go on. */
    void release() {
        hold = e -> false;
        synchronized (gate) {
            released = true;
            gate.notifyAll();
        }
    }

    void clear() {
        synchronized (entries) {
            entries.clear();
        }
    }

    /** The requests logged so far whose path ends with {@code suffix}. */
    List<Entry> forKey(String suffix) {
        synchronized (entries) {
            return entries.stream().filter(e -> e.path.endsWith(suffix)).toList();
        }
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        Entry previous = attributes.getAttribute(ENTRY);
        if (previous != null && previous.end < 0) {
            previous.end = System.nanoTime(); // an attempt that failed, now retried
        }
        SdkHttpRequest r = context.httpRequest();
        Entry e = new Entry(r.method().name(), r.encodedPath(), r.firstMatchingHeader("Range").orElse(null),
                System.nanoTime());
        synchronized (entries) {
            entries.add(e);
        }
        attributes.putAttribute(ENTRY, e);
        if (hold.test(e)) {
            synchronized (gate) {
                if (++matched >= releaseAfter) {
                    released = true;
                    gate.notifyAll();
                }
            }
        }
    }

    @Override
    public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context,
                                                           ExecutionAttributes attributes) {
        Entry e = attributes.getAttribute(ENTRY);
        Optional<InputStream> body = context.responseBody();
        if (e == null || body.isEmpty() || !e.method.equals("GET")
                || !context.httpRequest().rawQueryParameters().isEmpty()
                || context.httpResponse().statusCode() >= 300) {
            return body;
        }
        e.streaming = true;
        return Optional.of(new LoggedBody(body.get(), e, hold.test(e)));
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        Entry e = attributes.getAttribute(ENTRY);
        if (e != null && !e.streaming && e.end < 0) {
            e.end = System.nanoTime();
        }
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        Entry e = attributes.getAttribute(ENTRY);
        if (e != null && e.end < 0) {
            e.end = System.nanoTime();
        }
    }

    /** A GET body that records its end and may be held before its first byte. */
    private final class LoggedBody extends FilterInputStream {
        private final Entry entry;
        private volatile boolean held;
        private volatile boolean closed;

        LoggedBody(InputStream in, Entry entry, boolean held) {
            super(in);
            this.entry = entry;
            this.held = held;
        }

        private void awaitRelease() throws IOException {
            if (!held) {
                return;
            }
            long deadline = System.nanoTime() + HOLD_AT_MOST;
            synchronized (gate) {
                while (!released && !closed && deadline - System.nanoTime() > 0) {
                    try {
                        gate.wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("held body interrupted");
                    }
                }
            }
            held = false;
            if (closed) {
                throw new IOException("the body was closed while it was held");
            }
        }

        @Override
        public int read() throws IOException {
            awaitRelease();
            int b = super.read();
            if (b < 0) {
                ended();
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            awaitRelease();
            int n = super.read(b, off, len);
            if (n < 0) {
                ended();
            }
            return n;
        }

        private void ended() {
            if (entry.end < 0) {
                entry.end = System.nanoTime();
            }
        }

        @Override
        public void close() throws IOException {
            synchronized (gate) {
                closed = true;
                gate.notifyAll();
            }
            try {
                super.close();
            } finally {
                ended();
            }
        }
    }
}
