package io.keepsake.storage.azure;

import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.fixtures.cost.TimedRequest;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.azure.internal.AzureSettings;
import io.keepsake.storage.internal.InFlightAttempts;
import io.keepsake.storage.internal.NewestMarkers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a savepoint of 4 payloads x 1 MiB costs on Azure Blob Storage (Azurite), with the default block size, request by request: every HTTP request is
 * logged with its thread, start and end, and the test asserts how many requests the caller waits
 * for between {@code beginSavepoint} and the return of {@code commit}, and how many of those that
 * are not payload uploads must follow one another (sequential round trips, which a store's
 * latency multiplies). The log is printed; the one in docs/backends.md comes from here.
 */
class AzureSavepointRequestsTest {

    private static final int PAYLOADS = 4;
    private static final int PAYLOAD_BYTES = 1 << 20;

    /** Sequential round trips of a savepoint besides its payload uploads (which run in parallel). */
    static final int MAX_SEQUENTIAL = 4;
    /**
     * Requests the caller waits for: the payload uploads and at most seven others (the newest
     * marker is one of them; it is in flight with the index marker and the decision, so it adds no
     * round trip).
     */
    static final int MAX_WAITED = PAYLOADS + 7;

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    @Test
    void aSavepointWaitsForItsPayloadUploadsAndFourRoundTrips() throws Exception {
        AzureRequestLog log = new AzureRequestLog(AzuriteServer.ACCOUNT, AzuritePerTestClass.CONTAINER);
        AzureFileSystem fs = fileSystem(log);
        String ns = fs.normalizeRoot(AzuritePerTestClass.freshDirectory("requests"));
        long first;
        long firstEnd;
        long start;
        long end;
        long closed;
        String callerThread;
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, new StorageOptions(ns, null, null, 0, Map.of(),
                StorageOptions.DEFAULT_LEASE_TIMEOUT_MILLIS))) {
            first = System.nanoTime();
            save(storage, "sp0");
            firstEnd = System.nanoTime();
            start = System.nanoTime();
            save(storage, "sp1");
            callerThread = Thread.currentThread().getName();
            end = System.nanoTime();
        }
        closed = System.nanoTime();
        try (KeepsakeStorage check = KeepsakeStorage.open(azurite.fs(), new StorageOptions(ns, null, null, 0,
                Map.of(), StorageOptions.DEFAULT_LEASE_TIMEOUT_MILLIS))) {
            assertThat(check.listSavepoints("job1")).hasSize(2);
            assertThat(check.planGarbage(Duration.ZERO)).as("nothing left after close").isEmpty();
        }

        // the deletes and the newest markers' tidy after an earlier commit run on their own threads
        // meanwhile: nobody waits for them
        List<AzureRequestLog.Request> firstSave = waitedFor(log.within(first, firstEnd));
        List<AzureRequestLog.Request> waited = waitedFor(log.within(start, end));
        List<AzureRequestLog.Request> afterwards = log.within(end, closed);
        List<AzureRequestLog.Request> notPayload = waited.stream().filter(r -> !r.isPayload()).toList();
        int sequential = TimedRequest.sequential(notPayload);
        System.out.printf("First savepoint of a storage instance: %d requests, %d sequential besides payloads%n%s",
                firstSave.size(), TimedRequest.sequential(firstSave.stream().filter(r -> !r.isPayload()).toList()),
                TimedRequest.table(firstSave, first));
        System.out.printf("Next savepoint (%d x %d MiB): the caller waits for %d requests (%d payload uploads), %d"
                        + " sequential round trips besides the payloads, %d with them%n%s", PAYLOADS, PAYLOAD_BYTES >> 20,
                waited.size(), waited.size() - notPayload.size(), sequential, TimedRequest.sequential(waited),
                TimedRequest.table(waited, start));
        System.out.printf("After the commit returned, until the storage closed (its tidying): %d requests%n%s", afterwards.size(),
                TimedRequest.table(afterwards, start));

        assertThat(waited.stream().filter(AzureRequestLog.Request::isPayload)).as("one upload per payload").hasSize(PAYLOADS);
        // The caller's own thread sends one request per sequential step; what it overlaps goes to the
        // overlapping pool, so the bound holds however a busy machine schedules that pool (the
        // timed count printed above is then larger only because the pool started late).
        List<AzureRequestLog.Request> onCaller = notPayload.stream().filter(r -> r.thread().equals(callerThread)).toList();
        assertThat(onCaller).as("sequential round trips besides the payload uploads (the caller's own requests)")
                .hasSizeLessThanOrEqualTo(MAX_SEQUENTIAL);
        assertThat(notPayload).as("every other request besides the payloads is one the caller overlaps")
                .allSatisfy(r -> assertThat(r.thread().equals(callerThread)
                        || r.thread().startsWith("keepsake-overlapped-")).as(r.toString()).isTrue());
        assertThat(waited).as("requests the caller waits for").hasSizeLessThanOrEqualTo(MAX_WAITED);
    }

    /**
     * A checkpoint store (170 KB, the size of a SeaTunnel FakeSource state) is one request; the
     * rotation after it (what SeaTunnel's coordinator asks the plugin for, and the plugin's
     * retention worker sends) is printed with its requests.
     */
    @Test
    void aCheckpointStoreIsOneRequest() throws Exception {
        AzureRequestLog log = new AzureRequestLog(AzuriteServer.ACCOUNT, AzuritePerTestClass.CONTAINER);
        AzureFileSystem fs = fileSystem(log);
        String ns = fs.normalizeRoot(AzuritePerTestClass.freshDirectory("checkpoint-requests"));
        byte[] state = new byte[170_000];
        new Random(7).nextBytes(state);
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, new StorageOptions(ns, null, null, 0, Map.of(),
                StorageOptions.DEFAULT_LEASE_TIMEOUT_MILLIS))) {
            storage.storeCheckPoint(new PipelineState("job1", 1, 1, state));
            long start = System.nanoTime();
            storage.storeCheckPoint(new PipelineState("job1", 1, 2, state));
            long stored = System.nanoTime();
            storage.deleteCheckpoint("job1", "1", List.of("1"));
            long rotated = System.nanoTime();
            List<AzureRequestLog.Request> store = log.within(start, stored);
            List<AzureRequestLog.Request> rotation = log.within(stored, rotated);
            System.out.printf("Checkpoint store (170 KB): %d requests%n%s", store.size(), TimedRequest.table(store, start));
            System.out.printf("Rotation of one checkpoint: %d requests, %d sequential%n%s", rotation.size(),
                    TimedRequest.sequential(rotation), TimedRequest.table(rotation, stored));
            assertThat(store).as("one conditional Put Blob").singleElement()
                    .satisfies(r -> assertThat(r.method()).isEqualTo("PUT"));
        }
    }

    /** A file system on the server with the default block size (8 MiB), whose client shows every try to {@code log}. */
    private static AzureFileSystem fileSystem(AzureRequestLog log) {
        return new AzureFileSystem(AzuritePerTestClass.client(azurite.endpoint(), 4, log),
                AzuriteServer.ACCOUNT, AzuritePerTestClass.CONTAINER,
                AzureSettings.DEFAULT_BLOCK_SIZE, true, azurite.endpoint().toString());
    }

    private static List<AzureRequestLog.Request> waitedFor(List<AzureRequestLog.Request> rs) {
        return rs.stream().filter(r -> !r.thread().equals(InFlightAttempts.TIDYING_THREAD_NAME)
                && !r.thread().equals(NewestMarkers.TIDY_THREAD_NAME)).toList();
    }

    private static void save(KeepsakeStorage storage, String id) throws Exception {
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest("job1", id, SavepointKind.MANUAL,
                "test", "test-payload", 1_000L, Map.of()))) {
            for (int p = 1; p <= PAYLOADS; p++) {
                byte[] bytes = new byte[PAYLOAD_BYTES];
                new Random(p).nextBytes(bytes);
                try (OutputStream out = w.openPayload(p, p)) {
                    out.write(bytes);
                }
            }
            w.commit(2_000L);
        }
    }
}
