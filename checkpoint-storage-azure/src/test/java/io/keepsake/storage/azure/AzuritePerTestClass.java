package io.keepsake.storage.azure;

import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.storage.blob.BlobServiceClient;
import io.keepsake.fixtures.azure.AzuritePerClass;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.azure.internal.AzureSettings;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One Azurite for a test class with the container {@value #CONTAINER}, and the backend's file
 * systems on it: blocks of one chunk (1 MiB), so that a payload of a few MiB is staged in blocks.
 */
final class AzuritePerTestClass extends AzuritePerClass {

    static final String CONTAINER = "keepsake";
    static final int BLOCK = ChunkDigests.CHUNK_SIZE;

    private static final AtomicInteger DIRECTORIES = new AtomicInteger();

    @Override
    protected AzuriteServer start(Class<?> testClass) throws Exception {
        AzuriteServer server = super.start(testClass);
        server.createContainer(CONTAINER);
        return server;
    }

    /** One file system on the server for the whole class; storages opened on it never close it. */
    AzureFileSystem fs() {
        return shared("file system", () -> newFileSystem(endpoint(), 4, null));
    }

    /** A file system reaching {@code endpoint} (this server or a proxy in front of it); the caller closes it. */
    static AzureFileSystem newFileSystem(URI endpoint, int tries, HttpPipelinePolicy policy) {
        return new AzureFileSystem(client(endpoint, tries, policy), AzuriteServer.ACCOUNT, CONTAINER, BLOCK, true,
                endpoint.toString());
    }

    /** A file system on {@code endpoint} with {@code blockSize} bytes per block; the caller closes it. */
    static AzureFileSystem newFileSystemWithBlock(URI endpoint, int blockSize) {
        return new AzureFileSystem(client(endpoint, 4, null), AzuriteServer.ACCOUNT, CONTAINER, blockSize, true,
                endpoint.toString());
    }

    /** A client of {@code endpoint} with the emulator's key; {@code policy}, when not null, sees every try. */
    static BlobServiceClient client(URI endpoint, int tries, HttpPipelinePolicy policy) {
        Map<String, String> keys = AzuriteServer.factoryKeysFor(endpoint, "azure://" + CONTAINER + "/x");
        AzureSettings settings = AzureSettings.from(StorageOptions.parse(keys, "azure", AzureSettings.KEYS,
                List.of(AzureSettings.HADOOP_PREFIX), AzureSettings.STORAGE_TYPES));
        return settings.client(Duration.ofSeconds(30), tries, policy);
    }

    /** A directory no other test uses: {@code azure://keepsake/<name>-<n>}. */
    static String freshDirectory(String name) {
        return AzurePath.SCHEME + CONTAINER + "/" + name + "-" + DIRECTORIES.incrementAndGet();
    }

    /** The factory keys for a storage on this server with {@code namespace}, blocks of one chunk. */
    Map<String, String> keys(String namespace) {
        Map<String, String> m = factoryKeys(namespace);
        m.put(AzureSettings.BLOCK_SIZE, "1M");
        return m;
    }

    /** The factory id {@code azure} and its {@link #keys} for a root {@code ns} in a directory no other test uses, named after {@code name}. */
    StorageTarget target(String name) {
        return new StorageTarget("azure", keys(freshDirectory(name) + "/ns"));
    }
}
