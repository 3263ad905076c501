package io.keepsake.bench;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An S3 client through {@link LatencyProxy}: every kind of request works and is logged as it happened. */
class LatencyProxyTest {

    @RegisterExtension
    static final LocalS3Extension S3 = new LocalS3Extension();

    private static LatencyProxy proxy;
    private static S3Client client;

    @BeforeAll
    static void start() {
        proxy = LatencyProxy.start(S3.endpoint(), Duration.ZERO, 0);
        client = LocalS3.client(proxy.endpoint());
    }

    @AfterAll
    static void stop() {
        client.close();
        proxy.close();
    }

    @BeforeEach
    void reset() {
        proxy.timeToFirstByte(Duration.ZERO);
        proxy.bytesPerSecond(0);
        clearSettled(proxy);
    }

    @Test
    void putGetListHeadAndTheirLogEntries() {
        byte[] body = bytes(300_000, 1);
        client.putObject(b -> b.bucket(LocalS3.BUCKET).key("a/b c.bin"), RequestBody.fromBytes(body));
        byte[] read = client.getObjectAsBytes(b -> b.bucket(LocalS3.BUCKET).key("a/b c.bin")).asByteArray();
        assertThat(read).isEqualTo(body);
        assertThat(client.headObject(b -> b.bucket(LocalS3.BUCKET).key("a/b c.bin")).contentLength())
                .isEqualTo(body.length);
        assertThat(client.listObjectsV2(b -> b.bucket(LocalS3.BUCKET).prefix("a/")).contents())
                .extracting(o -> o.key()).containsExactly("a/b c.bin");

        List<LatencyProxy.Request> log = settledLog(proxy);
        assertThat(log).extracting(LatencyProxy.Request::method).containsExactly("PUT", "GET", "HEAD", "GET");
        LatencyProxy.Request put = log.get(0);
        assertThat(put.key()).isEqualTo("a/b c.bin");
        assertThat(put.status()).isEqualTo(200);
        assertThat(put.bytesIn()).as("the body as framed (aws-chunked signatures included)")
                .isBetween((long) body.length, body.length + 4096L);
        LatencyProxy.Request get = log.get(1);
        assertThat(get.bytesOut()).isEqualTo(body.length);
        assertThat(get.bytesIn()).isZero();
        LatencyProxy.Request head = log.get(2);
        assertThat(head.bytesOut()).as("a HEAD response has no body").isZero();
        LatencyProxy.Request list = log.get(3);
        assertThat(list.key()).as("a listing is a request on the bucket").isEmpty();
        assertThat(list.query()).contains("list-type=2").contains("prefix=a%2F");
        assertThat(list.bytesOut()).isPositive();
        assertThat(LatencyProxy.bytesMoved(log)).isGreaterThanOrEqualTo(2L * body.length);
    }

