package io.keepsake.bench;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.domain.Blob;
import org.gaul.s3proxy.blobstore.options.PutOptions;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An S3Proxy 4.0.0 server in this JVM on a free port of 127.0.0.1, on its transient-nio2 store (an
 * in-memory file system), with one bucket, {@value #BUCKET}, and fixed credentials. Put a
 * {@link LatencyProxy} in front of {@link #endpoint()} to give it an object store's latency.
 */
public final class LocalS3 implements AutoCloseable {

    /** The bucket the server starts with. */
    public static final String BUCKET = "bench";
    /** The access key the server accepts. */
    public static final String ACCESS = "bench-access";
    /** The secret key the server accepts. */
    public static final String SECRET = "bench-secret-key";

    private final S3Proxy proxy;
    private final BlobStore store;
    private final URI endpoint;

    private LocalS3(S3Proxy proxy, BlobStore store, URI endpoint) {
        this.proxy = proxy;
        this.store = store;
        this.endpoint = endpoint;
    }

    /**
     * Starts a server and creates {@value #BUCKET}.
     *
     * @throws Exception when S3Proxy does not start within 30 s
     */
    public static LocalS3 start() throws Exception {
        TransientNio2BlobStore store = new TransientNio2BlobStore();
        S3Proxy proxy = S3Proxy.builder().blobStore(store).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET).build();
        proxy.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() - deadline > 0) {
                proxy.stop();
                throw new IllegalStateException("S3Proxy did not start within 30 s: " + proxy.getState());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        LocalS3 s3 = new LocalS3(proxy, store, URI.create("http://127.0.0.1:" + proxy.getPort()));
        try (S3Client c = client(s3.endpoint)) {
            c.createBucket(b -> b.bucket(BUCKET));
        }
        return s3;
    }

    /** The server's own {@code http://127.0.0.1:port}, without latency. */
    public URI endpoint() {
        return endpoint;
    }

    /**
     * Writes an object straight into the server's store, without HTTP and so without a proxy's
     * delay: for seeding thousands of keys quickly.
     */
    public void plant(String key, byte[] content) {
        store.putBlob(BUCKET, Blob.builder(key).payload(com.google.common.io.ByteSource.wrap(content))
                .contentLength(content.length).build(), PutOptions.NONE);
    }

    /**
     * A client of {@code endpoint} (this server, or a proxy in front of it) as the S3 backend builds
     * its own: path-style, the server's credentials, checksums only when required, no
     * {@code Expect: 100-continue}.
     */
    public static S3Client client(URI endpoint) {
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS, SECRET)))
                .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false)
                        .maxConnections(64).socketTimeout(Duration.ofMinutes(2)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build())
                .build();
    }

    /** Stops the server; its objects are gone. */
    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
