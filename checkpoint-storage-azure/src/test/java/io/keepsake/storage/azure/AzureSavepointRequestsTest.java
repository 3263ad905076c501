package io.keepsake.storage.azure;

import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.fixtures.cost.SavepointRequests;
import io.keepsake.storage.azure.internal.AzureSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a savepoint of 4 payloads x 1 MiB costs on Azure Blob Storage (Azurite), with the default
 * block size, request by request ({@link SavepointRequests}: how many requests the caller waits for
 * and how many of them follow one another), and that a checkpoint store is one request. The log is
 * printed; the one in docs/backends.md comes from here.
 */
class AzureSavepointRequestsTest {

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    @Test
    void aSavepointWaitsForItsPayloadUploadsAndFourRoundTrips() throws Exception {
        AzureRequestLog log = new AzureRequestLog(AzuriteServer.ACCOUNT, AzuritePerTestClass.CONTAINER);
        AzureFileSystem fs = fileSystem(log);
        SavepointRequests.aSavepointWaitsForItsPayloadUploadsAndFourRoundTrips(fs, azurite.fs(),
                fs.normalizeRoot(AzuritePerTestClass.freshDirectory("requests")), log::within);
    }

    @Test
    void aCheckpointStoreIsOneRequest() throws Exception {
        AzureRequestLog log = new AzureRequestLog(AzuriteServer.ACCOUNT, AzuritePerTestClass.CONTAINER);
        AzureFileSystem fs = fileSystem(log);
        SavepointRequests.aCheckpointStoreIsOneRequest(fs,
                fs.normalizeRoot(AzuritePerTestClass.freshDirectory("checkpoint-requests")), log::within,
                "one conditional Put Blob");
    }

    /** A file system on the server with the default block size (8 MiB), whose client shows every try to {@code log}. */
    private static AzureFileSystem fileSystem(AzureRequestLog log) {
        return new AzureFileSystem(AzuritePerTestClass.client(azurite.endpoint(), 4, log),
                AzuriteServer.ACCOUNT, AzuritePerTestClass.CONTAINER,
                AzureSettings.DEFAULT_BLOCK_SIZE, true, azurite.endpoint().toString());
    }
}
