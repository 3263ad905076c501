package io.keepsake.seatunnel;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.net.URI;
import java.util.List;

/**
 * A real S3-compatible server for this module's tests: S3Proxy 4.0.0 started in a child JVM by the
 * S3 backend's test main ({@code io.keepsake.storage.s3.S3ProxyMain}), so that S3Proxy's
 * dependencies stay off this module's class path, which holds the engine's
 * ({@link ModuleServerProcess}).
 *
 * @param server    the child JVM
 * @param endpoint  the server's address
 * @param bucket    the bucket it serves
 * @param accessKey the access key it takes
 * @param secretKey the secret key it takes
 */
record S3ProxyProcess(ModuleServerProcess server, URI endpoint, String bucket, String accessKey, String secretKey)
        implements AutoCloseable {

    /** Starts the child and waits for the line that names its endpoint. */
    static S3ProxyProcess start() throws IOException {
        ModuleServerProcess server = ModuleServerProcess.start("checkpoint-storage-s3", "s3proxy-classpath.txt",
                "io.keepsake.storage.s3.S3ProxyMain", "ENDPOINT ", List.of());
        String[] f = server.readyWords();
        return new S3ProxyProcess(server, URI.create(f[0]), f[1], f[2], f[3]);
    }

    /** The keys under {@code prefix}, listed by a plain (unrelocated) SDK client of the server. */
    List<String> keys(String prefix) {
        try (S3Client c = client(endpoint, accessKey, secretKey)) {
            return c.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
                    .map(S3Object::key).toList();
        }
    }

    /** A plain (unrelocated) SDK client of an S3Proxy at {@code endpoint}, path-style; the caller closes it. */
    static S3Client client(URI endpoint, String accessKey, String secretKey) {
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .httpClientBuilder(Apache5HttpClient.builder()).build();
    }

    @Override
    public void close() throws InterruptedException {
        server.close();
    }
}
