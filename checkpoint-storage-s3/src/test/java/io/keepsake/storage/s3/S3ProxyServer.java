package io.keepsake.storage.s3;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An S3Proxy 4.0.0 server in this JVM on a free port of 127.0.0.1, on its transient-nio2 store (an
 * in-memory file system), with one bucket, {@value #BUCKET}, and fixed credentials; one per test
 * class. Child JVMs reach it over HTTP with {@link #factoryKeys}.
 */
final class S3ProxyServer implements AutoCloseable {

    static final String BUCKET = "keepsake";
    static final String ACCESS = "keepsake-access";
    static final String SECRET = "keepsake-secret-key";

    private static final AtomicInteger DIRECTORIES = new AtomicInteger();

    private final S3Proxy proxy;
    private final URI endpoint;
    private final org.gaul.s3proxy.blobstore.BlobStore store;

    private S3ProxyServer(S3Proxy proxy, URI endpoint, org.gaul.s3proxy.blobstore.BlobStore store) {
        this.proxy = proxy;
        this.endpoint = endpoint;
        this.store = store;
    }

    /** Starts a server and creates the bucket. */
    static S3ProxyServer start() throws Exception {
        TransientNio2BlobStore store = new TransientNio2BlobStore();
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(store)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET)
                .build();
        proxy.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        S3ProxyServer server = new S3ProxyServer(proxy, URI.create("http://127.0.0.1:" + proxy.getPort()),
                store);
        try (S3Client c = server.client()) {
            c.createBucket(b -> b.bucket(BUCKET));
        }
        return server;
    }

    /** Writes an object straight into the server's store, without HTTP: for planting thousands of keys quickly. */
    void plant(String key, byte[] content) {
        store.putBlob(BUCKET, org.gaul.s3proxy.blobstore.domain.Blob.builder(key)
                .payload(com.google.common.io.ByteSource.wrap(content)).contentLength(content.length).build(),
                org.gaul.s3proxy.blobstore.options.PutOptions.NONE);
    }

    URI endpoint() {
        return endpoint;
    }

    /** A client of the server (path-style, the test credentials). */
    S3Client client() {
        return client(endpoint, 4);
    }

    /** A client of {@code endpoint} (this server, or a proxy in front of it) with {@code attempts} tries per request. */
    static S3Client client(URI endpoint, int attempts) {
        return client(endpoint, attempts, null);
    }

    /** As {@link #client(URI, int)}, with {@code interceptor} (when not null) seeing every request. */
    static S3Client client(URI endpoint, int attempts,
                           software.amazon.awssdk.core.interceptor.ExecutionInterceptor interceptor) {
        return S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS, SECRET)))
                .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false).connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(30)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder().expectContinueEnabled(false)
                        .build())
                .overrideConfiguration(o -> {
                    o.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy
                            .standardRetryStrategy().toBuilder().maxAttempts(attempts).build());
                    if (interceptor != null) {
                        o.addExecutionInterceptor(interceptor);
                    }
                })
                .build();
    }

    /** A new file system on the server, whose default bucket is {@value #BUCKET}. */
    S3FileSystem newFileSystem() {
        return new S3FileSystem(client(), BUCKET, S3FileSystem.MIN_PART_SIZE, true, endpoint.toString());
    }

    /** A key prefix no other test uses: {@code s3://keepsake/<name>-<n>}. */
    static String freshDirectory(String name) {
        return S3Path.SCHEME + BUCKET + "/" + name + "-" + DIRECTORIES.incrementAndGet();
    }

    /** The factory keys for a storage on this server with {@code namespace}, as SeaTunnel users write them. */
    Map<String, String> factoryKeys(String namespace) {
        return factoryKeys(endpoint, namespace);
    }

    /** The factory keys for a storage reached through {@code endpoint}. */
    static Map<String, String> factoryKeys(URI endpoint, String namespace) {
        Map<String, String> m = new TreeMap<>();
        m.put("storage.type", "s3");
        m.put("namespace", namespace);
        m.put("s3.bucket", "s3a://" + BUCKET);
        m.put("fs.s3a.endpoint", endpoint.toString());
        m.put("fs.s3a.access.key", ACCESS);
        m.put("fs.s3a.secret.key", SECRET);
        m.put("fs.s3a.path.style.access", "true");
        m.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        m.put("fs.s3a.multipart.size", "5M");
        return m;
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
