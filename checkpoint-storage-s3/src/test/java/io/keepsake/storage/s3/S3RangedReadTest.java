package io.keepsake.storage.s3;

import io.keepsake.fixtures.http.FaultyHttpProxy;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static io.keepsake.fixtures.tck.PayloadBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A format-version-2 payload larger than one range is read from S3 as several ranged GETs at
 * once, each range whole chunks, and every chunk is still checked before its bytes are handed
 * out. The ranges are one chunk (1 MiB) here, so that payloads of a few chunks take several;
 * requests are seen through a client-side log (start and end of each, a GET's end being the end of
 * its body).
 */
class S3RangedReadTest {

    private static final int CHUNK = ChunkDigests.CHUNK_SIZE;

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    private static final RangedRequestLog log = new RangedRequestLog();
    /** The logged file system of one test; the storage opened on it closes it. */
    private S3FileSystem fs;

    @BeforeEach
    void newFileSystem() {
        log.release();
        log.clear();
        fs = server.newFileSystem(log);
        fs.readRanges(CHUNK, 4);
    }

    @AfterEach
    void closeFileSystem() {
        log.release();
        fs.close();
    }

    /** A storage on the logged file system whose chunks are checked on one verifier thread. */
    private KeepsakeStorage storage(String name) {
        String ns = fs.normalizeRoot(S3ProxyServer.freshDirectory(name) + "/ns");
        return KeepsakeStorage.open(fs, StorageOptions.of(ns, null, 0).withVerifyThreads(1));
    }

