package io.keepsake.bench;

import io.keepsake.bench.HttpWire.Head;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static io.keepsake.bench.HttpWire.BUFFER;
import static io.keepsake.bench.HttpWire.pauseUntil;
import static io.keepsake.bench.HttpWire.relayBody;

/**
 * An HTTP/1.1 forwarding proxy on 127.0.0.1 in front of an S3 endpoint (S3Proxy in the benchmarks)
 * that makes loopback behave like an object store with real latency, and logs every request it
 * serves.
 *
 * <ul>
 *   <li><b>Time to first byte.</b> Once per request, after the upstream's response head has arrived
 *       and before its first byte is forwarded, the proxy waits the configured delay: the model of
 *       what an S3 request costs before its first byte (10-30 ms on real S3). The delay is added to
 *       what the upstream itself took, which on loopback is about a millisecond.</li>
 *   <li><b>Bandwidth per connection.</b> Body bytes are paced, in each direction, to at most the
 *       configured bytes per second on each connection: the model of one S3 stream's throughput.
 *       {@link #DEFAULT_BYTES_PER_SECOND} (80 MiB/s) is of the order of the 85-90 MB/s per request
 *       commonly used to plan parallel S3 transfers, so parallel streams go faster than one, as on
 *       S3. Headers are not paced.</li>
 *   <li><b>Connections.</b> Each client connection gets its own upstream connection and carries
 *       requests one after the other (keep-alive). Connection set-up (TCP and TLS handshakes on
 *       real S3) is not delayed. {@code Expect: 100-continue} is answered by the proxy at once
 *       and not forwarded: the upstream sees the whole request.</li>
 *   <li><b>Framing.</b> Request bodies by {@code Content-Length} (the AWS SDK v2, aws-chunked
 *       included) or {@code Transfer-Encoding: chunked}; responses by {@code Content-Length},
 *       chunked, or the end of the connection; no body for HEAD, 1xx, 204 and 304.</li>
 * </ul>
 *
 * <p>The log records one {@link Request} per forwarded request: its method, object key (the
 * decoded path after the bucket, path-style), query, status, body bytes each way, and when it
 * started (its head read) and ended (its response's last byte forwarded), on
 * {@link System#nanoTime()}. {@link #sequentialRoundTrips} reads the critical path off it.
 *
 * <p>Thread-safe. One platform thread per client connection.
 */
public final class LatencyProxy implements AutoCloseable {

    /**
     * The default cap of one connection's body bytes per second each way: 80 MiB/s, of the order of
     * the 85-90 MB/s per request commonly used to plan parallel S3 transfers.
     */
    public static final long DEFAULT_BYTES_PER_SECOND = 80L << 20;

    /** The default time to first byte: 20 ms, within the 10-30 ms an S3 request takes before its first byte. */
    public static final Duration DEFAULT_TIME_TO_FIRST_BYTE = Duration.ofMillis(20);


    /**
     * One request the proxy forwarded.
     *
     * @param method     the HTTP method
     * @param key        the object key: the percent-decoded path after its first segment (the bucket), empty
     *                   for a request on the bucket itself
     * @param query      the raw query string, empty when there is none
     * @param status     the response's status code, or -1 when no response reached the client
     * @param bytesIn    the request's body bytes, as framed on the wire (chunk sizes included)
     * @param bytesOut   the response's body bytes, as framed on the wire
     * @param startNanos when the request's head had been read ({@link System#nanoTime()})
     * @param endNanos   when the response's last byte had been forwarded, or the exchange failed
     */
    public record Request(String method, String key, String query, int status, long bytesIn, long bytesOut,
                          long startNanos, long endNanos) {

        /** How long the request took, start to end. */
        public long nanos() {
            return endNanos - startNanos;
        }
    }

    private final ServerSocket listener;
    private final URI target;
    private final ConcurrentLinkedQueue<Request> log = new ConcurrentLinkedQueue<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();
    private volatile long delayNanos;
    private volatile long bytesPerSecond;
    private volatile boolean closed;
    private volatile CountDownLatch together;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile long lastActivity = System.nanoTime();

