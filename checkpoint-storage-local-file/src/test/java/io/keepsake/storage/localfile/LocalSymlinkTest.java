package io.keepsake.storage.localfile;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A symbolic link planted inside a savepoint never makes the library read outside its roots. */
class LocalSymlinkTest {

    @TempDir
    Path temp;

    @Test
    void aPayloadReplacedByALinkToAFileOutsideTheRootsIsNotRead() throws Exception {
        byte[] payload = {1, 2, 3, 4};
        Path outside = Files.write(temp.resolve("outside-secret"), payload);
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), temp.resolve("ns").toString(), null)) {
            SavepointHandle h;
            try (SavepointWriter w = storage.beginSavepoint(
                    new SavepointRequest("1", "sp-1", SavepointKind.MANUAL, "t", "f", 1L, Map.of()))) {
                try (OutputStream out = w.openPayload(1, 1)) {
                    out.write(payload);
                }
                h = w.commit(2L);
            }
            ManifestEntry entry = h.meta().manifest().get(0);
            Path file = Path.of(h.location(), entry.file());
            Files.delete(file);
            Files.createSymbolicLink(file, outside);
            assertThatThrownBy(() -> storage.readSavepoint("1", "sp-1")).isInstanceOf(SavepointStorageException.class)
                    .hasMessageContaining(entry.file());
            assertThatThrownBy(() -> storage.openPayload(h, entry).close()).isInstanceOf(SavepointStorageException.class)
                    .hasMessageContaining(entry.file()).hasMessageContaining("symbolic link");
            assertThat(storage.listSavepoints("1")).hasSize(1);
        }
    }
}
