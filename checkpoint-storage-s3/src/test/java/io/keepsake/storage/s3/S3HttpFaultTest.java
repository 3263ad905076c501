package io.keepsake.storage.s3;

import io.keepsake.fixtures.faults.AgingFileSystem;
import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.http.FaultyHttpProxy;
import io.keepsake.fixtures.http.FaultyHttpProxyPerClass;
import io.keepsake.fixtures.tck.FaultRuns;
import io.keepsake.fixtures.tck.PayloadBytes;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.keepsake.fixtures.tck.PayloadBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults at the HTTP level, between the SDK and the server: a proxy spoils one request of a save
 * (payloads, one of them a multipart upload), commit, delete and garbage collection, at every
 * request index in turn: its response is lost after the server applied it, it gets a 500 or a
 * 503, or its connection is reset. After each, another process checks what the kit's fault sweep
 * checks; a commit whose response was lost must be recognised as committed.
 */
class S3HttpFaultTest {

    private static final String JOB = "7001";
    private static final int BIG = S3FileSystem.MIN_PART_SIZE + 1000;

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    @RegisterExtension
    static final FaultyHttpProxyPerClass proxied = new FaultyHttpProxyPerClass(() -> server.endpoint());

    private static Map<Integer, byte[]> payloads(long seed, boolean big) {
        Map<Integer, byte[]> m = new LinkedHashMap<>();
        m.put(1, bytes(seed, 1000));
        if (big) {
            m.put(2, bytes(seed + 1, BIG));
        }
        return m;
    }

    /** A file system that reaches the server through the proxy, with {@code attempts} tries per request. */
    private static S3FileSystem throughProxy(int attempts) {
        URI endpoint = proxied.proxy().endpoint();
        return new S3FileSystem(S3ProxyServer.client(endpoint, attempts), S3ProxyServer.BUCKET,
                S3FileSystem.MIN_PART_SIZE, true, endpoint.toString());
    }

    private static KeepsakeStorage open(StorageFileSystem fs, String ns) {
        // a long lease: no renewal request lands in the middle of a counted run
        return KeepsakeStorage.open(fs, new StorageOptions(ns, null, null, 0, Map.of(), 600_000));
    }

    private static String prepare(String name) throws IOException {
        String ns = server.fs().normalizeRoot(S3ProxyServer.freshDirectory(name) + "/ns");
        try (KeepsakeStorage s = open(new ForwardingFileSystem(server.fs()), ns)) {
            PayloadBytes.commit(s, JOB, "sp-keep", payloads(10, false));
            PayloadBytes.commit(s, JOB, "sp-drop", payloads(20, false));
        }
        return ns;
    }

    /** Save, commit, delete and gc; true when the commit returned. */
    private static boolean scenario(KeepsakeStorage s, List<Throwable> failures) {
        boolean committed = false;
        try {
            PayloadBytes.commit(s, JOB, "sp-new", payloads(30, true));
            committed = true;
        } catch (SavepointStorageException | IOException e) {
            failures.add(e);
        }
        FaultRuns.deleteThenCollect(s, JOB, "sp-drop", failures);
        return committed;
    }

    /** Another process, after every lease expired, finds only complete savepoints and collects what is left. */
    private static void check(String ns, boolean committed, String where) throws IOException {
        try (KeepsakeStorage after = open(new AgingFileSystem(server.fs(), Duration.ofHours(1)), ns)) {
            // the created savepoint may be torn only while gc keeps its writer's decision
            FaultRuns.assertWholeAfter(after, server.fs(), new FaultRuns.Savepoints(JOB, "sp-keep", payloads(10, false),
                    "sp-drop", payloads(20, false), "sp-new", payloads(30, true)), committed,
                    gc -> gc.kept().stream().anyMatch(k -> k.contains("has not finished")), where);
            assertThat(server.fs().pendingUploads(ns)).as("multipart uploads left, " + where).isEmpty();
        }
        server.fs().delete(ns, true);
    }

