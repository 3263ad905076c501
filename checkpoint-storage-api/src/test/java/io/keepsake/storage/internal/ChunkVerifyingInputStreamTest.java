package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
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
    private static final ChunkVerification ONE = new ChunkVerification(1);
    private static final ChunkVerification TWO = new ChunkVerification(2);
    private static final ChunkVerification FOUR = new ChunkVerification(4);

    @AfterAll
    static void stopThreads() {
        ONE.close();
        TWO.close();
        FOUR.close();
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
            for (ChunkVerification v : new ChunkVerification[] {ONE, TWO, FOUR}) {
                try (ChunkVerifyingInputStream in = open(new ByteArrayInputStream(data), entry, v)) {
                    assertThat(in.readAllBytes()).as(size + " bytes on " + v.threads() + " thread(s)").isEqualTo(data);
                }
                try (ChunkVerifyingInputStream in = open(new ByteArrayInputStream(data), entry, v)) {
                    byte[] mixed = readMixed(in, size);
                    for (int i = 0; i < size; i++) {
                        if (mixed[i] != 0 && mixed[i] != data[i]) {
                            fail("byte " + i + " of " + size + " differs on " + v.threads() + " thread(s)");
                        }
                    }
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
                for (ChunkVerification v : new ChunkVerification[] {ONE, FOUR}) {
                    ByteArrayOutputStream delivered = new ByteArrayOutputStream();
                    try (ChunkVerifyingInputStream in = open(new ByteArrayInputStream(bad), entry, v)) {
                        assertThatThrownBy(() -> in.transferTo(delivered))
                                .as("byte %d flipped, %d thread(s)", at, v.threads())
                                .isInstanceOfSatisfying(SavepointCorruptedException.class, e -> {
                                    assertThat(e.file()).isEqualTo("/root/job/sp/pipeline-1.wire");
                                    assertThat(e.offset()).isEqualTo((long) chunk * CHUNK);
                                    assertThat(e.getMessage()).contains("chunk " + chunk + " of 10")
                                            .contains("byte", String.valueOf(chunk * CHUNK))
                                            .contains("savepoint sp of job job");
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
            for (ChunkVerification v : new ChunkVerification[] {ONE, TWO}) {
                try (ChunkVerifyingInputStream in = open(new ByteArrayInputStream(data, 0, cut), entry, v)) {
                    assertThatThrownBy(in::readAllBytes).as("cut at %d", cut)
                            .isInstanceOfSatisfying(SavepointCorruptedException.class, e -> {
                                assertThat(e.offset()).isEqualTo(chunkOffset);
                                assertThat(e.getMessage()).contains("shorter than the manifest");
                                assertThat(e.actual()).isEqualTo(cut + " bytes");
                            });
                }
            }
        }
        byte[] longer = Arrays.copyOf(data, size + 1);
        try (ChunkVerifyingInputStream in = open(new ByteArrayInputStream(longer), entry, TWO)) {
            assertThatThrownBy(in::readAllBytes).isInstanceOfSatisfying(SavepointCorruptedException.class,
                    e -> assertThat(e.offset()).isEqualTo(size));
        }
        ManifestEntry empty = entryOf(new byte[0]);
        try (ChunkVerifyingInputStream in = open(new ByteArrayInputStream(new byte[1]), empty, TWO)) {
            assertThatThrownBy(in::read).isInstanceOf(SavepointCorruptedException.class)
                    .hasMessageContaining("longer than the manifest");
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
}
