package io.keepsake.seatunnel;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A path-style S3 endpoint on 127.0.0.1 with one bucket, in memory, speaking just the requests the
 * S3 backend makes for small objects: HeadBucket, PutObject (with {@code If-None-Match: *}),
 * HeadObject, GetObject, DeleteObject, DeleteObjects, ListObjectsV2 and an empty
 * ListMultipartUploads. It checks no signature. It exists so that the plugin jar's relocated AWS
 * SDK can be driven over real HTTP in a class loader that holds only the engine's jars and the
 * plugin jar, where S3Proxy (and its own dependencies) cannot go. Thread-safe.
 */
final class TinyS3Server implements AutoCloseable {

    static final String BUCKET = "keepsake";

    private record StoredObject(byte[] body, Map<String, String> metadata, Instant modified, String etag) {
    }

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
    private static final Pattern DELETE_KEY = Pattern.compile("<Key>(.*?)</Key>", Pattern.DOTALL);

    private final HttpServer server;
    private final NavigableMap<String, StoredObject> objects = new TreeMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger etags = new AtomicInteger();

    private TinyS3Server(HttpServer server) {
        this.server = server;
    }

    /** Starts a server on a free port. */
    static TinyS3Server start() throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        TinyS3Server s3 = new TinyS3Server(http);
        http.createContext("/", s3::handle);
        http.start();
        return s3;
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** How many requests the server answered. */
    int requests() {
        return requests.get();
    }

