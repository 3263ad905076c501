package io.keepsake.storage.localfile;

import io.keepsake.fixtures.fs.LinkedTree;
import io.keepsake.storage.KeepsakeException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.keepsake.fixtures.fs.LinkedTree.assertARootBehindALinkWorks;
import static io.keepsake.fixtures.fs.LinkedTree.mkfifo;
import static io.keepsake.fixtures.fs.LinkedTree.primitivesThroughALink;
import static io.keepsake.fixtures.fs.LinkedTree.save;
import static io.keepsake.fixtures.fs.LinkedTree.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * On the local disk: no path component below a root is followed through a
 * symbolic link, and nothing blocks on a FIFO.
 */
class LocalPathHardeningTest {

    /** Generous: a FIFO read blocks forever, a correct refusal takes milliseconds. */
    private static final Duration HANG = Duration.ofSeconds(60);

    @TempDir
    Path temp;

    LinkedTree tree;
    KeepsakeStorage storage;

    @BeforeEach
    void setUp() throws IOException {
        tree = LinkedTree.under(temp);
        storage = KeepsakeStorage.open(new LocalFileSystem(), tree.ns().toString(), null);
    }

    @Test
    void deletingASavepointThroughALinkedJobIsRefusedAndNothingOutsideChanges() throws IOException {
        tree.assertADeleteThroughALinkedJobIsRefused(storage);
        assertThat(Files.isSymbolicLink(tree.spRoot().resolve("evil"))).isTrue();
    }

