package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The chunked verifying stream of format version 2: every mix of reads returns a good payload with
 * 1, 2 or 4 verifier threads; a flipped byte in the first, a middle or the last chunk, a file cut
 * short and a file too long fail naming the file and the chunk's byte offset, before any byte of
 * that chunk is handed out; the read-ahead never holds more chunks than its buffers; closing stops it.
 */
class ChunkVerifyingInputStreamTest {

    private static final int CHUNK = 64 * 1024;
    /** Read-ahead from the third chunk on (these read whole only payloads of at most threads + 2 chunks). */
    private static final ChunkVerification ONE = new ChunkVerification(1, 0);
    private static final ChunkVerification TWO = new ChunkVerification(2, 0);
    private static final ChunkVerification FOUR = new ChunkVerification(4, 0);
    /** The default: every payload of these tests is read whole by the consumer, its chunks hashed by two verifiers. */
    private static final ChunkVerification WHOLE = new ChunkVerification(2);

    @TempDir
    static Path files;

    @AfterAll
    static void stopThreads() {
        ONE.close();
        TWO.close();
        FOUR.close();
        WHOLE.close();
    }

    /** Where a payload's bytes come from: a stream into heap buffers, or a file's channel into direct buffers. */
    private enum Source { STREAM, CHANNEL }

    /** One way of reading: the verification's threads and read mode, and the source. */
    private record Case(ChunkVerification verification, Source source) {
    }

    /** Every verification with every source. */
    private static java.util.List<Case> cases(ChunkVerification... verifications) {
        java.util.List<Case> cases = new java.util.ArrayList<>();
        for (ChunkVerification v : verifications) {
            for (Source source : Source.values()) {
                cases.add(new Case(v, source));
            }
        }
        return cases;
    }

    /** Opens {@code bytes} as the stream of a payload described by {@code entry}, read from {@code source}. */
    private static ChunkVerifyingInputStream open(byte[] bytes, ManifestEntry entry, ChunkVerification v, Source source)
            throws IOException {
        if (source == Source.STREAM) {
            return open(new ByteArrayInputStream(bytes), entry, v);
        }
        Path file = Files.write(Files.createTempFile(files, "payload", ".wire"), bytes);
        return v.open(FileChannel.open(file, StandardOpenOption.READ), "/root/job/sp/pipeline-1.wire",
                "pipeline-1.wire of savepoint sp of job job", entry);
    }

