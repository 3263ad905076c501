package io.keepsake.reader;

import io.keepsake.storage.SavepointIncompatibleException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SavepointReaderRegistryTest {

    private final SavepointReaderRegistry registry = SavepointReaderRegistry.standard();

    @Test
    void everyVersionInTheWindowHasAReader() {
        assertThat(SavepointReaderRegistry.MIN_SUPPORTED_FORMAT_VERSION).isLessThanOrEqualTo(SavepointReaderRegistry.CURRENT_FORMAT_VERSION);
        for (int v = SavepointReaderRegistry.MIN_SUPPORTED_FORMAT_VERSION; v <= SavepointReaderRegistry.CURRENT_FORMAT_VERSION; v++) {
            assertThat(registry.forVersion(v).formatVersion()).isEqualTo(v);
        }
    }

    @Test
    void aVersionBelowTheWindowSaysToMigrate() {
        assertThatThrownBy(() -> registry.forVersion(0)).isInstanceOf(SavepointIncompatibleException.class)
                .hasMessageContaining("keepsake migrate").hasMessageContaining("version 0")
                .satisfies(e -> assertThat(((SavepointIncompatibleException) e).foundVersion()).isZero());
    }

    @Test
    void aVersionAboveTheWindowSaysANewerEngineWroteIt() {
        int next = SavepointReaderRegistry.CURRENT_FORMAT_VERSION + 1;
        assertThatThrownBy(() -> registry.forVersion(next)).isInstanceOf(SavepointIncompatibleException.class)
                .hasMessageContaining("newer engine").hasMessageContaining("format version " + next)
                .satisfies(e -> assertThat(((SavepointIncompatibleException) e).maxSupported())
                        .isEqualTo(SavepointReaderRegistry.CURRENT_FORMAT_VERSION));
    }
}
