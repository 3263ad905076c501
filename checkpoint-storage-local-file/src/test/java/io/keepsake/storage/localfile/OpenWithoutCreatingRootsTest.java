package io.keepsake.storage.localfile;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.StorageRootNotFoundException;
import io.keepsake.storage.spi.FileSystemStorageFactory;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code create-roots=false}: opening writes nothing, a missing root is a typed not-found error. */
class OpenWithoutCreatingRootsTest {

    private static final String JOB = "700000000000000321";

    @TempDir
    Path temp;

    private final LocalFileStorageFactory factory = new LocalFileStorageFactory();

    @Test
    void aMissingNamespaceIsNotFoundAndNothingIsCreated() {
        Path missing = temp.resolve("mistyped").resolve("path");

        assertThatThrownBy(() -> factory.create(Map.of(StorageOptions.NAMESPACE, missing.toString(),
                StorageOptions.CREATE_ROOTS, "false")))
                .isInstanceOf(StorageRootNotFoundException.class)
                .hasMessageContaining("namespace").hasMessageContaining(missing.toString());
        assertThat(temp.resolve("mistyped")).doesNotExist();
    }

    @Test
    void aMissingExplicitSavepointPathIsNotFound() throws Exception {
        Path ns = Files.createDirectories(temp.resolve("ns"));
        Path sp = temp.resolve("sp");

        assertThatThrownBy(() -> factory.create(Map.of(StorageOptions.NAMESPACE, ns.toString(),
                StorageOptions.SAVEPOINT_PATH, sp.toString(), StorageOptions.CREATE_ROOTS, "false")))
                .isInstanceOf(StorageRootNotFoundException.class).hasMessageContaining("savepoint.path");
        assertThat(sp).doesNotExist();
    }

    @Test
    void aMissingDefaultSavepointRootReadsAsEmpty() throws Exception {
        Path ns = Files.createDirectories(temp.resolve("ns"));

        try (KeepsakeStorage storage = factory.create(Map.of(StorageOptions.NAMESPACE, ns.toString(),
                StorageOptions.CREATE_ROOTS, "false"))) {
            assertThat(storage.listJobs()).isEmpty();
            assertThat(storage.checkpointJobs()).isEmpty();
            assertThat(storage.planGarbage(Duration.ZERO)).isEmpty();
        }
        try (Stream<Path> s = Files.list(ns)) {
            assertThat(s.toList()).as("nothing created under the namespace").isEmpty();
        }
    }

    /** A linked default savepoint root is named a symbolic link, not "a file". */
    @Test
    void aLinkedDefaultSavepointRootIsNamedALinkThatIsNotFollowed() throws Exception {
        Path ns = Files.createDirectories(temp.resolve("ns"));
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
        Path link = Files.createSymbolicLink(ns.resolve("savepoint"), elsewhere);

        assertThatThrownBy(() -> factory.create(Map.of(StorageOptions.NAMESPACE, ns.toString(),
                StorageOptions.CREATE_ROOTS, "false")))
                .isInstanceOf(StorageRootNotFoundException.class)
                .hasMessageContaining("symbolic link").hasMessageContaining("does not follow")
                .hasMessageContaining(link.toString()).hasMessageNotContaining("a file");
        try (Stream<Path> s = Files.list(elsewhere)) {
            assertThat(s.toList()).as("nothing created through the link").isEmpty();
        }
    }

    @Test
    void aBadValueIsRefused() {
        assertThatThrownBy(() -> factory.create(Map.of(StorageOptions.NAMESPACE, temp.toString(),
                StorageOptions.CREATE_ROOTS, "maybe")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("create-roots");
    }

    @Test
    void theDefaultStillCreatesTheRoots() throws Exception {
        Path ns = temp.resolve("fresh");
        try (KeepsakeStorage storage = factory.create(Map.of(StorageOptions.NAMESPACE, ns.toString()))) {
            assertThat(storage.listJobs()).isEmpty();
        }
        assertThat(ns.resolve("savepoint")).isDirectory();
    }

    /**
     * A read-only account: a file system that refuses every write still opens, lists, plans
     * garbage collection and reads savepoints (running as root, a chmod would not show this).
     */
    @Test
    void aFileSystemThatRefusesEveryWriteCanStillListAndRead() throws Exception {
        Path ns = temp.resolve("ns");
        try (KeepsakeStorage writable = factory.create(Map.of(StorageOptions.NAMESPACE, ns.toString()))) {
            try (SavepointWriter w = writable.beginSavepoint(new SavepointRequest(JOB, "sp-1", SavepointKind.MANUAL,
                    "test", "engine-wire-v1", 1L, Map.of()))) {
                try (OutputStream out = w.openPayload(1, 6)) {
                    out.write(new byte[] {1, 2, 3});
                }
                w.commit(2L);
            }
        }
        ReadOnlyFactory readOnly = new ReadOnlyFactory();

        try (KeepsakeStorage storage = readOnly.create(Map.of(StorageOptions.NAMESPACE, ns.toString(),
                StorageOptions.CREATE_ROOTS, "false"))) {
            assertThat(storage.listJobs()).containsExactly(JOB);
            assertThat(storage.scanSavepoints(JOB)).hasSize(1);
            assertThat(storage.readMetadata(JOB, "sp-1").meta().manifest()).hasSize(1);
            assertThat(storage.planGarbage(Duration.ZERO)).isEmpty();
        }
        assertThatThrownBy(() -> readOnly.create(Map.of(StorageOptions.NAMESPACE, ns.toString())))
                .as("creating the roots needs a write").isInstanceOf(CheckpointStorageException.class);
    }

    /** The local backend over a file system whose every write is denied. */
    private static final class ReadOnlyFactory extends FileSystemStorageFactory {

        ReadOnlyFactory() {
            super("readonly", Set.of(), List.of(), Set.of());
        }

        @Override
        protected StorageFileSystem openFileSystem(StorageOptions options) {
            return new ForwardingFileSystem(new LocalFileSystem()) {
                @Override
                public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
                    throw new AccessDeniedException(path);
                }

                @Override
                public void rename(String source, String target) throws IOException {
                    throw new AccessDeniedException(source);
                }

                @Override
                public boolean delete(String path, boolean recursive) throws IOException {
                    throw new AccessDeniedException(path);
                }

                @Override
                public void mkdirs(String path) throws IOException {
                    throw new AccessDeniedException(path);
                }
            };
        }

        @Override
        protected void prepareRoots(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage)
                throws CheckpointStorageException {
            try {
                fileSystem.mkdirs(storage.namespace());
            } catch (IOException e) {
                throw new CheckpointStorageException("Cannot create root: " + e.getMessage(), e);
            }
        }
    }
}
