package io.keepsake.bench;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;

/**
 * A {@link LocalS3} for a test class: started before its first test, with a client of it, and
 * stopped after its last. Register it as a static field with {@code @RegisterExtension}.
 */
final class LocalS3Extension implements BeforeAllCallback, AfterAllCallback {

    private LocalS3 s3;
    private S3Client client;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        s3 = LocalS3.start();
        client = LocalS3.client(s3.endpoint());
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        client.close();
        s3.close();
    }

    /** The server's own endpoint, without latency. */
    URI endpoint() {
        return s3.endpoint();
    }

    /** A client of the server, without latency. */
    S3Client client() {
        return client;
    }
}
