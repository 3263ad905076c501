package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MetadataCodecTest {

    private static final String SHA = "a".repeat(64);

    private static SavepointMeta meta() {
        return new SavepointMeta(1, "sp-1", "42", SavepointKind.PERIODIC, "keepsake-test", 10L, 20L, "engine-wire-v1",
                List.of(new ManifestEntry(1, 7L, "pipeline-1.wire", 100L, SHA),
                        new ManifestEntry(2, 7L, "pipeline-2.wire", 0L, "b".repeat(64))),
                Map.of("z", "last", "a", "first", "unicode", "ünïcödé"));
    }

    @Test
    void roundTripsEveryField() {
        assertThat(MetadataCodec.decode(MetadataCodec.encode(meta()), "m")).isEqualTo(meta());
    }

    @Test
    void encodingIsDeterministicAndHasTheDocumentedHeader() {
        byte[] a = MetadataCodec.encode(meta());
        assertThat(MetadataCodec.encode(meta())).isEqualTo(a);
        ByteBuffer b = ByteBuffer.wrap(a);
        assertThat(b.getInt()).isEqualTo(0x4B53504D);
        assertThat(b.getInt()).isEqualTo(1);
        assertThat(b.getInt()).isEqualTo(a.length - 12 - 32);
    }

    @Test
    void aWrongMagicExplainsItsLikelyCauses() {
        byte[] bytes = MetadataCodec.encode(meta());
        bytes[0] = 0x0a;
        assertThatThrownBy(() -> MetadataCodec.decode(bytes, "/x/_metadata.ser"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("wrong magic").hasMessageContaining("legacy checkpoint")
                .hasMessageContaining("/x/_metadata.ser");
    }

    private static SavepointMeta chunkedMeta(int version) {
        byte[] digests = new byte[3 * 32];
        for (int i = 0; i < digests.length; i++) {
            digests[i] = (byte) (i * 7);
        }
        ManifestEntry chunked = ManifestEntry.chunked(1, 7L, "pipeline-1.wire", 2 * 1024 + 5,
                ChunkDigests.of(1024, digests));
        ManifestEntry empty = ManifestEntry.chunked(2, 7L, "pipeline-2.wire", 0, ChunkDigests.of(1024, new byte[0]));
        return new SavepointMeta(version, "sp-2", "42", SavepointKind.MANUAL, "keepsake-test", 10L, 20L,
                "engine-wire-v1", List.of(chunked, empty), Map.of());
    }

    @Test
    void version2EntriesRoundTripTheirChunkDigestsAndAddOnlyNewTags() {
        SavepointMeta v2 = chunkedMeta(2);
        assertThat(MetadataCodec.decode(MetadataCodec.encode(v2), "m")).isEqualTo(v2);
        assertThat(MetadataCodec.decode(MetadataCodec.encode(v2), "m").manifest().get(0).chunks().count()).isEqualTo(3);
        // Without chunk digests an entry is written exactly as in version 1: the body differs only in tag 1's value (byte 13).
        SavepointMeta plainV2 = new SavepointMeta(2, meta().savepointId(), meta().jobId(), meta().kind(),
                meta().producerVersion(), meta().triggerTimestamp(), meta().completedTimestamp(), meta().payloadFormat(),
                meta().manifest(), meta().properties());
        byte[] one = MetadataCodec.encode(meta());
        byte[] two = MetadataCodec.encode(plainV2);
        assertThat(two).hasSameSizeAs(one);
        assertThat(Arrays.copyOfRange(two, 14, two.length - 32))
                .isEqualTo(Arrays.copyOfRange(one, 14, one.length - 32));
    }

    @Test
    void chunkDigestsInAVersion1ManifestAreCorruption() {
        byte[] bytes = MetadataCodec.encode(chunkedMeta(2));
        ByteBuffer.wrap(bytes).putInt(4, 1);
        // the body's own version (tag 1, the first field: bytes 12 and 13) says 1 too; then fix the checksum
        bytes[13] = 1;
        MessageDigest sha = HashingOutputStream.sha256();
        sha.update(bytes, 0, bytes.length - 32);
        System.arraycopy(sha.digest(), 0, bytes, bytes.length - 32, 32);
        assertThatThrownBy(() -> MetadataCodec.decode(bytes, "m")).isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("format version 1 has chunk digests");
    }

    @Test
    void version1MetadataWithChunkDigestsIsRefusedWhenEncoded() {
        // a version 1 reader takes chunk digests for corruption, so they are never written in version 1
        assertThatThrownBy(() -> MetadataCodec.encode(chunkedMeta(1)))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("sp-2").hasMessageContaining("pipeline-1.wire")
                .hasMessageContaining("format version 1");
    }

    @Test
    void aHugeDeclaredBodyLengthIsRefusedWithoutAllocating() {
        byte[] bytes = MetadataCodec.encode(meta());
        ByteBuffer.wrap(bytes).putInt(8, Integer.MAX_VALUE);
        assertThatThrownBy(() -> MetadataCodec.decode(bytes, "m")).isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("length");
    }
}
