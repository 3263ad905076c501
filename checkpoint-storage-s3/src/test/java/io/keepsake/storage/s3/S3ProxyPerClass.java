package io.keepsake.storage.s3;

import io.keepsake.fixtures.PerClassResource;
import io.keepsake.fixtures.tck.StorageTarget;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.Map;

/**
 * One in-process {@link S3ProxyServer} for a test class:
 * {@code @RegisterExtension static final S3ProxyPerClass server = new S3ProxyPerClass();} starts it
 * before the class and stops it after, with the shared file system and client it handed out.
 */
final class S3ProxyPerClass extends PerClassResource<S3ProxyServer> {

    @Override
    protected S3ProxyServer start(Class<?> testClass) throws Exception {
        return S3ProxyServer.start();
    }

    /** One file system on the server for the whole class; storages opened on it never close it. */
    S3FileSystem fs() {
        return shared("file system", () -> running().newFileSystem());
    }

    /** One client of the server for the whole class. */
    S3Client client() {
        return shared("client", () -> running().client());
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

    /** A new file system on the server whose client shows every request to {@code interceptor}; the caller closes it. */
    S3FileSystem newFileSystem(ExecutionInterceptor interceptor) {
        return new S3FileSystem(S3ProxyServer.client(endpoint(), 4, interceptor), S3ProxyServer.BUCKET,
                S3FileSystem.MIN_PART_SIZE, true, endpoint().toString());
    }

    /** See {@link S3ProxyServer#plant(String, byte[])}. */
    void plant(String key, byte[] content) {
        running().plant(key, content);
    }

    /** See {@link S3ProxyServer#factoryKeys(String)}. */
    Map<String, String> factoryKeys(String namespace) {
        return running().factoryKeys(namespace);
    }

    /** The factory id {@code s3} and its keys for a root {@code ns} in a directory no other test uses, named after {@code name}. */
    StorageTarget target(String name) {
        String dir = S3ProxyServer.freshDirectory(name);
        return new StorageTarget("s3", factoryKeys(dir.substring((S3Path.SCHEME + S3ProxyServer.BUCKET).length()) + "/ns"));
    }
}