    private static byte[] payload(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    private static ManifestEntry entryOf(byte[] data) throws IOException {
        HashingOutputStream out = new HashingOutputStream(new ByteArrayOutputStream(), new ChunkedDigest(CHUNK));
        out.write(data);
        String digest = out.sha256Hex();
        return new ManifestEntry(1, 1, "pipeline-1.wire", data.length, digest, out.chunks());
    }

    private static ChunkVerifyingInputStream open(InputStream raw, ManifestEntry entry, ChunkVerification v) {
        return v.open(raw, "/root/job/sp/pipeline-1.wire", "pipeline-1.wire of savepoint sp of job job", entry);
    }

    /** Reads to the end in a pattern of plain reads, kept reads, single bytes and discards; discarded bytes read as zero. */
    private static byte[] readMixed(ChunkVerifyingInputStream in, int length) throws IOException {
        byte[] out = new byte[length];
        Random pattern = new Random(length);
        int at = 0;
        while (at < length) {
            int want = Math.min(length - at, 1 + pattern.nextInt(3 * CHUNK));
            switch (pattern.nextInt(4)) {
                case 0 -> at += in.read(out, at, want);
                case 1 -> at += in.readKept(out, at, want);
                case 2 -> out[at++] = (byte) in.read();
                default -> at += (int) in.discard(want);
            }
        }
        assertThat(in.read()).isEqualTo(-1);
        return out;
    }

    @Test
    void aGoodPayloadReadsWholeInEveryMixOfReadsOnOneTwoAndFourThreads() throws IOException {
        for (int size : new int[] {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 11 * CHUNK / 2, 40 * CHUNK + 3}) {
            byte[] data = payload(size);
            ManifestEntry entry = entryOf(data);
            for (Case c : cases(ONE, TWO, FOUR, WHOLE)) {
                ChunkVerification v = c.verification();
                Source source = c.source();
                try (ChunkVerifyingInputStream in = open(data, entry, v, source)) {
                    assertThat(in.readAllBytes()).as(size + " bytes on " + v.threads() + " thread(s) from " + source)
                            .isEqualTo(data);
                }
                try (ChunkVerifyingInputStream in = open(data, entry, v, source)) {
                    byte[] mixed = readMixed(in, size);
                    for (int i = 0; i < size; i++) {
                        if (mixed[i] != 0 && mixed[i] != data[i]) {
                            fail("byte " + i + " of " + size + " differs on " + v.threads() + " thread(s) from "
                                    + source);
                        }
                    }
                }
            }
        }
    }

    @Test
    void whenEveryVerifierIsBusyTheConsumerHashesTheChunksItselfInBothReadModes() throws Exception {
        byte[] data = payload(12 * CHUNK + 9);
        ManifestEntry entry = entryOf(data);
        for (ChunkVerification v : new ChunkVerification[] {new ChunkVerification(1, 0), new ChunkVerification(1)}) {
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
            v.verify(new java.util.concurrent.FutureTask<>(() -> {
                holding.countDown();
                release.await();
                return new byte[0];
            }));
            try {
                holding.await();
                for (Source source : Source.values()) {
                    try (ChunkVerifyingInputStream in = open(data, entry, v, source)) {
                        byte[] read = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                                java.time.Duration.ofMinutes(2), in::readAllBytes,
                                "the only verifier is held: the consumer must hash the chunks itself");
                        assertThat(read).isEqualTo(data);
                    }
                }
            } finally {
                release.countDown();
                v.close();
            }
        }
    }

    @Test
    void buffersThatFailedOrAbandonedStreamsGaveBackNeverLeakIntoTheNextStream() throws IOException {
        byte[] data = payload(20 * CHUNK + 5);
        byte[] other = payload(20 * CHUNK + 6);
        ManifestEntry entry = entryOf(data);
        byte[] bad = data.clone();
        bad[7 * CHUNK + 3] ^= 0x40;
        for (int round = 0; round < 10; round++) {
            for (Case c : cases(TWO, WHOLE)) {
                try (ChunkVerifyingInputStream in = open(bad, entry, c.verification(), c.source())) {
                    assertThatThrownBy(in::readAllBytes).isInstanceOf(SavepointCorruptedException.class);
                }
                try (ChunkVerifyingInputStream in = open(other, entryOf(other), c.verification(), c.source())) {
                    assertThat(in.readNBytes(CHUNK + 1)).hasSize(CHUNK + 1);
                }
                try (ChunkVerifyingInputStream in = open(data, entry, c.verification(), c.source())) {
                    assertThat(in.readAllBytes()).as("round %d, %s", round, c).isEqualTo(data);
                }
            }
        }
    }

