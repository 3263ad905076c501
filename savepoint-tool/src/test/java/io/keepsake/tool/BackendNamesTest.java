package io.keepsake.tool;

import io.keepsake.storage.InvalidStorageArgumentException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the tool says when a backend is not on its class path. */
class BackendNamesTest {

    private static final InvalidStorageArgumentException LOOKUP = new InvalidStorageArgumentException(
            "Cannot find checkpoint storage 's3': the providers found are [localfile]; put the backend's jar on the"
                    + " classpath");

    @Test
    void theSmallJarSendsHdfsAndS3ToTheFullJar() {
        InvalidStorageArgumentException e = BackendNames.notFound("s3", List.of("localfile"), "keepsake-local", LOOKUP);

        assertThat(e.getMessage()).isEqualTo("Cannot open s3 storage: keepsake-local.jar has only the local-file backend"
                + " [localfile]; run keepsake.jar instead (java -jar keepsake.jar with the same arguments), which adds"
                + " hdfs, s3 and azure");
        assertThat(e.getCause()).isSameAs(LOOKUP);
    }

    @Test
    void anotherClassPathIsToldWhichModuleIsMissing() {
        assertThat(BackendNames.notFound("hdfs", List.of("localfile"), null, LOOKUP).getMessage())
                .contains("keepsake.jar has it", "checkpoint-storage-hdfs");
    }

    @Test
    void anUnknownIdKeepsTheLookupsMessage() {
        assertThat(BackendNames.notFound("s3-nope", List.of("localfile"), "keepsake-local", LOOKUP)).isSameAs(LOOKUP);
    }

    @Test
    void theTestClassPathHasEveryBackend() {
        assertThat(BackendNames.ids()).contains("localfile", "hdfs", "s3");
    }
}