    @Test
    void listingAndReadingThroughALinkedJobIsRefused() throws IOException {
        Files.createSymbolicLink(tree.spRoot().resolve("evil"), tree.elsewhere());
        assertThatThrownBy(() -> storage.listSavepoints("evil")).isInstanceOf(SavepointStorageException.class)
                .hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> storage.readMetadata("evil", "important-project"))
                .isInstanceOf(SavepointStorageException.class).hasMessageContaining("symbolic link");
        assertThat(storage.listJobs()).doesNotContain("evil");
    }

    @Test
    void savingThroughALinkedJobIsRefusedAndWritesNothingOutside() throws IOException {
        Files.createSymbolicLink(tree.spRoot().resolve("evil"), tree.elsewhere());
        List<String> before = snapshot(tree.elsewhere());
        assertThatThrownBy(() -> save(storage, "evil", "sp-1")).isInstanceOf(SavepointStorageException.class);
        assertThat(snapshot(tree.elsewhere())).isEqualTo(before);
    }

    @Test
    void aStagingDirectoryThatIsALinkReceivesNothing() throws IOException {
        save(storage, "job", "sp-0");
        Path staging = tree.spRoot().resolve("job").resolve(".staging");
        if (Files.exists(staging)) {
            storage.collectGarbage(Duration.ZERO);
            Files.deleteIfExists(staging);
        }
        Path outside = Files.createDirectories(temp.resolve("outside-staging"));
        Files.createSymbolicLink(staging, outside);
        assertThatThrownBy(() -> save(storage, "job", "sp-1")).isInstanceOf(SavepointStorageException.class);
        assertThat(snapshot(outside)).containsExactly("");
        assertThat(storage.listSavepoints("job")).extracting(SavepointHandle::savepointId).containsExactly("sp-0");
    }

    @Test
    void checkpointsThroughALinkedJobDirectoryAreRefusedNotLost() throws Exception {
        Files.createSymbolicLink(tree.ns().resolve("evil"), tree.elsewhere());
        List<String> before = snapshot(tree.elsewhere());
        assertThatThrownBy(() -> storage.storeCheckPoint(new PipelineState("evil", 1, 1, new byte[] {1})))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> storage.getAllCheckpoints("evil")).isInstanceOf(CheckpointStorageException.class);
        assertThatThrownBy(() -> storage.deleteCheckpoint("evil")).isInstanceOf(KeepsakeException.class)
                .hasMessageContaining("symbolic link").hasMessageContaining("evil");
        assertThat(snapshot(tree.elsewhere())).isEqualTo(before);
        assertThat(tree.ns().resolve("evil")).isSymbolicLink();
    }

    @Test
    void aRootThatIsItselfALinkIsResolvedOnceAndWorks() throws Exception {
        assertARootBehindALinkWorks(temp, root -> KeepsakeStorage.open(new LocalFileSystem(), root, null));
    }

    @Test
    void everyPrimitiveRefusesALinkInAComponentBelowTheRoot() throws IOException {
        LocalFileSystem fs = new LocalFileSystem();
        String root = fs.normalizeRoot(temp.resolve("root").toString());
        Files.createDirectories(Path.of(root));
        Files.createSymbolicLink(Path.of(root, "evil"), tree.elsewhere());
        List<String> before = snapshot(tree.elsewhere());
        List<Executable> calls = primitivesThroughALink(fs, root);
        for (Executable call : calls) {
            assertThatThrownBy(call::execute).isInstanceOf(FileSystemException.class)
                    .hasMessageContaining(root + "/evil").hasMessageContaining("symbolic link");
        }
        Files.createDirectories(Path.of(root, "real"));
        Files.write(Path.of(root, "real", "f"), new byte[] {1});
        assertThatThrownBy(() -> fs.rename(root + "/real/f", root + "/evil/f"))
                .isInstanceOf(FileSystemException.class).hasMessageContaining("symbolic link");
        assertThat(snapshot(tree.elsewhere())).isEqualTo(before);
        // The link itself, as a last component, is listed as what it is; a recursive delete refuses it,
        // a plain delete removes the entry, never its target.
        assertThat(fs.list(root)).filteredOn(s -> s.name().equals("evil"))
                .extracting(FileStatus::type).containsExactly(FileStatus.Type.SYMBOLIC_LINK);
        assertThatThrownBy(() -> fs.delete(root + "/evil", true)).isInstanceOf(FileSystemException.class)
                .hasMessageContaining("symbolic link");
        assertThat(fs.delete(root + "/evil", false)).isTrue();
        assertThat(snapshot(tree.elsewhere())).isEqualTo(before);
    }

    @Test
    void createRecreatesMissingParentsButCreateInExistingDirectoryDoesNot() throws IOException {
        LocalFileSystem fs = new LocalFileSystem();
        String root = fs.normalizeRoot(temp.resolve("r2").toString());
        try (SyncableOutputStream out = fs.create(root + "/a/b/file", true)) {
            out.write(1);
        }
        assertThat(Path.of(root, "a", "b", "file")).exists();
        assertThatThrownBy(() -> fs.createInExistingDirectory(root + "/gone/file", true))
                .isInstanceOf(NoSuchFileException.class);
        assertThat(Path.of(root, "gone")).doesNotExist();
        try (SyncableOutputStream out = fs.createInExistingDirectory(root + "/a/b/second", true)) {
            out.write(2);
        }
        assertThat(Path.of(root, "a", "b", "second")).hasBinaryContent(new byte[] {2});
        assertThatThrownBy(() -> fs.createInExistingDirectory(root + "/a/b/second", true))
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    }

    @Test
    void aFifoIsReportedAsOtherAndNeverOpened() throws Exception {
        LocalFileSystem fs = new LocalFileSystem();
        String root = fs.normalizeRoot(temp.resolve("r3").toString());
        Files.createDirectories(Path.of(root));
        mkfifo(Path.of(root, "fifo"));
        assertTimeoutPreemptively(HANG, () -> {
            assertThat(fs.list(root)).extracting(FileStatus::type).containsExactly(FileStatus.Type.OTHER);
            assertThat(fs.stat(root + "/fifo")).get().extracting(FileStatus::regularFile).isEqualTo(false);
            assertThatThrownBy(() -> fs.open(root + "/fifo")).isInstanceOf(FileSystemException.class)
                    .hasMessageContaining(root + "/fifo").hasMessageContaining("not a regular file");
            assertThatThrownBy(() -> fs.create(root + "/fifo", false)).isInstanceOf(FileSystemException.class)
                    .hasMessageContaining("not a regular file");
        });
    }

    @Test
    void aFifoNamedMetadataNeverBlocksListingReadingOrGc() throws Exception {
        save(storage, "job", "sp-ok");
        Path dir = Files.createDirectories(tree.spRoot().resolve("job").resolve("sp-fifo"));
        mkfifo(dir.resolve("_metadata.ser"));
        assertTimeoutPreemptively(HANG, () -> {
            assertThat(storage.listSavepoints("job")).extracting(SavepointHandle::savepointId)
                    .containsExactly("sp-ok");
            assertThat(storage.scanSavepoints("job")).hasSize(2);
            assertThatThrownBy(() -> storage.readMetadata("job", "sp-fifo"))
                    .isInstanceOf(SavepointStorageException.class).hasMessageContaining("_metadata.ser");
            storage.collectGarbage(Duration.ofDays(1));
        });
    }

    /**
     * The lookup's names-only listings open nothing: a FIFO, a link to a folder outside and a
     * plain file planted in the job folder, and markers claiming the newest checkpoint for the
     * FIFO and the link, never block, never read outside, and are refused when the claim is read.
     */
    @Test
    void plantedEntriesAndMarkersInAJobFolderAreHintsThatReadingRefuses() throws Exception {
        save(storage, "job", "sp-ok");
        Path job = tree.spRoot().resolve("job");
        mkfifo(job.resolve("sp-fifo"));
        Files.createSymbolicLink(job.resolve("sp-link"), tree.elsewhere().resolve("important-project"));
        Files.write(job.resolve("sp-file"), new byte[] {7});
        Files.createFile(job.resolve(".index").resolve("1_99@sp-fifo"));
        Files.createFile(job.resolve(".index").resolve("1_98@sp-link"));
        mkfifo(job.resolve(".index").resolve("1_97@sp-file"));
        List<String> outside = snapshot(tree.elsewhere());
        assertTimeoutPreemptively(HANG, () -> {
            var hints = storage.hintSavepoints("job");
            assertThat(hints).extracting(io.keepsake.storage.SavepointHint::savepointId)
                    .containsExactlyInAnyOrder("sp-ok", "sp-fifo", "sp-link", "sp-file");
            assertThat(hints).filteredOn(h -> h.savepointId().equals("sp-link")).singleElement()
                    .satisfies(h -> assertThat(h.claims()).containsEntry(1, 98L));
            for (String id : List.of("sp-fifo", "sp-link", "sp-file")) {
                assertThatThrownBy(() -> storage.readMetadata("job", id)).as(id)
                        .isInstanceOf(SavepointStorageException.class).hasMessageContaining(id);
            }
            assertThat(storage.readMetadata("job", "sp-ok").savepointId()).isEqualTo("sp-ok");
        });
        assertThat(snapshot(tree.elsewhere())).isEqualTo(outside);
    }

    @Test
    void listNamesGivesTheNamesOfListWithoutOpeningAnything() throws Exception {
        LocalFileSystem fs = new LocalFileSystem();
        Path dir = Files.createDirectories(temp.resolve("names"));
        Files.createDirectories(dir.resolve("sub"));
        Files.write(dir.resolve("file"), new byte[] {1});
        mkfifo(dir.resolve("fifo"));
        Files.createSymbolicLink(dir.resolve("link"), tree.elsewhere());
        assertTimeoutPreemptively(HANG, () -> {
            assertThat(fs.listNames(dir.toString())).containsExactlyInAnyOrderElementsOf(
                    fs.list(dir.toString()).stream().map(FileStatus::name).toList());
            assertThat(fs.listNames(dir.toString())).containsExactlyInAnyOrder("sub", "file", "fifo", "link");
        });
        assertThat(fs.listNames(dir.resolve("absent").toString())).isEmpty();
        assertThatThrownBy(() -> fs.listNames(dir.resolve("link").resolve("important-project").toString()))
                .isInstanceOf(FileSystemException.class);
    }

    @Test
    void aFifoAsAPayloadNeverBlocksRestore() throws Exception {
        SavepointHandle h = save(storage, "job", "sp-1");
        Path payload = Path.of(h.location(), h.meta().manifest().get(0).file());
        Files.delete(payload);
        mkfifo(payload);
        assertTimeoutPreemptively(HANG, () -> {
            assertThatThrownBy(() -> storage.readSavepoint("job", "sp-1"))
                    .isInstanceOf(SavepointStorageException.class).hasMessageContaining(payload.toString());
            assertThatThrownBy(() -> {
                try (InputStream in = storage.openPayload(h, h.meta().manifest().get(0))) {
                    in.readAllBytes();
                }
            }).isInstanceOf(SavepointStorageException.class).hasMessageContaining(payload.toString());
        });
    }

    @Test
    void aFifoInACheckpointJobDirectoryNeverBlocks() throws Exception {
        storage.storeCheckPoint(new PipelineState("job", 1, 1, new byte[] {1}));
        mkfifo(tree.ns().resolve("job").resolve("1700000000000-123-1-2.ser"));
        assertTimeoutPreemptively(HANG, () -> {
            try {
                List<PipelineState> latest = storage.getLatestCheckpoint("job");
                assertThat(latest).isNotEmpty();
            } catch (CheckpointStorageException refused) {
                assertThat(refused).hasMessageContaining("1700000000000-123-1-2.ser");
            }
        });
    }
}
