package io.keepsake.storage.s3;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.fs.InMemoryFileSystem;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.internal.NewestMarkers;
import io.keepsake.storage.internal.NewestSavepoints;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.wire.CheckpointWireCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.EnumSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On S3, the lookup of a job's newest savepoint costs about the same with many savepoints as with
 * ten: the HTTP requests a recovery and a newest lookup send (LIST pages, HEADs, GETs, counted by
 * an execution interceptor of the client) with 1,000 savepoints (or
 * {@code keepsake.test.lookup.savepoints}) are at most twice those with ten; without the newest
 * folder, the LIST pages grow with the savepoints. The savepoints are committed on an in-memory
 * file system and planted into the server's store, object by object.
 */
class S3NewestLookupCostTest {

    private static final String JOB = "99";
    private static final int LARGE = Integer.getInteger("keepsake.test.lookup.savepoints", 1_000);

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    /** Requests by HTTP method, LISTs apart (a GET with a list-type or prefix query). */
    static final class Requests implements ExecutionInterceptor {
        final Map<String, AtomicLong> byKind = new ConcurrentHashMap<>();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            var request = context.httpRequest();
            String kind = request.method().name();
            if (kind.equals("GET") && (request.rawQueryParameters().containsKey("list-type")
                    || request.rawQueryParameters().containsKey("prefix"))) {
                kind = "LIST";
            }
            byKind.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        }

        /** The requests counted since the last call, by kind, without kinds not sent; counting starts again at zero. */
        Map<String, Long> take() {
            Map<String, Long> m = new TreeMap<>();
            byKind.forEach((k, v) -> {
                long n = v.getAndSet(0);
                if (n != 0) {
                    m.put(k, n);
                }
            });
            return m;
        }
    }

    private static void commit(KeepsakeStorage storage, String id, long cp) throws IOException {
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(JOB, id, SavepointKind.MANUAL, "test",
                CheckpointWireCodec.FORMAT_NAME, 1_000_000L + cp - 1, Map.of()))) {
            try (OutputStream out = w.openPayload(1, cp)) {
                new CheckpointWireCodec().encode(new CompletedCheckpoint(99, 1, cp, 1_000L + cp,
                        CheckpointType.SAVEPOINT_TYPE, 2_000L + cp, Map.of(), Map.of()), out);
            }
            w.commit(1_000_000L + cp);
        }
    }

    /** Every regular file under {@code dir} of {@code from}, planted under {@code key} with the same relative path. */
    private static void plantTree(StorageFileSystem from, String dir, String key) throws IOException {
        for (FileStatus s : from.list(dir)) {
            if (s.directory()) {
                plantTree(from, from.child(dir, s.name()), key + "/" + s.name());
            } else {
                try (InputStream in = from.open(from.child(dir, s.name()))) {
                    server.plant(key + "/" + s.name(), in.readAllBytes());
                }
            }
        }
    }

    /** Requests of one recovery and of one newest lookup, with {@code count} savepoints, with and without the newest folder. */
    private static Map<String, Map<String, Long>> costWith(int count) throws Exception {
        InMemoryFileSystem memory = new InMemoryFileSystem(EnumSet.of(FsCapability.DIRECTORY_SYNC),
                System::currentTimeMillis);
        String dir = S3ProxyServer.freshDirectory("lookup" + count);
        String key = dir.substring((S3Path.SCHEME + S3ProxyServer.BUCKET + "/").length());
        try (KeepsakeStorage built = KeepsakeStorage.open(memory, "/ns", null)) {
            for (int i = 1; i <= count; i++) {
                commit(built, String.format("sp-%05d", i), i);
            }
            NewestMarkers.awaitTidied();
            plantTree(memory, "/ns", key + "/ns");
        }

        Requests requests = new Requests();
        Map<String, Map<String, Long>> out = new TreeMap<>();
        try (S3FileSystem fs = server.newFileSystem(requests);
             KeepsakeStorage storage = KeepsakeStorage.open(new ForwardingFileSystem(fs), fs.normalizeRoot(dir + "/ns"),
                     null)) {
            for (String mode : new String[] {"markers", "listing"}) {
                if (mode.equals("listing")) {
                    fs.delete(fs.child(fs.child(storage.savepointRoot(), JOB), NewestMarkers.DIR), true);
                }
                requests.take();
                RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
                out.put(mode + " recoverLatest", requests.take());
                assertThat(r.checkpoints().get(1).checkpointId()).isEqualTo(count);
                Map<Integer, SavepointHandle> chosen = new NewestSavepoints(storage, JOB, (id, e) -> {
                    throw e;
                }).choose(Map.of());
                out.put(mode + " newest lookup", requests.take());
                assertThat(chosen.get(1).savepointId()).isEqualTo(String.format("sp-%05d", count));
            }
        }
        System.out.println("S3 lookup requests, " + count + " savepoints: " + out);
        return out;
    }

    private static boolean atMostTwice(Map<String, Long> large, Map<String, Long> small) {
        return large.entrySet().stream().allMatch(e -> e.getValue() <= 2 * small.getOrDefault(e.getKey(), 0L));
    }

    /**
     * Recovery and the newest lookup send at most twice the requests of each kind with many
     * savepoints as with ten; without the newest folder the LIST pages grow with the savepoints
     * (1,000 keys a page).
     */
    @Test
    void lookupRequestsWithManySavepointsAreAtMostTwiceOfTen() throws Exception {
        Map<String, Map<String, Long>> small = costWith(10);
        Map<String, Map<String, Long>> large = costWith(LARGE);
        for (String what : new String[] {"markers recoverLatest", "markers newest lookup"}) {
            assertThat(atMostTwice(large.get(what), small.get(what)))
                    .as("%s: %s savepoints %s vs 10 savepoints %s", what, LARGE, large.get(what), small.get(what))
                    .isTrue();
        }
        assertThat(large.get("listing recoverLatest").get("LIST"))
                .as("LIST pages of the full listing").isGreaterThan(small.get("listing recoverLatest").get("LIST"));
    }
}