    /** The keys stored, in order. */
    synchronized List<String> keys() {
        return List.copyOf(objects.keySet());
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            requests.incrementAndGet();
            respond(exchange);
        }
    }

    private synchronized void respond(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        String rest = path.startsWith("/" + BUCKET) ? path.substring(BUCKET.length() + 1) : null;
        if (rest == null) {
            error(exchange, 404, "NoSuchBucket");
            return;
        }
        String key = rest.startsWith("/") ? rest.substring(1) : rest;
        if (key.isEmpty()) {
            switch (method) {
                case "HEAD" -> send(exchange, 200, new Headers(), null);
                case "GET" -> {
                    if (query.containsKey("uploads")) {
                        xml(exchange, "<ListMultipartUploadsResult><Bucket>" + BUCKET + "</Bucket><IsTruncated>false"
                                + "</IsTruncated></ListMultipartUploadsResult>");
                    } else {
                        list(exchange, query);
                    }
                }
                case "POST" -> {
                    if (!query.containsKey("delete")) {
                        error(exchange, 501, "NotImplemented");
                        return;
                    }
                    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    StringBuilder out = new StringBuilder("<DeleteResult>");
                    Matcher m = DELETE_KEY.matcher(body);
                    while (m.find()) {
                        String k = unescape(m.group(1));
                        objects.remove(k);
                        out.append("<Deleted><Key>").append(escape(k)).append("</Key></Deleted>");
                    }
                    xml(exchange, out.append("</DeleteResult>").toString());
                }
                default -> error(exchange, 501, "NotImplemented");
            }
            return;
        }
        switch (method) {
            case "PUT" -> {
                if (query.containsKey("uploadId") || exchange.getRequestHeaders().containsKey("x-amz-copy-source")) {
                    error(exchange, 501, "NotImplemented");
                    return;
                }
                byte[] body = exchange.getRequestBody().readAllBytes();
                String contentSha = exchange.getRequestHeaders().getFirst("x-amz-content-sha256");
                String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
                if (contentSha != null && contentSha.startsWith("STREAMING-")
                        || encoding != null && encoding.contains("aws-chunked")) {
                    body = unchunk(body);
                }
                if ("*".equals(exchange.getRequestHeaders().getFirst("If-None-Match")) && objects.containsKey(key)) {
                    error(exchange, 412, "PreconditionFailed");
                    return;
                }
                Map<String, String> metadata = new HashMap<>();
                exchange.getRequestHeaders().forEach((name, values) -> {
                    if (name.toLowerCase().startsWith("x-amz-meta-")) {
                        metadata.put(name.toLowerCase(), values.get(0));
                    }
                });
                String etag = "\"" + Integer.toHexString(etags.incrementAndGet()) + "\"";
                objects.put(key, new StoredObject(body, metadata, Instant.now().truncatedTo(ChronoUnit.SECONDS), etag));
                Headers h = new Headers();
                h.add("ETag", etag);
                send(exchange, 200, h, null);
            }
            case "GET", "HEAD" -> {
                StoredObject o = objects.get(key);
                if (o == null) {
                    error(exchange, 404, "NoSuchKey");
                    return;
                }
                Headers h = new Headers();
                h.add("ETag", o.etag());
                h.add("Last-Modified", HTTP_DATE.format(o.modified()));
                h.add("Content-Type", "application/octet-stream");
                o.metadata().forEach(h::add);
                if (method.equals("HEAD")) {
                    h.add("Content-Length", Integer.toString(o.body().length));
                    exchange.getResponseHeaders().putAll(h);
                    exchange.sendResponseHeaders(200, -1);
                } else {
                    send(exchange, 200, h, o.body());
                }
            }
            case "DELETE" -> {
                objects.remove(key);
                send(exchange, 204, new Headers(), null);
            }
            default -> error(exchange, 501, "NotImplemented");
        }
    }

    private void list(HttpExchange exchange, Map<String, String> query) throws IOException {
        String prefix = query.getOrDefault("prefix", "");
        String delimiter = query.get("delimiter");
        String after = query.getOrDefault("start-after", "");
        StringBuilder out = new StringBuilder("<ListBucketResult><Name>" + BUCKET + "</Name><Prefix>" + escape(prefix)
                + "</Prefix><IsTruncated>false</IsTruncated>");
        TreeSet<String> common = new TreeSet<>();
        int count = 0;
        for (Map.Entry<String, StoredObject> e : objects.tailMap(prefix, true).entrySet()) {
            String k = e.getKey();
            if (!k.startsWith(prefix)) {
                break;
            }
            if (k.compareTo(after) <= 0) {
                continue;
            }
            int cut = delimiter == null ? -1 : k.indexOf(delimiter, prefix.length());
            if (cut >= 0) {
                common.add(k.substring(0, cut + delimiter.length()));
                continue;
            }
            StoredObject o = e.getValue();
            out.append("<Contents><Key>").append(escape(k)).append("</Key><LastModified>")
                    .append(DateTimeFormatter.ISO_INSTANT.format(o.modified())).append("</LastModified><ETag>")
                    .append(escape(o.etag())).append("</ETag><Size>").append(o.body().length)
                    .append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
            count++;
        }
        for (String p : common) {
            out.append("<CommonPrefixes><Prefix>").append(escape(p)).append("</Prefix></CommonPrefixes>");
        }
        out.append("<KeyCount>").append(count + common.size()).append("</KeyCount></ListBucketResult>");
        xml(exchange, out.toString());
    }

    /** The payload of an {@code aws-chunked} body: {@code <hex size>[;signature]\r\n<bytes>\r\n}..., ending with size 0. */
    private static byte[] unchunk(byte[] body) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int at = 0;
        while (at < body.length) {
            int eol = at;
            while (eol + 1 < body.length && !(body[eol] == '\r' && body[eol + 1] == '\n')) {
                eol++;
            }
            String header = new String(body, at, eol - at, StandardCharsets.US_ASCII);
            int semicolon = header.indexOf(';');
            int size = Integer.parseInt((semicolon < 0 ? header : header.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                break;
            }
            out.write(body, eol + 2, size);
            at = eol + 2 + size + 2;
        }
        return out.toByteArray();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            q.put(URLDecoder.decode(name, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return q;
    }

    private static void xml(HttpExchange exchange, String body) throws IOException {
        Headers h = new Headers();
        h.add("Content-Type", "application/xml");
        send(exchange, 200, h, ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>" + body.replaceFirst(">",
                " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">")).getBytes(StandardCharsets.UTF_8));
    }

    private static void error(HttpExchange exchange, int status, String code) throws IOException {
        Headers h = new Headers();
        h.add("Content-Type", "application/xml");
        byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + code
                + "</Message></Error>").getBytes(StandardCharsets.UTF_8);
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.getResponseHeaders().putAll(h);
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        send(exchange, status, h, body);
    }

    private static void send(HttpExchange exchange, int status, Headers headers, byte[] body) throws IOException {
        exchange.getResponseHeaders().putAll(headers);
        exchange.getResponseHeaders().add("x-amz-request-id", "tiny");
        if (body == null) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String unescape(String s) {
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'")
                .replace("&amp;", "&");
    }
}
