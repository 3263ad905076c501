package io.keepsake.storage.s3;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.Map;

/**
 * One in-process {@link S3ProxyServer} for a test class, registered as
 * {@code @RegisterExtension static final S3ProxyPerClass server = new S3ProxyPerClass();}: started
 * before the class's first test (and before its own {@code @BeforeAll} methods) and stopped after its
 * last, with the shared file system and client it handed out. Nested classes use their enclosing
 * class's server.
 */
final class S3ProxyPerClass implements BeforeAllCallback, AfterAllCallback {

    private S3ProxyServer server;
    private String owner;
    private S3FileSystem fileSystem;
    private S3Client sharedClient;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (server == null) {
            server = S3ProxyServer.start();
            owner = context.getUniqueId();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (!context.getUniqueId().equals(owner)) {
            return;
        }
        try (S3ProxyServer s = server; S3FileSystem f = fileSystem; S3Client c = sharedClient) {
            server = null;
            fileSystem = null;
            sharedClient = null;
            owner = null;
        }
    }

    private S3ProxyServer running() {
        if (server == null) {
            throw new IllegalStateException("The S3 server runs only while its test class runs");
        }
        return server;
    }

    /** One file system on the server for the whole class, closed after it; storages opened on it never close it. */
    S3FileSystem fs() {
        if (fileSystem == null) {
            fileSystem = running().newFileSystem();
        }
        return fileSystem;
    }

    /** One client of the server for the whole class, closed after it. */
    S3Client client() {
        if (sharedClient == null) {
            sharedClient = running().client();
        }
        return sharedClient;
    }

    /** See {@link S3ProxyServer#endpoint()}. */
    URI endpoint() {
        return running().endpoint();
    }

    /** A new client of the server, which the caller closes. */
    S3Client newClient() {
        return running().client();
    }

    /** A new file system on the server, which the caller closes. */
    S3FileSystem newFileSystem() {
        return running().newFileSystem();
    }

    /** See {@link S3ProxyServer#plant(String, byte[])}. */
    void plant(String key, byte[] content) {
        running().plant(key, content);
    }

    /** See {@link S3ProxyServer#factoryKeys(String)}. */
    Map<String, String> factoryKeys(String namespace) {
        return running().factoryKeys(namespace);
    }
}