    @Test
    void aFlippedByteInTheFirstAMiddleOrTheLastChunkFailsAtThatChunksOffsetBeforeItsBytes() throws IOException {
        int size = 9 * CHUNK + 777;
        byte[] data = payload(size);
        ManifestEntry entry = entryOf(data);
        for (int chunk : new int[] {0, 4, 9}) {
            for (int at : new int[] {chunk * CHUNK, Math.min(size - 1, chunk * CHUNK + CHUNK / 2)}) {
                byte[] bad = data.clone();
                bad[at] ^= 0x01;
                for (Case c : cases(ONE, FOUR, WHOLE)) {
                    ChunkVerification v = c.verification();
                    Source source = c.source();
                    ByteArrayOutputStream delivered = new ByteArrayOutputStream();
                    try (ChunkVerifyingInputStream in = open(bad, entry, v, source)) {
                        assertThatThrownBy(() -> in.transferTo(delivered))
                                .as("byte %d flipped, %d thread(s), from %s", at, v.threads(), source)
                                .isInstanceOfSatisfying(SavepointCorruptedException.class, e -> {
                                    assertThat(e.file()).isEqualTo("/root/job/sp/pipeline-1.wire");
                                    assertThat(e.offset()).isEqualTo((long) chunk * CHUNK);
                                    assertThat(e.getMessage()).contains("chunk " + chunk + " of 10")
                                            .contains("byte", String.valueOf(chunk * CHUNK))
                                            .contains("savepoint sp of job job")
                                            .as("the expected value is named as the chunk's digest")
                                            .contains("the SHA-256 the manifest records for chunk " + chunk,
                                                    "chunk " + chunk + "'s own digests", "not the payload's sha256",
                                                    "(expected " + entry.chunks().sha256Hex(chunk) + ", found ")
                                            .doesNotContain(entry.sha256());
                                    assertThat(e.expected()).isEqualTo(entry.chunks().sha256Hex(chunk));
                                    assertThat(e.actual()).isNotEqualTo(e.expected());
                                });
                        assertThat(delivered.toByteArray()).as("bytes before the damaged chunk")
                                .isEqualTo(Arrays.copyOf(data, chunk * CHUNK));
                        assertThatThrownBy(in::read).as("a read after the failure fails again")
                                .isInstanceOf(SavepointCorruptedException.class);
                    }
                }
            }
        }
    }

    @Test
    void aFileCutShortOrTooLongFailsAtTheOffsetWhereItStopsMatching() throws IOException {
        int size = 6 * CHUNK + 100;
        byte[] data = payload(size);
        ManifestEntry entry = entryOf(data);
        for (int cut : new int[] {0, 1, CHUNK, 3 * CHUNK + 5, 6 * CHUNK, size - 1}) {
            long chunkOffset = (long) Math.min(cut / CHUNK, 6) * CHUNK;
            for (Case c : cases(ONE, TWO, WHOLE)) {
                ChunkVerification v = c.verification();
                Source source = c.source();
                try (ChunkVerifyingInputStream in = open(Arrays.copyOf(data, cut), entry, v, source)) {
                    assertThatThrownBy(in::readAllBytes).as("cut at %d from %s", cut, source)
                            .isInstanceOfSatisfying(SavepointCorruptedException.class, e -> {
                                assertThat(e.offset()).isEqualTo(chunkOffset);
                                assertThat(e.getMessage()).contains("shorter than the manifest");
                                assertThat(e.actual()).isEqualTo(cut + " bytes");
                            });
                }
            }
        }
        byte[] longer = Arrays.copyOf(data, size + 1);
        ManifestEntry empty = entryOf(new byte[0]);
        for (ChunkVerification v : new ChunkVerification[] {TWO, WHOLE}) {
            for (Source source : Source.values()) {
                try (ChunkVerifyingInputStream in = open(longer, entry, v, source)) {
                    assertThatThrownBy(in::readAllBytes).isInstanceOfSatisfying(SavepointCorruptedException.class,
                            e -> assertThat(e.offset()).isEqualTo(size));
                }
                try (ChunkVerifyingInputStream in = open(new byte[1], empty, v, source)) {
                    assertThatThrownBy(in::read).isInstanceOf(SavepointCorruptedException.class)
                            .hasMessageContaining("longer than the manifest");
                }
            }
        }
    }

    /**
     * The file under the stream: counts how far the read-ahead has read, and fails the test when it
     * is asked for bytes beyond what the stream's buffers allow while the consumer is where it is.
     */
    private static final class WatchedFile extends FilterInputStream {
        final AtomicLong position = new AtomicLong();
        final AtomicLong allowed = new AtomicLong();
        final AtomicBoolean overrun = new AtomicBoolean();
        final AtomicBoolean closed = new AtomicBoolean();

