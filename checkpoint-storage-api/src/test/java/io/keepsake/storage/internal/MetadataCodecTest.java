package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
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

    @Test
    void aHugeDeclaredBodyLengthIsRefusedWithoutAllocating() {
        byte[] bytes = MetadataCodec.encode(meta());
        ByteBuffer.wrap(bytes).putInt(8, Integer.MAX_VALUE);
        assertThatThrownBy(() -> MetadataCodec.decode(bytes, "m")).isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("length");
    }
}