    @Test
    void everySpoiledRequestOfSaveCommitDeleteAndGcLeavesOnlyCompleteSavepoints() throws IOException {
        FaultyHttpProxy proxy = proxied.proxy();
        int requests;
        try (S3FileSystem fs = throughProxy(1)) {
            String ns = prepare("http-count");
            proxy.disarm();
            List<Throwable> none = new ArrayList<>();
            try (KeepsakeStorage s = open(fs, ns)) {
                assertThat(scenario(s, none)).isTrue();
            }
            assertThat(none).isEmpty();
            requests = proxy.count();
            check(ns, true, "without faults");
        }
        assertThat(requests).as("requests of one save, commit, delete and gc").isGreaterThan(20);
        FaultyHttpProxy.Fault[] faults = FaultyHttpProxy.Fault.values();
        int failedCommits = 0;
        for (int k = 1; k <= requests; k++) {
            FaultyHttpProxy.Fault fault = faults[k % faults.length];
            String ns = prepare("http-" + k);
            boolean committed;
            List<Throwable> failures = new ArrayList<>();
            List<String> seen;
            try (S3FileSystem fs = throughProxy(1); KeepsakeStorage s = open(fs, ns)) {
                proxy.arm(k, fault);
                committed = scenario(s, failures);
                seen = proxy.requests();
                proxy.disarm();
            }
            String where = fault + " at request " + k + " of " + requests + " (" + (k <= seen.size() ? seen.get(k - 1)
                    : "beyond the run") + "), failures " + failures;
            if (!committed) {
                failedCommits++;
            }
            String spoiled = k <= seen.size() ? seen.get(k - 1) : "";
            if (fault == FaultyHttpProxy.Fault.DROP_RESPONSE && spoiled.contains("_metadata.ser")) {
                assertThat(committed).as("a commit whose metadata response was lost is committed, " + where).isTrue();
            }
            check(ns, committed, where);
        }
        assertThat(failedCommits).as("spoiled requests make some commits fail").isGreaterThan(0);
        System.out.println("HTTP fault sweep: " + requests + " requests spoiled one at a time, faults rotating over "
                + Arrays.toString(faults) + "; " + failedCommits + " commits failed with a typed error");
    }

    /** Finds the index of the first request whose line contains every one of {@code markers} in a clean run. */
    private static int indexOf(List<String> markers, int attempts) throws IOException {
        try (S3FileSystem fs = throughProxy(attempts)) {
            String ns = prepare("http-find");
            proxied.proxy().disarm();
            try (KeepsakeStorage s = open(fs, ns)) {
                assertThat(scenario(s, new ArrayList<>())).isTrue();
            }
            server.fs().delete(ns, true);
            return proxied.indexOf(markers);
        }
    }

    @ParameterizedTest(name = "{0}{1} with {2} attempts")
    @CsvSource({
            "'PUT ', _metadata.ser, 4", // the metadata's create, the SDK retrying
            "'PUT ', _metadata.ser, 1", // the same without retries
            "'POST ', uploadId=, 4"}) // a multipart completion, recognised as its own object
    void aLostResponseIsRecognisedAsCommitted(String method, String marker, int attempts) throws IOException {
        List<String> markers = List.of(method, marker);
        int k = indexOf(markers, attempts);
        String ns = prepare("http-lost");
        boolean committed;
        List<Throwable> failures = new ArrayList<>();
        List<String> seen;
        FaultyHttpProxy proxy = proxied.proxy();
        try (S3FileSystem fs = throughProxy(attempts); KeepsakeStorage s = open(fs, ns)) {
            proxy.arm(k, FaultyHttpProxy.Fault.DROP_RESPONSE);
            committed = scenario(s, failures);
            seen = proxy.requests();
            proxy.disarm();
        }
        assertThat(seen.get(k - 1)).contains(markers);
        assertThat(committed).as("commit after the lost response of %s (failures %s)", seen.get(k - 1), failures).isTrue();
        assertThat(failures).isEmpty();
        check(ns, true, "lost response of " + seen.get(k - 1));
    }
}