    @Test
    void multipartUploadAndConditionalPutThroughTheProxy() {
        String key = "mp/object";
        String upload = client.createMultipartUpload(b -> b.bucket(LocalS3.BUCKET).key(key)).uploadId();
        byte[] part1 = bytes(5 << 20, 2);
        byte[] part2 = bytes(1000, 3);
        List<CompletedPart> parts = new ArrayList<>();
        byte[][] all = {part1, part2};
        for (int i = 0; i < 2; i++) {
            int n = i + 1;
            String etag = client.uploadPart(b -> b.bucket(LocalS3.BUCKET).key(key).uploadId(upload).partNumber(n),
                    RequestBody.fromBytes(all[i])).eTag();
            parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
        }
        client.completeMultipartUpload(b -> b.bucket(LocalS3.BUCKET).key(key).uploadId(upload)
                .multipartUpload(m -> m.parts(parts)));
        byte[] whole = client.getObjectAsBytes(b -> b.bucket(LocalS3.BUCKET).key(key)).asByteArray();
        assertThat(whole.length).isEqualTo(part1.length + part2.length);
        assertThat(Arrays.copyOfRange(whole, part1.length, whole.length)).isEqualTo(part2);

        client.putObject(b -> b.bucket(LocalS3.BUCKET).key("cond").ifNoneMatch("*"), RequestBody.fromString("one"));
        assertThatThrownBy(() -> client.putObject(b -> b.bucket(LocalS3.BUCKET).key("cond").ifNoneMatch("*"),
                RequestBody.fromString("two")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
        assertThat(client.getObjectAsBytes(b -> b.bucket(LocalS3.BUCKET).key("cond")).asUtf8String())
                .isEqualTo("one");

        List<LatencyProxy.Request> log = settledLog(proxy);
        assertThat(log).extracting(r -> r.method() + " " + r.status()).containsExactly("POST 200", "PUT 200",
                "PUT 200", "POST 200", "GET 200", "PUT 200", "PUT 412", "GET 200");
        assertThat(log.get(0).query()).isEqualTo("uploads");
        assertThat(log.get(1).query()).contains("partNumber=1").contains("uploadId=");
        assertThat(log.get(1).bytesIn()).isBetween((long) part1.length, part1.length + 65_536L);
        assertThat(log.get(2).bytesIn()).isBetween((long) part2.length, part2.length + 4096L);
        assertThat(log.get(4).bytesOut()).isEqualTo(whole.length);
        assertThat(log.get(6).key()).isEqualTo("cond");
    }

    @Test
    void expectContinueIsAnsweredAndTheBodyForwarded() {
        try (S3Client expecting = S3Client.builder().endpointOverride(proxy.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(LocalS3.ACCESS, LocalS3.SECRET)))
                .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(true))
                .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(true).build())
                .build()) {
            byte[] body = bytes(200_000, 4);
            expecting.putObject(b -> b.bucket(LocalS3.BUCKET).key("expect/one"), RequestBody.fromBytes(body));
            expecting.putObject(b -> b.bucket(LocalS3.BUCKET).key("expect/two"), RequestBody.fromBytes(body));
            assertThat(client.getObjectAsBytes(b -> b.bucket(LocalS3.BUCKET).key("expect/two")).asByteArray())
                    .isEqualTo(body);
        }
        assertThat(settledLog(proxy)).extracting(r -> r.method() + " " + r.key() + " " + r.status())
                .containsExactly("PUT expect/one 200", "PUT expect/two 200", "GET expect/two 200");
    }

    /** A chunked request body (as Hadoop's S3A may send) is relayed whole, and the connection carries on. */
    @Test
    void chunkedRequestBodiesAreRelayed() throws Exception {
        S3Proxy open = S3Proxy.builder().blobStore(new TransientNio2BlobStore())
                .endpoint(URI.create("http://127.0.0.1:0")).awsAuthentication(AuthenticationType.NONE, null, null)
                .build();
        open.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!"STARTED".equals(open.getState()) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        try (LatencyProxy p = LatencyProxy.start(URI.create("http://127.0.0.1:" + open.getPort()),
                Duration.ofMillis(5), 0)) {
            assertThat(send(p, "PUT", "/open", null, -1)).isEqualTo(200);
            byte[] body = bytes(100_000, 5);
            int status = send(p, "PUT", "/open/chunked", body, 7_000);
            byte[] read = get(p, "/open/chunked");
            List<LatencyProxy.Request> log = settledLog(p);
            assertThat(log).extracting(LatencyProxy.Request::method).containsExactly("PUT", "PUT", "GET");
            LatencyProxy.Request put = log.get(1);
            assertThat(put.status()).isEqualTo(status);
            assertThat(put.bytesIn()).as("the body with its chunk framing").isGreaterThan(body.length);
            if (status == 200) {
                assertThat(read).isEqualTo(body);
            } else {
                // a store that wants a length answers 411 and the connection carries the next request
                assertThat(status).isEqualTo(411);
                assertThat(log.get(2).status()).isEqualTo(404);
            }
        } finally {
            open.stop();
        }
    }

    @Test
    void sequentialRequestsAreSequentialRoundTripsAndParallelOnesOne() throws Exception {
        client.putObject(b -> b.bucket(LocalS3.BUCKET).key("rt/x"), RequestBody.fromString("x"));
        proxy.timeToFirstByte(Duration.ofMillis(50));
        clearSettled(proxy);
        int n = 6;
        for (int i = 0; i < n; i++) {
            client.headObject(b -> b.bucket(LocalS3.BUCKET).key("rt/x"));
        }
        List<LatencyProxy.Request> sequential = settledLog(proxy);
        assertThat(sequential).hasSize(n);
        assertThat(LatencyProxy.sequentialRoundTrips(sequential)).isEqualTo(n);
        assertThat(sequential).allSatisfy(r -> assertThat(r.nanos()).isGreaterThanOrEqualTo(50_000_000L));

        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            parallelHeads(pool, n); // opens the connections
            clearSettled(proxy);
            // on a loaded machine a thread may be scheduled late: hold the responses until all are in flight
            proxy.holdUntilTogether(n);
            parallelHeads(pool, n);
        } finally {
            pool.shutdownNow();
        }
        List<LatencyProxy.Request> parallel = settledLog(proxy);
        assertThat(parallel).hasSize(n);
        assertThat(LatencyProxy.sequentialRoundTrips(parallel)).as(parallel.toString()).isEqualTo(1);
    }

    private static void parallelHeads(ExecutorService pool, int n) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            done.add(pool.submit(() -> {
                go.await();
                return client.headObject(b -> b.bucket(LocalS3.BUCKET).key("rt/x"));
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void bodiesArePacedToTheCap() {
        byte[] body = bytes(1 << 20, 6);
        client.putObject(b -> b.bucket(LocalS3.BUCKET).key("paced"), RequestBody.fromBytes(body));
        proxy.bytesPerSecond(8L << 20);
        clearSettled(proxy);
        client.getObjectAsBytes(b -> b.bucket(LocalS3.BUCKET).key("paced"));
        LatencyProxy.Request get = settledLog(proxy).get(0);
        assertThat(get.bytesOut()).isEqualTo(body.length);
        assertThat(get.nanos()).as("1 MiB at 8 MiB/s takes at least 125 ms").isGreaterThanOrEqualTo(125_000_000L);
    }

    @Test
    void roundTripsOfAGivenLog() {
        List<LatencyProxy.Request> log = List.of(r(0, 10), r(5, 15), r(10, 20), r(12, 30), r(21, 25), r(26, 40));
        // 0-10, 10-20, 21-25, 26-40
        assertThat(LatencyProxy.sequentialRoundTrips(log)).isEqualTo(4);
        assertThat(LatencyProxy.sequentialRoundTrips(List.of())).isZero();
        assertThat(LatencyProxy.keyOf("/bucket/a%2Fb/c%20d")).isEqualTo("a/b/c d");
        assertThat(LatencyProxy.keyOf("/bucket")).isEmpty();
    }

    /**
     * The log once no request is in flight: the proxy logs a request after its response's last
     * byte is forwarded, so a client call can return just before its entry is added.
     */
    private static List<LatencyProxy.Request> settledLog(LatencyProxy p) {
        assertThat(p.awaitQuiet(Duration.ZERO, Duration.ofSeconds(30))).as("requests still in flight").isTrue();
        return p.requests();
    }

    /** Empties the log once the requests made so far are in it. */
    private static void clearSettled(LatencyProxy p) {
        settledLog(p);
        p.clearLog();
    }

    private static LatencyProxy.Request r(long start, long end) {
        return new LatencyProxy.Request("GET", "k", "", 200, 0, 0, start, end);
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static int send(LatencyProxy p, String method, String path, byte[] body, int chunk) throws Exception {
        HttpURLConnection c = (HttpURLConnection) p.endpoint().resolve(path).toURL().openConnection();
        c.setRequestMethod(method);
        if (body != null) {
            c.setDoOutput(true);
            c.setChunkedStreamingMode(chunk);
            try (OutputStream out = c.getOutputStream()) {
                out.write(body);
            }
        } else if (method.equals("PUT")) {
            c.setDoOutput(true);
            c.setFixedLengthStreamingMode(0);
            c.getOutputStream().close();
        }
        int status = c.getResponseCode();
        try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
            if (in != null) {
                in.readAllBytes();
            }
        }
        return status;
    }

    private static byte[] get(LatencyProxy p, String path) throws Exception {
        HttpURLConnection c = (HttpURLConnection) p.endpoint().resolve(path).toURL().openConnection();
        int status = c.getResponseCode();
        try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
            return in == null ? new byte[0] : in.readAllBytes();
        }
    }
}
