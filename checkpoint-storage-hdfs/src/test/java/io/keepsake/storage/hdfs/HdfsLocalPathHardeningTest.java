package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.fs.LinkedTree;
import io.keepsake.storage.KeepsakeException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * On {@code file://} through Hadoop's raw local file system, where links are
 * real: no component below a root is followed through a link, and nothing blocks on a FIFO.
 */
class HdfsLocalPathHardeningTest {

    private static final Duration HANG = Duration.ofSeconds(60);

    @TempDir
    Path temp;

    HdfsFileSystem fs;
    LinkedTree tree;
    KeepsakeStorage storage;

    @BeforeEach
    void setUp() throws IOException {
        Configuration conf = new Configuration();
        conf.set("fs.defaultFS", "file:///");
        fs = new HdfsFileSystem(conf);
        tree = LinkedTree.under(temp);
        storage = KeepsakeStorage.open(fs, tree.ns().toString(), null, 0);
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    @Test
    void aLinkedJobIsRefusedForDeleteListAndSaveAndNothingOutsideChanges() throws IOException {
        tree.assertADeleteThroughALinkedJobIsRefused(storage);
        List<String> before = snapshot(tree.elsewhere());
        assertThatThrownBy(() -> storage.listSavepoints("evil")).isInstanceOf(SavepointStorageException.class)
                .hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> save(storage, "evil", "sp-1")).isInstanceOf(SavepointStorageException.class);
        assertThat(snapshot(tree.elsewhere())).isEqualTo(before);
        assertThat(Files.exists(tree.elsewhere().resolve("important-project").resolve("thesis.txt"))).isTrue();
    }

    @Test
    void aStagingLinkAndALinkedCheckpointDirectoryReceiveNothing() throws Exception {
        Path job = Files.createDirectories(tree.spRoot().resolve("job"));
        Files.createSymbolicLink(job.resolve(".staging"), tree.elsewhere());
        Files.createSymbolicLink(tree.ns().resolve("cpjob"), tree.elsewhere());
        List<String> before = snapshot(tree.elsewhere());
        try {
            // Without atomic directory rename (file://) the savepoint is staged in its own directory,
            // so .staging may not be used at all; either way nothing may reach the link's target.
            save(storage, "job", "sp-1");
        } catch (SavepointStorageException refused) {
            assertThat(refused).hasMessageContaining("symbolic link");
        }
        assertThatThrownBy(() -> storage.storeCheckPoint(new PipelineState("cpjob", 1, 1, new byte[] {1})))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> storage.collectGarbage(Duration.ZERO)).isInstanceOf(SavepointStorageException.class)
                .hasMessageContaining(".staging").hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> storage.deleteCheckpoint("cpjob")).isInstanceOf(KeepsakeException.class)
                .hasMessageContaining("symbolic link");
        assertThat(snapshot(tree.elsewhere())).isEqualTo(before);
    }

    @Test
    void everyPrimitiveRefusesALinkBelowTheRoot() throws IOException {
        String root = fs.normalizeRoot(temp.resolve("root").toString());
        Path rootDir = Files.createDirectories(temp.resolve("root"));
        Files.createSymbolicLink(rootDir.resolve("evil"), tree.elsewhere());
        List<String> before = snapshot(tree.elsewhere());
        List<Executable> calls = new ArrayList<>(primitivesThroughALink(fs, root));
        calls.add(() -> fs.delete(root + "/evil", true));
        for (Executable call : calls) {
            assertThatThrownBy(call::execute).isInstanceOf(FileSystemException.class)
                    .hasMessageContaining("symbolic link");
        }
        assertThat(snapshot(tree.elsewhere())).isEqualTo(before);
        assertThat(fs.list(root)).extracting(FileStatus::type).containsExactly(FileStatus.Type.SYMBOLIC_LINK);
    }

    @Test
    void aRootBehindALinkIsResolvedOnceAndWorks() throws Exception {
        assertARootBehindALinkWorks(temp, root -> KeepsakeStorage.open(fs, root, null, 0));
    }

    @Test
    void createInExistingDirectoryNeverRecreatesAMissingParent() throws IOException {
        String root = fs.normalizeRoot(temp.resolve("r2").toString());
        try (SyncableOutputStream out = fs.create(root + "/a/b/file", true)) {
            out.write(1);
        }
        assertThat(temp.resolve("r2/a/b/file")).exists();
        for (boolean mustCreate : new boolean[] {true, false}) {
            assertThatThrownBy(() -> fs.createInExistingDirectory(root + "/gone/file", mustCreate))
                    .isInstanceOf(NoSuchFileException.class);
            assertThat(temp.resolve("r2/gone")).doesNotExist();
        }
        try (SyncableOutputStream out = fs.createInExistingDirectory(root + "/a/b/second", true)) {
            out.write(2);
        }
        assertThat(temp.resolve("r2/a/b/second")).hasBinaryContent(new byte[] {2});
    }

    @Test
    void fifosAreReportedNeverOpenedAndNeverBlock() throws Exception {
        SavepointHandle h = save(storage, "job", "sp-1");
        Path payload = Path.of(h.location().replaceFirst("^file://", ""), h.meta().manifest().get(0).file());
        Files.delete(payload);
        mkfifo(payload);
        Path broken = Files.createDirectories(tree.spRoot().resolve("job").resolve("sp-fifo"));
        mkfifo(broken.resolve("_metadata.ser"));
        storage.storeCheckPoint(new PipelineState("job", 1, 1, new byte[] {1}));
        mkfifo(tree.ns().resolve("job").resolve("1700000000000-123-1-2.ser"));
        assertTimeoutPreemptively(HANG, () -> {
            assertThat(fs.stat(payload.toString())).get().extracting(FileStatus::type).isEqualTo(FileStatus.Type.OTHER);
            assertThatThrownBy(() -> fs.open(payload.toString())).isInstanceOf(FileSystemException.class)
                    .hasMessageContaining("not a regular file");
            assertThatThrownBy(() -> storage.readSavepoint("job", "sp-1")).isInstanceOf(SavepointStorageException.class);
            assertThat(storage.scanSavepoints("job")).hasSize(2);
            storage.collectGarbage(Duration.ofDays(1));
            try {
                assertThat(storage.getLatestCheckpoint("job")).isNotEmpty();
            } catch (CheckpointStorageException refused) {
                assertThat(refused).hasMessageContaining("1700000000000-123-1-2.ser");
            }
        });
    }
}
