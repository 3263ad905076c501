package io.keepsake.seatunnel;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real S3-compatible server for this module's tests: S3Proxy 4.0.0 started in a child JVM by the
 * S3 backend's test main ({@code io.keepsake.storage.s3.S3ProxyMain}), so that S3Proxy's
 * dependencies stay off this module's class path, which holds the engine's. The child's class path
 * is the one the S3 module's build wrote ({@code checkpoint-storage-s3/target/s3proxy-classpath.txt})
 * with that module's test and main classes; it serves until {@link #close()} ends its standard input.
 */
final class S3ProxyProcess implements AutoCloseable {

    private static final Path S3_MODULE = Path.of("..", "checkpoint-storage-s3", "target");

    private final Process process;
    private final URI endpoint;
    private final String bucket;
    private final String accessKey;
    private final String secretKey;

    private S3ProxyProcess(Process process, URI endpoint, String bucket, String accessKey, String secretKey) {
        this.process = process;
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    /** Starts the child and waits for the line that names its endpoint. */
    static S3ProxyProcess start() throws IOException {
        Path listed = S3_MODULE.resolve("s3proxy-classpath.txt");
        if (!Files.isRegularFile(listed)) {
            throw new IllegalStateException("No " + listed.toAbsolutePath() + ": build checkpoint-storage-s3 first"
                    + " (its generate-test-resources phase writes it)");
        }
        String classPath = String.join(File.pathSeparator, S3_MODULE.resolve("test-classes").toString(),
                S3_MODULE.resolve("classes").toString(), Files.readString(listed, StandardCharsets.UTF_8).trim());
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, "io.keepsake.storage.s3.S3ProxyMain")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("ENDPOINT ")) {
            // S3Proxy's own start-up lines, if any, come before ours.
        }
        if (line == null) {
            p.destroyForcibly();
            throw new IllegalStateException("S3Proxy's child JVM ended before naming its endpoint (exit "
                    + waitFor(p) + ")");
        }
        String[] f = line.split(" ");
        return new S3ProxyProcess(p, URI.create(f[1]), f[2], f[3], f[4]);
    }

    URI endpoint() {
        return endpoint;
    }

    String bucket() {
        return bucket;
    }

    String accessKey() {
        return accessKey;
    }

    String secretKey() {
        return secretKey;
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
    public void close() throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    private static int waitFor(Process p) {
        try {
            return p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
