package io.keepsake.storage;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code savepoint.format-version} and {@code savepoint.verify-threads}: their defaults, and bad values refused by name. */
class StorageOptionsFormatKeysTest {

    private static StorageOptions parse(Map<String, String> keys) {
        Map<String, String> config = new java.util.HashMap<>(keys);
        config.put(StorageOptions.NAMESPACE, "/ns");
        return StorageOptions.parse(config, "test", Set.of(), List.of(), Set.of("test"));
    }

    @Test
    void versionTwoAndOneVerifierPerProcessorUnlessConfigured() {
        StorageOptions defaults = parse(Map.of());
        assertThat(defaults.formatVersion()).isEqualTo(Versions.CURRENT_FORMAT_VERSION).isEqualTo(2);
        assertThat(defaults.verifyThreads()).isEqualTo(Runtime.getRuntime().availableProcessors());
        StorageOptions rollback = parse(Map.of(StorageOptions.FORMAT_VERSION, "1", StorageOptions.VERIFY_THREADS, " 3 "));
        assertThat(rollback.formatVersion()).isEqualTo(1);
        assertThat(rollback.verifyThreads()).isEqualTo(3);
        assertThat(StorageOptions.of("/ns", null, 0).formatVersion()).isEqualTo(2);
    }

    @Test
    void aVersionOutsideTheWindowOrAThreadCountBelowOneIsRefusedByName() {
        for (String version : List.of("0", "3", "two", "")) {
            assertThatThrownBy(() -> parse(Map.of(StorageOptions.FORMAT_VERSION, version)))
                    .isInstanceOf(InvalidStorageArgumentException.class)
                    .hasMessageContaining(StorageOptions.FORMAT_VERSION).hasMessageContaining("1 to 2");
        }
        for (String threads : List.of("0", "-1", "many")) {
            assertThatThrownBy(() -> parse(Map.of(StorageOptions.VERIFY_THREADS, threads)))
                    .isInstanceOf(InvalidStorageArgumentException.class)
                    .hasMessageContaining(StorageOptions.VERIFY_THREADS);
        }
        assertThatThrownBy(() -> StorageOptions.of("/ns", null, 0).withFormatVersion(3))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining(StorageOptions.FORMAT_VERSION);
    }
}