    private static SavepointHandle save(KeepsakeStorage storage, String savepointId, Map<Integer, byte[]> payloads)
            throws IOException {
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest("1001", savepointId, SavepointKind.MANUAL,
                "t", "test-payload", 1L, Map.of()))) {
            for (Map.Entry<Integer, byte[]> p : payloads.entrySet()) {
                try (OutputStream out = w.openPayload(p.getKey(), 7)) {
                    out.write(p.getValue());
                }
            }
            SavepointHandle h = w.commit(2L);
            assertThat(h.meta().formatVersion()).isEqualTo(2);
            return h;
        }
    }

    private String payloadPath(SavepointHandle h, ManifestEntry entry) {
        return fs.child(h.location(), entry.file());
    }

    private static List<RangedRequestLog.Entry> gets(String file) {
        return log.forKey("/" + file).stream().filter(e -> e.method.equals("GET")).toList();
    }

    private static void await(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                StringBuilder threads = new StringBuilder();
                Thread.getAllStackTraces().forEach((t, stack) -> {
                    if (t.getName().startsWith("keepsake-")) {
                        threads.append("\n").append(t.getName()).append(' ').append(t.getState());
                        for (StackTraceElement frame : stack) {
                            threads.append("\n    at ").append(frame);
                        }
                    }
                });
                throw new AssertionError("Timed out waiting until " + what.get() + "; threads:" + threads);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    @Test
    void aPayloadOfFourChunksIsReadBackEqualInOneRangedGetPerChunk() throws IOException {
        byte[] payload = bytes(1, 3 * CHUNK + CHUNK / 2);
        try (KeepsakeStorage storage = storage("equal")) {
            SavepointHandle h = save(storage, "sp-equal", Map.of(1, payload));
            ManifestEntry entry = h.meta().entryForPipeline(1);
            assertThat(entry.chunks().count()).isEqualTo(4);
            log.clear();
            byte[] read;
            try (InputStream in = storage.openPayload(h, entry)) {
                read = in.readAllBytes();
            }
            assertThat(read).isEqualTo(payload);
            assertThat(gets(entry.file())).extracting(e -> e.range).containsExactlyInAnyOrder(
                    "bytes=0-1048575", "bytes=1048576-2097151", "bytes=2097152-3145727", "bytes=3145728-3670015");
        }
    }

    @Test
    void aFlippedByteInOneChunkFailsAsCorruptedNamingSavepointPayloadAndChunk() throws IOException {
        byte[] payload = bytes(2, 4 * CHUNK);
        try (KeepsakeStorage storage = storage("flipped")) {
            SavepointHandle h = save(storage, "sp-flipped", Map.of(1, payload));
            ManifestEntry entry = h.meta().entryForPipeline(1);
            S3Path object = fs.path(payloadPath(h, entry));
            byte[] damaged = payload.clone();
            damaged[2 * CHUNK + 12345] ^= 0x10;
            server.client().putObject(b -> b.bucket(object.bucket()).key(object.key()), RequestBody.fromBytes(damaged));
            log.clear();
            try (InputStream in = storage.openPayload(h, entry)) {
                assertThatThrownBy(in::readAllBytes).isInstanceOfSatisfying(SavepointCorruptedException.class,
                        e -> assertThat(e.offset()).isEqualTo(2L * CHUNK))
                        .hasMessageContaining("chunk 2 of 4").hasMessageContaining("sp-flipped")
                        .hasMessageContaining(entry.file());
            }
            assertThat(gets(entry.file())).as("read in ranges").hasSizeGreaterThan(1)
                    .allSatisfy(e -> assertThat(e.range).isNotNull());
        }
    }

    @Test
    void aLargePayloadIsReadWithOverlappingRangedGetsAndASmallOneWithOneGet() throws IOException {
        byte[] large = bytes(3, 8 * CHUNK);
        byte[] small = bytes(4, CHUNK - 100);
        try (KeepsakeStorage storage = storage("overlap")) {
            SavepointHandle h = save(storage, "sp-overlap", Map.of(1, large, 2, small));
            ManifestEntry largeEntry = h.meta().entryForPipeline(1);
            ManifestEntry smallEntry = h.meta().entryForPipeline(2);
            log.clear();
            // each ranged body of the large payload waits before its first byte until a second ranged GET of it was
            // sent (20 s at most): a reader that asks for one range after the other never overlaps two
            log.hold(e -> e.range != null && e.path.endsWith("/" + largeEntry.file()), 2);
            try (InputStream in = storage.openPayload(h, largeEntry)) {
                assertThat(in.readAllBytes()).isEqualTo(large);
            }
            try (InputStream in = storage.openPayload(h, smallEntry)) {
                assertThat(in.readAllBytes()).isEqualTo(small);
            }
            List<RangedRequestLog.Entry> ranged = gets(largeEntry.file());
            assertThat(ranged).hasSize(8).allSatisfy(e -> assertThat(e.range).isNotNull());
            assertThat(ranged).as("every range ended").noneMatch(RangedRequestLog.Entry::running);
            long overlapping = ranged.stream().filter(a -> ranged.stream().anyMatch(b -> b != a && a.overlaps(b)))
                    .count();
            assertThat(overlapping).as("ranged GETs running at the same time as another: " + ranged)
                    .isGreaterThanOrEqualTo(2);
            assertThat(gets(smallEntry.file())).as("the small payload").singleElement()
                    .satisfies(e -> assertThat(e.range).as("its Range header").isNull());
        }
    }

    @Test
    void closingAfterTheFirstChunkLeavesNoRequestRunning() throws IOException {
        byte[] payload = bytes(5, 16 * CHUNK);
        try (KeepsakeStorage storage = storage("close")) {
            SavepointHandle h = save(storage, "sp-close", Map.of(1, payload));
            ManifestEntry entry = h.meta().entryForPipeline(1);
            log.clear();
            // With one verifier thread the chunk stream holds three chunks, so it reads ranges 0 to 2 and no more
            // before its consumer gives a buffer back; later ranges are started ahead and their bodies held here.
            log.hold(e -> e.range != null && e.path.endsWith("/" + entry.file()) && e.rangeStart() >= 3L * CHUNK,
                    Integer.MAX_VALUE);
            InputStream in = storage.openPayload(h, entry);
            assertThat(in.read()).isEqualTo(payload[0] & 0xff);
            await(() -> "a range past the third is being fetched",
                    () -> gets(entry.file()).stream().anyMatch(e -> e.rangeStart() >= 3L * CHUNK && e.running()));
            in.close();
            await(() -> "no GET of the payload runs and no range is being fetched: " + gets(entry.file())
                            + ", fetches running: " + fs.rangeFetchesRunning(),
                    () -> gets(entry.file()).stream().noneMatch(RangedRequestLog.Entry::running)
                            && fs.rangeFetchesRunning() == 0);
            assertThat(gets(entry.file()).size()).as("ranges asked for").isLessThan(16);
        }
    }

    @Test
    void anObjectChangedBetweenRangesFailsTypedNotCorrupted() throws IOException {
        String path = fs.normalizeRoot(S3ProxyServer.freshDirectory("changed") + "/object");
        S3Path object = fs.path(path);
        byte[] before = bytes(6, 4 * CHUNK);
        byte[] after = bytes(7, 4 * CHUNK);
        server.client().putObject(b -> b.bucket(object.bucket()).key(object.key()), RequestBody.fromBytes(before));
        fs.readRanges(CHUNK, 2);
        try (InputStream in = fs.openWhole(path, before.length, CHUNK)) {
            assertThat(in.readNBytes(CHUNK)).isEqualTo(java.util.Arrays.copyOf(before, CHUNK));
            // range 2 is asked for only once range 0 was read, so it is asked for after this
            server.client().putObject(b -> b.bucket(object.bucket()).key(object.key()), RequestBody.fromBytes(after));
            assertThatThrownBy(in::readAllBytes).isInstanceOf(S3ObjectChangedException.class)
                    .hasMessageContaining(path).hasMessageContaining("changed while it was read in ranges");
        }
    }

    @Test
    void aFailedRangedGetIsAnIoErrorNotCorruption() throws Exception {
        byte[] payload = bytes(8, 4 * CHUNK);
        try (KeepsakeStorage storage = storage("failed");
             FaultyHttpProxy proxy = new FaultyHttpProxy(server.endpoint());
             S3FileSystem through = new S3FileSystem(S3ProxyServer.client(proxy.endpoint(), 1), S3ProxyServer.BUCKET,
                     S3FileSystem.MIN_PART_SIZE, true, proxy.endpoint().toString())) {
            SavepointHandle h = save(storage, "sp-failed", Map.of(1, payload));
            ManifestEntry entry = h.meta().entryForPipeline(1);
            through.readRanges(CHUNK, 4);
            try (KeepsakeStorage reader = KeepsakeStorage.open(through,
                    StorageOptions.of(fs.normalizeRoot(h.location().substring(0, h.location().indexOf("/ns/") + 3)),
                            null, 0))) {
                // request 1 is the first range, asked for when the payload is opened; request 2 is another range
                proxy.arm(2, FaultyHttpProxy.Fault.HTTP_500);
                try (InputStream in = reader.openPayload(h, entry)) {
                    assertThatThrownBy(in::readAllBytes).isInstanceOf(IOException.class)
                            .isNotInstanceOf(SavepointCorruptedException.class)
                            .hasMessageContaining("HTTP 500").hasMessageContaining(entry.file());
                }
            }
        }
    }
}
