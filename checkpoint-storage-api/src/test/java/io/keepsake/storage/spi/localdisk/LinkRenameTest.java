package io.keepsake.storage.spi.localdisk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The link-based rename that the local-file backend and the HDFS backend's local disk share. */
class LinkRenameTest {

    @TempDir
    Path dir;

    @Test
    void theTargetHoldsTheWholeFileAndTheSourceNameIsGone() throws IOException {
        Path from = Files.write(dir.resolve("a"), new byte[] {1, 2, 3});
        Path to = dir.resolve("b");

        LinkRename.renameFile(from, to, "/s/a", "/s/b", () -> Files.delete(from));

        assertThat(to).hasBinaryContent(new byte[] {1, 2, 3});
        assertThat(from).doesNotExist();
    }

    @Test
    void anExistingTargetIsNeverReplacedAndTheSourceStays() throws IOException {
        Path from = Files.write(dir.resolve("a"), new byte[] {1});
        Path to = Files.write(dir.resolve("b"), new byte[] {2});
        AtomicInteger unlinks = new AtomicInteger();

        assertThatThrownBy(() -> LinkRename.renameFile(from, to, "/s/a", "/s/b", unlinks::incrementAndGet))
                .isInstanceOf(FileAlreadyExistsException.class)
                .satisfies(e -> {
                    FileAlreadyExistsException exists = (FileAlreadyExistsException) e;
                    assertThat(exists.getFile()).isEqualTo("/s/b");
                    assertThat(exists.getOtherFile()).isEqualTo("/s/a");
                    assertThat(exists.getReason()).isEqualTo("rename target exists");
                });
        assertThat(to).hasBinaryContent(new byte[] {2});
        assertThat(from).exists();
        assertThat(unlinks).hasValue(0);
    }

    @Test
    void aLinkAtTheTargetCountsAsSomethingThere() throws IOException {
        Path from = Files.write(dir.resolve("a"), new byte[] {1});
        Path to = Files.createSymbolicLink(dir.resolve("b"), dir.resolve("nowhere"));

        assertThatThrownBy(() -> LinkRename.renameFile(from, to, "/s/a", "/s/b", () -> Files.delete(from)))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(from).exists();
    }

    @Test
    void aMissingSourceIsNamedAsTheSource() {
        assertThatThrownBy(() -> LinkRename.renameFile(dir.resolve("a"), dir.resolve("b"), "/s/a", "/s/b",
                () -> { }))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining("/s/a")
                .hasMessageContaining("rename source is missing");
    }

    @Test
    void aMissingTargetParentIsNotTakenForAMissingSource() throws IOException {
        Path from = Files.write(dir.resolve("a"), new byte[] {1});

        assertThatThrownBy(() -> LinkRename.renameFile(from, dir.resolve("gone").resolve("b"), "/s/a", "/s/gone/b",
                () -> Files.delete(from)))
                .isInstanceOf(FileSystemException.class)
                .isNotInstanceOf(NoSuchFileException.class)
                .hasMessageContaining("rename target's parent directory is missing");
        assertThat(from).exists();
    }
}
