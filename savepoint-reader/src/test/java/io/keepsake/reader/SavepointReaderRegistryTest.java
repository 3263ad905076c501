package io.keepsake.reader;

import io.keepsake.storage.SavepointIncompatibleException;
import org.junit.jupiter.api.Test;

import java.util.List;

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
    void thisBuildReadsVersions1And2AndARegistryOfChosenReadersHasTheirWindow() {
        assertThat(registry.oldestVersion()).isEqualTo(1);
        assertThat(registry.newestVersion()).isEqualTo(2);
        assertThat(registry.forVersion(2)).isInstanceOf(V2SavepointReader.class);
        SavepointReaderRegistry version1Build = new SavepointReaderRegistry(List.of(new V1SavepointReader()));
        assertThat(version1Build.newestVersion()).isEqualTo(1);
        assertThatThrownBy(() -> version1Build.forVersion(2)).isInstanceOf(SavepointIncompatibleException.class)
                .hasMessageContaining("restore it with a Keepsake build that reads format version 2")
                .hasMessageContaining("this build reads versions 1 to 1");
        SavepointReaderRegistry version2Only = new SavepointReaderRegistry(List.of(new V2SavepointReader()));
        assertThatThrownBy(() -> version2Only.forVersion(1)).isInstanceOf(SavepointIncompatibleException.class)
                .hasMessageContaining("keepsake migrate").hasMessageContaining("version 2");
        assertThatThrownBy(() -> new SavepointReaderRegistry(List.of(new V1SavepointReader(), new V1SavepointReader())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SavepointReaderRegistry(List.of())).isInstanceOf(IllegalArgumentException.class);
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
