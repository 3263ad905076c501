package io.keepsake.bench;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * The HTTP/1.1 framing {@link LatencyProxy} relays: message heads, lines, and bodies by
 * {@code Content-Length}, chunks or the end of the connection, paced to a cap of bytes per second.
 */
final class HttpWire {

    static final int BUFFER = 64 * 1024;
    private static final int MAX_HEAD = 64 * 1024;

    private HttpWire() {
    }

    /**
     * Copies the body framed by {@code head} from {@code in} to {@code out}, paced to
     * {@code bytesPerSecond} (0 for no cap), and
     * returns its bytes as framed (chunk framing included).
     */
    static long relayBody(Head head, InputStream in, OutputStream out, boolean untilClose, long bytesPerSecond)
            throws IOException {
        Pacer pacer = new Pacer(bytesPerSecond);
        if (untilClose) {
            return copy(in, out, Long.MAX_VALUE, pacer, true);
        }
        if (head.has("transfer-encoding", "chunked")) {
            long total = 0;
            while (true) {
                String sizeLine = readLine(in);
                byte[] sizeBytes = (sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
                out.write(sizeBytes);
                total += sizeBytes.length;
                int semicolon = sizeLine.indexOf(';');
                long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
                if (size == 0) {
                    while (true) { // trailers, then the empty line
                        String trailer = readLine(in);
                        byte[] b = (trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
                        out.write(b);
                        total += b.length;
                        if (trailer.isEmpty()) {
                            return total;
                        }
                    }
                }
                total += copy(in, out, size, pacer, false);
                String end = readLine(in);
                if (!end.isEmpty()) {
                    throw new IOException("a chunk did not end with CRLF");
                }
                out.write('\r');
                out.write('\n');
                total += 2;
            }
        }
        String length = head.value("content-length");
        if (length == null) {
            return 0;
        }
        return copy(in, out, Long.parseLong(length.trim()), pacer, false);
    }

    private static long copy(InputStream in, OutputStream out, long length, Pacer pacer, boolean toEnd)
            throws IOException {
        byte[] buffer = new byte[BUFFER];
        long done = 0;
        while (done < length) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, length - done));
            if (n < 0) {
                if (toEnd) {
                    return done;
                }
                throw new EOFException("the body ended after " + done + " of " + length + " bytes");
            }
            pacer.account(n);
            out.write(buffer, 0, n);
            done += n;
        }
        return done;
    }

    /** Paces one body: after {@code n} bytes, waits until they would have taken {@code n / rate} seconds. */
    private static final class Pacer {
        private final long rate;
        private final long start = System.nanoTime();
        private long bytes;

        Pacer(long rate) {
            this.rate = rate;
        }

        void account(int n) {
            if (rate <= 0) {
                return;
            }
            bytes += n;
            long due = start + (long) (bytes * 1e9 / rate);
            pauseUntil(due);
        }
    }

    /** Waits until {@code deadline} on {@link System#nanoTime()}: the modelled latency, not synchronisation. */
    static void pauseUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("the connection ended inside a line");
            }
            if (c == '\n') {
                byte[] b = line.toByteArray();
                int n = b.length > 0 && b[b.length - 1] == '\r' ? b.length - 1 : b.length;
                return new String(b, 0, n, StandardCharsets.ISO_8859_1);
            }
            if (line.size() >= MAX_HEAD) {
                throw new IOException("a line longer than " + MAX_HEAD + " bytes");
            }
            line.write(c);
        }
    }

    /** A request or response head: its start line and header lines, as received. */
    static final class Head {
        final String startLine;
        final List<String> headers;

        private Head(String startLine, List<String> headers) {
            this.startLine = startLine;
            this.headers = headers;
        }

        /** Reads a head, or returns null when the stream ends before its first byte. */
        static Head read(InputStream in) throws IOException {
            String start;
            try {
                in.mark(1);
                if (in.read() < 0) {
                    return null;
                }
                in.reset();
                start = readLine(in);
            } catch (SocketException e) {
                return null; // reset between requests: the peer gave up on an idle connection
            }
            List<String> headers = new ArrayList<>();
            int size = start.length();
            while (true) {
                String h = readLine(in);
                if (h.isEmpty()) {
                    return new Head(start, headers);
                }
                size += h.length();
                if (size > MAX_HEAD) {
                    throw new IOException("a head longer than " + MAX_HEAD + " bytes");
                }
                headers.add(h);
            }
        }

        /** The value of the last header {@code name}, or null. */
        String value(String name) {
            String found = null;
            for (String h : headers) {
                int colon = h.indexOf(':');
                if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    found = h.substring(colon + 1).trim();
                }
            }
            return found;
        }

        /** Whether header {@code name} lists {@code token} (case-insensitive). */
        boolean has(String name, String token) {
            for (String h : headers) {
                int colon = h.indexOf(':');
                if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    for (String part : h.substring(colon + 1).split(",")) {
                        if (part.trim().toLowerCase(Locale.ROOT).equals(token)) {
                            return true;
                        }
                    }
                }
            }
            return false;
        }

        int status() throws IOException {
            String[] parts = startLine.split(" ", 3);
            try {
                return Integer.parseInt(parts[1]);
            } catch (RuntimeException e) {
                throw new IOException("malformed status line: " + startLine, e);
            }
        }

        String text() {
            StringBuilder b = new StringBuilder(startLine).append("\r\n");
            for (String h : headers) {
                b.append(h).append("\r\n");
            }
            return b.append("\r\n").toString();
        }

        String withoutHeader(String name) {
            StringBuilder b = new StringBuilder(startLine).append("\r\n");
            for (String h : headers) {
                int colon = h.indexOf(':');
                if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    continue;
                }
                b.append(h).append("\r\n");
            }
            return b.append("\r\n").toString();
        }
    }
}