        WatchedFile(byte[] data) {
            super(new ByteArrayInputStream(data));
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                advanced(n);
            }
            return n;
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c >= 0) {
                advanced(1);
            }
            return c;
        }

        private synchronized void advanced(int n) {
            if (position.addAndGet(n) > allowed.get()) {
                overrun.set(true);
            }
            notifyAll();
        }

        @Override
        public void close() throws IOException {
            closed.set(true);
            super.close();
        }

        void awaitPosition(long target) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            synchronized (this) {
                while (position.get() < target) {
                    long left = deadline - System.nanoTime();
                    assertThat(left).as("time left for the read-ahead to reach byte " + target).isPositive();
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            }
        }
    }

    @Test
    void theReadAheadFillsItsBuffersAndNeverMore() throws Exception {
        int chunks = 30;
        byte[] data = payload(chunks * CHUNK);
        ManifestEntry entry = entryOf(data);
        WatchedFile file = new WatchedFile(data);
        int buffers = TWO.buffersPerStream();
        try (ChunkVerifyingInputStream in = open(file, entry, TWO)) {
            byte[] chunk = new byte[CHUNK];
            for (int i = 0; i < chunks; i++) {
                // reading chunk i hands back the buffers of chunks 0..i-1: the read-ahead may then hold i..i+buffers-1
                file.allowed.set((long) Math.min(chunks, i + buffers) * CHUNK);
                assertThat(in.readNBytes(chunk, 0, CHUNK)).isEqualTo(CHUNK);
                assertThat(chunk).isEqualTo(Arrays.copyOfRange(data, i * CHUNK, (i + 1) * CHUNK));
                // while the consumer is here, the read-ahead fills every buffer but the one being read
                file.awaitPosition((long) Math.min(chunks, i + buffers) * CHUNK);
                assertThat(file.overrun).as("read beyond the buffers at chunk " + i).isFalse();
            }
            assertThat(in.read()).isEqualTo(-1);
        }
        assertThat(file.closed).isTrue();
    }

    @Test
    void closingHalfWayStopsTheReadAheadAndClosesTheFile() throws Exception {
        byte[] data = payload(50 * CHUNK);
        ManifestEntry entry = entryOf(data);
        WatchedFile file = new WatchedFile(data);
        file.allowed.set(Long.MAX_VALUE);
        ChunkVerifyingInputStream in = open(file, entry, FOUR);
        assertThat(in.readNBytes(CHUNK + 1)).hasSize(CHUNK + 1);
        in.close();
        long stoppedAt = file.position.get();
        assertThat(file.closed).isTrue();
        assertThat(stoppedAt).as("bytes read ahead before the close").isLessThanOrEqualTo(
                (long) (2 + FOUR.buffersPerStream()) * CHUNK);
        assertThatThrownBy(in::read).isInstanceOf(IOException.class).hasMessageContaining("closed");
    }

    /**
     * An error of the JVM on the read-ahead thread (an OutOfMemoryError while reading chunk 4 of
     * 8) reaches the consumer as that same error, instead of leaving it waiting for the chunk.
     */
    @Test
    void anOutOfMemoryErrorWhileReadingAheadReachesTheConsumerUnchanged() throws Exception {
        byte[] data = payload(8 * CHUNK);
        ManifestEntry entry = entryOf(data);
        OutOfMemoryError oom = new OutOfMemoryError("Java heap space");
        InputStream failing = new FilterInputStream(new ByteArrayInputStream(data)) {
            private long delivered;

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (delivered >= 4L * CHUNK) {
                    throw oom;
                }
                int n = super.read(b, off, (int) Math.min(len, 4L * CHUNK - delivered));
                delivered += Math.max(n, 0);
                return n;
            }
        };

        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> {
            try (ChunkVerifyingInputStream in = open(failing, entry, ONE)) {
                assertThatThrownBy(in::readAllBytes).isSameAs(oom);
            }
        });
    }
}