    private LatencyProxy(URI target, Duration timeToFirstByte, long bytesPerSecondPerConnection) throws IOException {
        this.target = target;
        timeToFirstByte(timeToFirstByte);
        bytesPerSecond(bytesPerSecondPerConnection);
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        Thread acceptor = new Thread(this::acceptLoop, "latency-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a proxy on a free port of 127.0.0.1 that forwards to {@code target}.
     *
     * @param target                      the upstream's {@code http://host:port}
     * @param timeToFirstByte             the delay added to each request before its response's first byte
     * @param bytesPerSecondPerConnection the cap of each connection's body bytes per second each way; 0 for none
     * @throws IllegalArgumentException when the target is not plain HTTP, or a figure is negative
     * @throws java.io.UncheckedIOException when no port can be bound
     */
    public static LatencyProxy start(URI target, Duration timeToFirstByte, long bytesPerSecondPerConnection) {
        if (!"http".equals(target.getScheme()) || target.getPort() < 0) {
            throw new IllegalArgumentException("Cannot proxy " + target + ": the target must be http://host:port");
        }
        try {
            return new LatencyProxy(target, timeToFirstByte, bytesPerSecondPerConnection);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("Cannot start a proxy to " + target + ": " + e.getMessage(), e);
        }
    }

    /** The proxy's {@code http://127.0.0.1:port}, to give the clients as their endpoint. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Sets the time to first byte of the requests that start from now on. */
    public void timeToFirstByte(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("Cannot delay by a negative time to first byte: " + delay);
        }
        delayNanos = delay.toNanos();
    }

    /** The time to first byte added to each request. */
    public Duration timeToFirstByte() {
        return Duration.ofNanos(delayNanos);
    }

    /** Sets each connection's cap of body bytes per second each way, from the next body on; 0 for none. */
    public void bytesPerSecond(long perConnection) {
        if (perConnection < 0) {
            throw new IllegalArgumentException("Cannot cap a connection at a negative rate: " + perConnection);
        }
        bytesPerSecond = perConnection;
    }

    /** Each connection's cap of body bytes per second each way; 0 for none. */
    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /**
     * Holds the response of each of the next {@code requests} requests until all of them have
     * arrived (or 30 s have passed), so that a test can know they were in flight together.
     */
    void holdUntilTogether(int requests) {
        together = new CountDownLatch(requests);
    }

    /**
     * Waits until no request has been in flight for {@code quiet}: the requests an operation left
     * running in the background (a retention or tidying step) have then ended and are in the log.
     *
     * @return false when requests were still in flight after {@code timeout}
     */
    public boolean awaitQuiet(Duration quiet, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long quietNanos = quiet.toNanos();
        while (true) {
            long now = System.nanoTime();
            long idleFor = now - lastActivity;
            if (inFlight.get() == 0 && idleFor >= quietNanos) {
                return true;
            }
            if (now - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(Math.max(1_000_000L, Math.min(quietNanos - idleFor, 10_000_000L)));
        }
    }

    /** Requests whose response has not been forwarded yet. */
    public int inFlight() {
        return inFlight.get();
    }

    /** The client connections accepted since the proxy started. */
    public int connectionsAccepted() {
        return connections.get();
    }

    /** A snapshot of the log, in the order the requests started. */
    public List<Request> requests() {
        List<Request> copy = new ArrayList<>(log);
        copy.sort(Comparator.comparingLong(Request::startNanos));
        return copy;
    }

    /** Empties the log. Requests under way when it is called are logged when they end. */
    public void clearLog() {
        log.clear();
    }

    /**
     * The number of round trips on the critical path of the logged requests: the longest chain of
     * requests in which each starts after the one before it ended (earliest-end greedy, which finds
     * the longest such chain). Requests in flight at the same time count once; N requests one
     * after the other count N.
     */
    public static int sequentialRoundTrips(List<Request> log) {
        List<Request> byEnd = new ArrayList<>(log);
        byEnd.sort(Comparator.comparingLong(Request::endNanos));
        int chain = 0;
        long lastEnd = Long.MIN_VALUE;
        for (Request r : byEnd) {
            if (chain == 0 || r.startNanos() - lastEnd >= 0) {
                chain++;
                lastEnd = r.endNanos();
            }
        }
        return chain;
    }

    /** The requests' body bytes, both ways. */
    public static long bytesMoved(List<Request> log) {
        long total = 0;
        for (Request r : log) {
            total += r.bytesIn() + r.bytesOut();
        }
        return total;
    }

    /** Stops accepting and closes every open connection. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            int n = connections.incrementAndGet();
            Thread t = new Thread(() -> serve(client), "latency-proxy-connection-" + n);
            t.setDaemon(true);
            t.start();
        }
    }

    /** Serves one client connection: its requests one after the other, over one upstream connection at a time. */
    private void serve(Socket client) {
        open.add(client);
        Upstream upstream = new Upstream();
        try {
            client.setTcpNoDelay(true);
            InputStream fromClient = new BufferedInputStream(client.getInputStream(), BUFFER);
            OutputStream toClient = new BufferedOutputStream(client.getOutputStream(), BUFFER);
            while (!closed) {
                Head request = Head.read(fromClient);
                if (request == null) {
                    return; // the client closed its connection
                }
                if (!forward(request, fromClient, toClient, upstream) || request.has("connection", "close")) {
                    return;
                }
            }
        } catch (IOException e) {
            // the client or the upstream dropped the connection: both ends are closed below
        } finally {
            closeQuietly(client);
            open.remove(client);
            upstream.drop();
        }
    }

    /** The upstream connection of one client connection: opened at its first request, and again after a close. */
    private final class Upstream {
        private Socket socket;
        private InputStream in;
        private OutputStream out;

        void connect() throws IOException {
            if (socket == null) {
                socket = new Socket(target.getHost(), target.getPort());
                socket.setTcpNoDelay(true);
                open.add(socket);
                in = new BufferedInputStream(socket.getInputStream(), BUFFER);
                out = new BufferedOutputStream(socket.getOutputStream(), BUFFER);
            }
        }

        void drop() {
            if (socket != null) {
                closeQuietly(socket);
                open.remove(socket);
                socket = null;
            }
        }
    }

    /**
     * Forwards one request and its response, delayed and paced, and logs it; returns false when
     * the response's body ran until the upstream closed, which ends the client's connection too.
     */
    private boolean forward(Head request, InputStream fromClient, OutputStream toClient, Upstream upstream)
            throws IOException {
        long start = System.nanoTime();
        long delay = delayNanos;
        CountDownLatch hold = together;
        if (hold != null) {
            hold.countDown();
        }
        String[] line = request.startLine.split(" ", 3);
        if (line.length < 3) {
            throw new IOException("malformed request line: " + request.startLine);
        }
        String method = line[0];
        String[] keyAndQuery = keyAndQuery(line[1]);
        long bytesIn = 0;
        long bytesOut = 0;
        int status = -1;
        inFlight.incrementAndGet();
        lastActivity = start;
        try {
            upstream.connect();
            answerExpectContinue(request, toClient);
            upstream.out.write(request.withoutHeader("expect").getBytes(StandardCharsets.ISO_8859_1));
            bytesIn = relayBody(request, fromClient, upstream.out, false, bytesPerSecond);
            upstream.out.flush();
            Head response;
            do {
                response = Head.read(upstream.in);
                if (response == null) {
                    throw new EOFException("the upstream closed the connection before its response");
                }
                status = response.status();
            } while (status >= 100 && status < 200); // interim responses stay between proxy and upstream
            awaitTogether(hold);
            pauseUntil(System.nanoTime() + delay);
            toClient.write(response.text().getBytes(StandardCharsets.ISO_8859_1));
            boolean noBody = method.equals("HEAD") || status == 204 || status == 304;
            boolean untilClose = !noBody && !response.has("transfer-encoding", "chunked")
                    && response.value("content-length") == null;
            bytesOut = noBody ? 0 : relayBody(response, upstream.in, toClient, untilClose, bytesPerSecond);
            toClient.flush();
            if (untilClose || response.has("connection", "close")) {
                upstream.drop();
            }
            return !untilClose;
        } finally {
            long end = System.nanoTime();
            log.add(new Request(method, keyAndQuery[0], keyAndQuery[1], status, bytesIn, bytesOut, start, end));
            lastActivity = end;
            inFlight.decrementAndGet();
        }
    }

    /** Answers {@code Expect: 100-continue} at once; the upstream gets the request without it. */
    private static void answerExpectContinue(Head request, OutputStream toClient) throws IOException {
        if (request.has("expect", "100-continue")) {
            toClient.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            toClient.flush();
        }
    }

    /** Holds a response until every request of a {@link #holdUntilTogether} group has arrived. */
    private static void awaitTogether(CountDownLatch hold) throws IOException {
        if (hold != null) {
            try {
                hold.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while holding a response", e);
            }
        }
    }

    /** The object key and the query of a request target. */
    private static String[] keyAndQuery(String requestTarget) {
        int q = requestTarget.indexOf('?');
        return new String[] {keyOf(q < 0 ? requestTarget : requestTarget.substring(0, q)),
                q < 0 ? "" : requestTarget.substring(q + 1)};
    }

    /** The object key of a path-style request path: everything after the bucket, percent-decoded. */
    static String keyOf(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        int slash = p.indexOf('/');
        return slash < 0 ? "" : percentDecode(p.substring(slash + 1));
    }

    private static String percentDecode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi >= 0 && lo >= 0) {
                    b.write(hi * 16 + lo);
                    i += 2;
                    continue;
                }
            }
            byte[] raw = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
            b.write(raw, 0, raw.length);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closing
        }
    }
}
