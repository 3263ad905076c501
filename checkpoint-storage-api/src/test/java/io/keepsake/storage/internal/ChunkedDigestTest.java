package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chunk digests a writer records (format version 2): whatever the pattern of writes (single
 * bytes, writes inside a chunk, writes across boundaries, writes of many whole chunks shared among
 * threads), each chunk's digest is the SHA-256 of exactly its bytes, and the manifest's digest is
 * the one docs/formats.md defines, computed here independently of {@link ChunkDigests}.
 */
class ChunkedDigestTest {

    private static final int CHUNK = 64 * 1024;

    private static byte[] payload(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    /** SHA-256 over every chunk's SHA-256 in order, then the length (8 bytes) and the chunk size (4 bytes), big-endian. */
    private static String derivedDigest(byte[] data, int chunkSize) throws Exception {
        MessageDigest outer = MessageDigest.getInstance("SHA-256");
        for (int at = 0; at < data.length; at += chunkSize) {
            outer.update(MessageDigest.getInstance("SHA-256").digest(
                    Arrays.copyOfRange(data, at, Math.min(data.length, at + chunkSize))));
        }
        outer.update(ByteBuffer.allocate(12).putLong(data.length).putInt(chunkSize).array());
        return Hex.encodeHexString(outer.digest());
    }

    private static HashingOutputStream write(byte[] data, int[] steps, ByteArrayOutputStream sink) throws IOException {
        HashingOutputStream out = new HashingOutputStream(sink, new ChunkedDigest(CHUNK));
        HashingOutputStreamTest.writeInSteps(out, data, steps);
        return out;
    }

    @Test
    void everyWritePatternGivesEachChunkItsOwnDigestAndTheDerivedDigest() throws Exception {
        int[][] patterns = {
                {1},
                {1000, 1, CHUNK - 3},
                {CHUNK},
                {7 * CHUNK + 5, 1, 3 * CHUNK},
                {HashingOutputStream.PARALLEL_MIN_BYTES, 17, 2 * HashingOutputStream.PARALLEL_MIN_BYTES - 1},
                {CHUNK / 2, 5 * CHUNK, 100}};
        for (int size : new int[] {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 11 * CHUNK + 12_345}) {
            byte[] data = payload(size);
            for (int[] steps : patterns) {
                if (size > 200_000 && steps[0] == 1) {
                    continue;
                }
                ByteArrayOutputStream sink = new ByteArrayOutputStream();
                HashingOutputStream out = write(data, steps, sink);
                String digest = out.sha256Hex();
                ChunkDigests chunks = out.chunks();
                String what = size + " bytes written in steps " + Arrays.toString(steps);
                assertThat(sink.toByteArray()).as(what).isEqualTo(data);
                assertThat(chunks.count()).as(what).isEqualTo(ChunkDigests.chunkCount(size, CHUNK));
                for (int c = 0; c < chunks.count(); c++) {
                    byte[] chunk = Arrays.copyOfRange(data, c * CHUNK, Math.min(size, (c + 1) * CHUNK));
                    assertThat(chunks.sha256Hex(c)).as(what + ", chunk " + c)
                            .isEqualTo(Hex.encodeHexString(MessageDigest.getInstance("SHA-256").digest(chunk)));
                }
                assertThat(digest).as(what).isEqualTo(derivedDigest(data, CHUNK));
                assertThat(ManifestEntry.chunked(1, 1, "pipeline-1.wire", size, chunks).sha256()).isEqualTo(digest);
            }
        }
    }

    @Test
    void aManifestEntryRefusesChunkDigestsThatDoNotCoverItsLengthOrDeriveItsDigest() throws Exception {
        byte[] data = payload(3 * CHUNK + 1);
        HashingOutputStream out = write(data, new int[] {CHUNK}, new ByteArrayOutputStream());
        String digest = out.sha256Hex();
        ChunkDigests chunks = out.chunks();
        assertThat(new ManifestEntry(1, 1, "p.wire", data.length, digest, chunks).chunks()).isEqualTo(chunks);
        assertThatThrownBy(() -> new ManifestEntry(1, 1, "p.wire", data.length + CHUNK, digest, chunks))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("chunks");
        assertThatThrownBy(() -> new ManifestEntry(1, 1, "p.wire", data.length + 1, digest, chunks))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("derived");
        String plain = Hex.encodeHexString(MessageDigest.getInstance("SHA-256").digest(data));
        assertThatThrownBy(() -> new ManifestEntry(1, 1, "p.wire", data.length, plain, chunks))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("derived");
        assertThatThrownBy(() -> ChunkDigests.of(CHUNK, new byte[33])).isInstanceOf(InvalidStorageArgumentException.class);
        assertThatThrownBy(() -> ChunkDigests.of(0, new byte[0])).isInstanceOf(InvalidStorageArgumentException.class);
        assertThatThrownBy(() -> ChunkDigests.of(ChunkDigests.MAX_CHUNK_SIZE + 1, new byte[0]))
                .isInstanceOf(InvalidStorageArgumentException.class);
    }
}
