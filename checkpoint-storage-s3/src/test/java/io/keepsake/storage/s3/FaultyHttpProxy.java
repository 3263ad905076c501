package io.keepsake.storage.s3;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 proxy in front of the S3 server that counts requests and spoils the k-th one: its
 * response is lost after the server applied it, it is answered 500 or 503 without reaching the
 * server, or its connection is reset before anything is forwarded. Every request is forwarded
 * with {@code Connection: close}, so one connection carries one request and the count is exact.
 * Thread-safe.
 */
final class FaultyHttpProxy implements AutoCloseable {

    /** What happens to the spoiled request. */
    enum Fault {
        /** The server applies the request; its response never reaches the client (the connection is reset). */
        DROP_RESPONSE,
        /** The client gets a 500 InternalError; the server never sees the request. */
        HTTP_500,
        /** The client gets a 503 SlowDown; the server never sees the request. */
        HTTP_503,
        /** The connection is reset before the request is forwarded. */
        RESET
    }

    private final ServerSocket listener;
    private final URI upstream;
    private final AtomicInteger counter = new AtomicInteger();
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());
    private volatile int failAt = -1;
    private volatile Fault fault = Fault.DROP_RESPONSE;
    private volatile boolean closed;
    private volatile boolean ignoreConditionOnComplete;
    private final AtomicInteger conditionalCompletesAnswered = new AtomicInteger();

    FaultyHttpProxy(URI upstream) throws IOException {
        this.upstream = upstream;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "faulty-http-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Spoils request number {@code k} (1-based, counted from now) with {@code fault}. */
    void arm(int k, Fault fault) {
        log.clear();
        this.fault = fault;
        counter.set(0);
        this.failAt = k;
    }

    /** Stops spoiling and counts afresh. */
    void disarm() {
        failAt = -1;
        counter.set(0);
        log.clear();
    }

    /**
     * From now on (or no longer), answers every {@code CompleteMultipartUpload} that carries
     * {@code If-None-Match} itself with 200 and a completion result, without forwarding it, as a
     * store that ignores the condition on that request answers; the upload stays pending on the
     * server until it is aborted.
     */
    void ignoreConditionOnComplete(boolean on) {
        ignoreConditionOnComplete = on;
    }

    /** How many conditional completions were answered as a store that ignores the condition. */
    int conditionalCompletesAnswered() {
        return conditionalCompletesAnswered.get();
    }

    /** Requests since the last {@link #arm} or {@link #disarm}. */
    int count() {
        return counter.get();
    }

    /** The requests counted, as "n METHOD target" lines. */
    List<String> requests() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Thread t = new Thread(() -> handle(client), "faulty-http-proxy-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) {
                    throw new IllegalStateException("proxy accept failed", e);
                }
            }
        }
    }

    private void handle(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            String head = readHead(in);
            if (head == null) {
                return;
            }
            int n = counter.incrementAndGet();
            String requestLine = head.substring(0, head.indexOf("\r\n"));
            log.add(n + " " + requestLine);
            Fault spoil = n == failAt ? fault : null;
            if (spoil == Fault.RESET) {
                client.setSoLinger(true, 0);
                return;
            }
            byte[] body = readBody(in, head);
            OutputStream out = client.getOutputStream();
            if (ignoreConditionOnComplete && requestLine.startsWith("POST ") && requestLine.contains("uploadId=")
                    && head.toLowerCase(Locale.ROOT).contains("\r\nif-none-match:")) {
                conditionalCompletesAnswered.incrementAndGet();
                byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUploadResult"
                        + " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><ETag>\"00000000000000000000000000000000-1\""
                        + "</ETag></CompleteMultipartUploadResult>").getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: " + xml.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(xml);
                out.flush();
                return;
            }
            if (spoil == Fault.HTTP_500 || spoil == Fault.HTTP_503) {
                String code = spoil == Fault.HTTP_500 ? "InternalError" : "SlowDown";
                byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code
                        + "</Code><Message>injected by the test proxy</Message></Error>").getBytes(StandardCharsets.UTF_8);
                String status = spoil == Fault.HTTP_500 ? "500 Internal Server Error" : "503 Slow Down";
                out.write(("HTTP/1.1 " + status + "\r\nContent-Type: application/xml\r\nContent-Length: " + xml.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(xml);
                out.flush();
                return;
            }
            byte[] response;
            try (Socket server = new Socket(upstream.getHost(), upstream.getPort())) {
                OutputStream up = server.getOutputStream();
                up.write(withConnectionClose(head).getBytes(StandardCharsets.ISO_8859_1));
                up.write(body);
                up.flush();
                response = server.getInputStream().readAllBytes();
            }
            if (spoil == Fault.DROP_RESPONSE) {
                client.setSoLinger(true, 0);
                return;
            }
            out.write(response);
            out.flush();
        } catch (IOException e) {
            // the client gave up on this connection; nothing to do
        }
    }

    private static String withConnectionClose(String head) {
        StringBuilder b = new StringBuilder();
        for (String line : head.split("\r\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            if (line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
                continue;
            }
            b.append(line).append("\r\n");
        }
        return b.append("Connection: close\r\n\r\n").toString();
    }

    /** The request line and headers up to the empty line, or null at end of stream. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int c = in.read();
            if (c < 0) {
                return null;
            }
            b.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1
                    : (c == '\r' ? 1 : 0);
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static byte[] readBody(InputStream in, String head) throws IOException {
        String lower = head.toLowerCase(Locale.ROOT);
        int cl = lower.indexOf("\r\ncontent-length:");
        if (lower.contains("\r\ntransfer-encoding: chunked")) {
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            while (true) {
                String sizeLine = readLine(in, raw);
                int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
                if (size == 0) {
                    while (!readLine(in, raw).isEmpty()) {
                        // trailers
                    }
                    return raw.toByteArray();
                }
                raw.write(in.readNBytes(size + 2));
            }
        }
        if (cl < 0) {
            return new byte[0];
        }
        int end = lower.indexOf("\r\n", cl + 2);
        long length = Long.parseLong(head.substring(cl + "\r\ncontent-length:".length(), end).trim());
        return in.readNBytes((int) length);
    }

    private static String readLine(InputStream in, ByteArrayOutputStream copy) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("end of stream in a chunked body");
            }
            copy.write(c);
            if (prev == '\r' && c == '\n') {
                byte[] b = line.toByteArray();
                return new String(b, 0, b.length - 1, StandardCharsets.ISO_8859_1);
            }
            line.write(c);
            prev = c;
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
    }
}
