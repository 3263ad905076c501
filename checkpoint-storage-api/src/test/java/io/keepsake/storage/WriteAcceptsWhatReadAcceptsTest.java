package io.keepsake.storage;

import io.keepsake.storage.internal.MetadataCodec;
import io.keepsake.storage.internal.Names;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a commit would write is refused up front when a read would refuse it. */
class WriteAcceptsWhatReadAcceptsTest {

    private static SavepointRequest request(String producerVersion, Map<String, String> properties) {
        return new SavepointRequest("1", "sp-1", SavepointKind.MANUAL, producerVersion, "engine-wire-v1", 1L, properties);
    }

    @Test
    void aNullPropertyValueIsRefusedWhenTheRequestIsBuilt() {
        Map<String, String> props = new HashMap<>();
        props.put("owner", null);
        assertThatThrownBy(() -> request("v", props)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("owner").hasMessageContaining("null");
    }

    @Test
    void aNullPropertyKeyIsATypedErrorNotAnNpe() {
        Map<String, String> props = new HashMap<>();
        props.put(null, "x");
        assertThatThrownBy(() -> request("v", props)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("key is null");
        assertThatThrownBy(() -> request("v", null)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("properties");
    }

    @Test
    void aPropertyOrProducerVersionLargerThanTheMetadataBoundIsRefusedNamingIt() {
        String huge = "x".repeat(MetadataCodec.MAX_LENGTH + 1024);
        assertThatThrownBy(() -> request("v", Map.of("blob", huge))).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("property 'blob'");
        assertThatThrownBy(() -> request(huge, Map.of())).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("producerVersion");
        // Many properties, each small, add up too.
        Map<String, String> many = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            many.put("k" + i, "y".repeat(1024 * 1024));
        }
        assertThatThrownBy(() -> request("v", many)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(String.valueOf(MetadataCodec.MAX_LENGTH));
    }

    @Test
    void whatARequestAcceptsEncodesAndDecodesBack() {
        String big = "z".repeat(MetadataCodec.MAX_LENGTH / 2);
        SavepointRequest r = request("v\u00e9", Map.of("big", big, "", ""));
        SavepointMeta meta = new SavepointMeta(1, r.savepointId(), r.jobId(), r.kind(), r.producerVersion(), 1L, 2L,
                r.payloadFormat(), List.of(), r.properties());
        assertThat(MetadataCodec.decode(MetadataCodec.encode(meta), "m")).isEqualTo(meta);
    }

    @Test
    void aManifestTooLargeForTheBoundIsRefusedBeforeMetadataIsWritten() {
        String sha = "0".repeat(64);
        List<ManifestEntry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < 90_000; i++) {
            entries.add(new ManifestEntry(i, i, "pipeline-" + i + "-" + "n".repeat(150) + ".wire", 1L, sha));
        }
        SavepointMeta meta = new SavepointMeta(1, "sp-1", "1", SavepointKind.MANUAL, "v", 1L, 2L, "engine-wire-v1",
                entries, Map.of());
        assertThatThrownBy(() -> MetadataCodec.encode(meta)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("manifest");
    }

    @Test
    void textWithALoneSurrogateIsRefusedBecauseItWouldBeReadBackAsSomethingElse() {
        assertThatThrownBy(() -> request("v\ud800", Map.of())).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("producerVersion").hasMessageContaining("Unicode");
        assertThatThrownBy(() -> request("v", Map.of("k", "\udc00x"))).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("property 'k'");
    }

    @Test
    void idsWithLoneSurrogatesOrNotInNfcAreRefusedByNames() {
        for (String bad : List.of("a\ud800", "\udc00", "x\ud83d", "e\u0301")) {
            assertThat(Names.isSafeName(bad)).as(bad).isFalse();
            assertThatThrownBy(() -> new SavepointRequest(bad, "sp", SavepointKind.MANUAL, "v", "f", 1L, Map.of()))
                    .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("job id");
            assertThatThrownBy(() -> new SavepointRequest("1", bad, SavepointKind.MANUAL, "v", "f", 1L, Map.of()))
                    .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("savepoint id");
        }
        assertThat(Names.isSafeName("\u00e9t\u00e9-\ud83d\ude00")).isTrue();
    }

    @Test
    void aNullConfigurationKeyIsATypedErrorNamingIt() {
        Map<String, String> config = new HashMap<>();
        config.put("namespace", "/tmp/x");
        config.put(null, "value");
        assertThatThrownBy(() -> StorageOptions.parse(config, "localfile", Set.of(), List.of(), Set.of("localfile")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("a key is null");
    }
}
