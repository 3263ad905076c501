package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.Versions;
import org.apache.commons.codec.digest.DigestUtils;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SavepointFormatWriterTest {

    private static final byte[] PAYLOAD = "three chunks of four bytes".getBytes(StandardCharsets.UTF_8);

    private static ManifestEntry digested(SavepointFormatWriter writer) {
        PayloadDigest digest = writer.newPayloadDigest();
        digest.update(PAYLOAD, 0, PAYLOAD.length);
        String sha = digest.finishHex(PAYLOAD.length);
        return digest.chunks() == null
                ? new ManifestEntry(1, 7L, "pipeline-1.wire", PAYLOAD.length, sha)
                : new ManifestEntry(1, 7L, "pipeline-1.wire", PAYLOAD.length, sha, digest.chunks());
    }

    private static SavepointMeta written(SavepointFormatWriter writer) {
        SavepointRequest request = new SavepointRequest("42", "sp-1", SavepointKind.MANUAL, "keepsake-test",
                "engine-wire-v1", 10L, Map.of("k", "v"));
        return writer.metadata(request, 20L, List.of(digested(writer)));
    }

    @Test
    void theConfiguredVersionChoosesTheWriterOfThatVersion() {
        for (int version = Versions.OLDEST_FORMAT_VERSION; version <= Versions.CURRENT_FORMAT_VERSION; version++) {
            SavepointFormatWriter writer = new FormatSettings(version, 4, FormatSettings.standard().verification())
                    .writer();
            assertThat(writer.formatVersion()).isEqualTo(version);
            SavepointMeta meta = written(writer);
            assertThat(meta.formatVersion()).isEqualTo(version);
            assertThat(MetadataCodec.decode(writer.encodeMetadata(meta), "m")).isEqualTo(meta);
        }
    }

    @Test
    void version1RecordsThePlainSha256AndVersion2TheChunkDigests() {
        ManifestEntry one = digested(SavepointFormatWriter.forVersion(1, 4));
        ManifestEntry two = digested(SavepointFormatWriter.forVersion(2, 4));
        assertThat(one.chunks()).isNull();
        assertThat(one.sha256()).isEqualTo(DigestUtils.sha256Hex(PAYLOAD));
        assertThat(two.chunks().chunkSize()).isEqualTo(4);
        assertThat(two.chunks().count()).isEqualTo((PAYLOAD.length + 3) / 4);
        assertThat(two.sha256()).isEqualTo(ChunkDigests.of(4, two.chunks().concatenated()).fileDigestHex(PAYLOAD.length));
    }

    @Test
    void aWriterRefusesMetadataOfAnotherVersionAndVersionsItDoesNotWrite() {
        SavepointMeta v2 = written(SavepointFormatWriter.forVersion(2, 4));
        assertThatThrownBy(() -> SavepointFormatWriter.forVersion(1, 4).encodeMetadata(v2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sp-1").hasMessageContaining("format version 2");
        assertThatThrownBy(() -> SavepointFormatWriter.forVersion(Versions.CURRENT_FORMAT_VERSION + 1, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(Versions.CURRENT_FORMAT_VERSION + 1));
    }
}
