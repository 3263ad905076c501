package io.keepsake.storage.s3;

import io.keepsake.fixtures.cost.SavepointRequests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a savepoint of 4 payloads x 1 MiB costs on S3, request by request
 * ({@link SavepointRequests}: how many requests the caller waits for and how many of them follow
 * one another), and that a checkpoint store is one request. The log is printed; the one in
 * docs/backends.md comes from here.
 */
class S3SavepointRequestsTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    @Test
    void aSavepointWaitsForItsPayloadUploadsAndFourRoundTrips() throws Exception {
        RequestLog log = new RequestLog(S3ProxyServer.BUCKET);
        S3FileSystem fs = server.newFileSystem(log);
        SavepointRequests.aSavepointWaitsForItsPayloadUploadsAndFourRoundTrips(fs, server.newFileSystem(),
                fs.normalizeRoot(S3ProxyServer.freshDirectory("requests")), log::within);
    }

    @Test
    void aCheckpointStoreIsOneRequest() throws Exception {
        RequestLog log = new RequestLog(S3ProxyServer.BUCKET);
        S3FileSystem fs = server.newFileSystem(log);
        SavepointRequests.aCheckpointStoreIsOneRequest(fs,
                fs.normalizeRoot(S3ProxyServer.freshDirectory("checkpoint-requests")), log::within, "one conditional PUT");
    }
}
