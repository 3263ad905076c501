package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.Map;

import static io.keepsake.fixtures.tck.PayloadBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What only the NameNode guarantees, asserted on a real HDFS: a publishing rename never
 * replaces or nests into an existing savepoint, create-if-absent is atomic even against a file
 * still being written by another client, and of racing commits of one savepoint id from
 * separate clients exactly one wins.
 */
class HdfsAtomicityTest {

    @RegisterExtension
    static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();

    private String namespace;
    private KeepsakeStorage storage;

    @BeforeEach
    void newNamespace() {
        namespace = hdfs.fs().normalizeRoot(hdfs.freshDirectory("/atomicity"));
    }

    @AfterEach
    void closeStorage() {
        if (storage != null) {
            storage.close();
            storage = null;
        }
    }

    /** A storage over the shared client that does not close it. */
    private KeepsakeStorage storage() {
        if (storage == null) {
            storage = KeepsakeStorage.open(new ForwardingFileSystem(hdfs.fs()), namespace, null, 0);
        }
        return storage;
    }

    private static SavepointHandle commit(KeepsakeStorage s, String jobId, String savepointId, byte[] payload) {
        try (SavepointWriter w = s.beginSavepoint(new SavepointRequest(jobId, savepointId, SavepointKind.MANUAL,
                "test", "test", System.currentTimeMillis(), Map.of()))) {
            try (OutputStream out = w.openPayload(1, 1)) {
                out.write(payload);
            }
            return w.commit(2_000L);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> tree(String dir) throws IOException {
        List<String> out = new ArrayList<>();
        for (FileStatus s : hdfs.fs().list(dir)) {
            out.add(s.path() + (s.directory() ? "/" : " " + s.length()));
            if (s.directory()) {
                out.addAll(tree(s.path()));
            }
        }
        out.sort(String::compareTo);
        return out;
    }

    private void write(HdfsFileSystem on, String path, byte[] content) throws IOException {
        try (SyncableOutputStream out = on.create(path, true)) {
            out.write(content);
            out.sync();
        }
    }

    private byte[] read(String path) throws IOException {
        try (InputStream in = hdfs.fs().open(path)) {
            return in.readAllBytes();
        }
    }

    @Test
    void hdfsPublishesByAtomicRenameAndNeedsNoDirectorySync() {
        assertThat(hdfs.fs().capabilities()).containsExactly(FsCapability.ATOMIC_DIRECTORY_RENAME);
    }

    @Test
    void renameOntoAnExistingSavepointFailsAndLeavesItUntouched() throws Exception {
        SavepointHandle existing = commit(storage(), "1001", "sp-1", bytes(1, 5_000));
        List<String> before = tree(existing.location());
        String staged = hdfs.fs().child(hdfs.fs().child((storage().savepointRoot() + "/" + "1001"), ".staging"), "intruder");
        write(hdfs.fs(), hdfs.fs().child(staged, "_metadata.ser"), bytes(2, 100));
        write(hdfs.fs(), hdfs.fs().child(staged, "pipeline-1.wire"), bytes(3, 100));

        assertThatThrownBy(() -> hdfs.fs().rename(staged, existing.location()))
                .isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(existing.location()).hasMessageContaining(staged);

        assertThat(tree(existing.location())).isEqualTo(before);
        assertThat(hdfs.fs().list(staged)).hasSize(2);
        assertThat(storage().readSavepoint("1001", "sp-1").payloadOfPipeline(1)).isEqualTo(bytes(1, 5_000));
    }

    @Test
    void renameOntoAnEmptyDirectoryFailsToo() throws Exception {
        String target = hdfs.fs().child(namespace, "empty-target");
        String source = hdfs.fs().child(namespace, "source");
        hdfs.fs().mkdirs(target);
        write(hdfs.fs(), hdfs.fs().child(source, "file"), bytes(4, 10));

        assertThatThrownBy(() -> hdfs.fs().rename(source, target)).isInstanceOf(FileAlreadyExistsException.class);

        assertThat(hdfs.fs().list(target)).isEmpty();
        assertThat(hdfs.fs().list(source)).extracting(FileStatus::name).containsExactly("file");
    }

    @Test
    void renameErrorsAreTypedAndNameBothPaths() throws Exception {
        String missing = hdfs.fs().child(namespace, "missing");
        String somewhere = hdfs.fs().child(namespace, "somewhere");
        assertThatThrownBy(() -> hdfs.fs().rename(missing, somewhere)).isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(missing).hasMessageContaining(somewhere);

        String source = hdfs.fs().child(namespace, "present");
        hdfs.fs().mkdirs(source);
        String orphan = hdfs.fs().child(hdfs.fs().child(namespace, "no-parent"), "target");
        assertThatThrownBy(() -> hdfs.fs().rename(source, orphan)).isInstanceOf(FileSystemException.class)
                .isNotInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(source).hasMessageContaining(orphan);
        assertThat(hdfs.fs().stat(source)).isPresent();
    }

    @Test
    void createIfAbsentOfMetadataFailsWhenItExists() throws Exception {
        SavepointHandle existing = commit(storage(), "1001", "sp-1", bytes(5, 300));
        String metadata = hdfs.fs().child(existing.location(), "_metadata.ser");
        byte[] before = read(metadata);

        assertThatThrownBy(() -> hdfs.fs().create(metadata, true)).isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(metadata);

        assertThat(read(metadata)).isEqualTo(before);
        assertThat(storage().readMetadata("1001", "sp-1")).isEqualTo(existing);
    }

    @Test
    void createIfAbsentFailsWhileAnotherClientIsStillWritingTheFile() throws Exception {
        String path = hdfs.fs().child(namespace, "_metadata.ser");
        try (HdfsFileSystem other = hdfs.newFileSystem()) {
            SyncableOutputStream first = other.create(path, true);
            first.write(bytes(6, 100));
            first.sync();

            assertThatThrownBy(() -> hdfs.fs().create(path, true)).isInstanceOf(FileAlreadyExistsException.class)
                    .hasMessageContaining(path);
            assertThatThrownBy(() -> other.create(path, true)).isInstanceOf(FileAlreadyExistsException.class);

            first.close();
        }
        assertThat(read(path)).isEqualTo(bytes(6, 100));
    }

    @Test
    void syncedBytesAreReadableByAnotherClientBeforeClose() throws Exception {
        String path = hdfs.fs().child(namespace, "synced");
        try (SyncableOutputStream out = hdfs.fs().create(path, true); HdfsFileSystem other = hdfs.newFileSystem()) {
            out.write(bytes(7, 4_096));
            out.sync();
            try (InputStream in = other.open(path)) {
                assertThat(in.readAllBytes()).isEqualTo(bytes(7, 4_096));
            }
        }
    }

    @Test
    void racingCommitsOfOneSavepointFromSeparateClientsLeaveExactlyOneWinner() throws Exception {
        int racers = 3;
        List<KeepsakeStorage> storages = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            for (int i = 0; i < racers; i++) {
                storages.add(KeepsakeStorage.open(hdfs.newFileSystem(), namespace, null));
            }
            for (int round = 0; round < 4; round++) {
                String id = "sp-race-" + round;
                CyclicBarrier ready = new CyclicBarrier(racers);
                List<Future<Integer>> outcomes = new ArrayList<>();
                for (int i = 0; i < racers; i++) {
                    KeepsakeStorage s = storages.get(i);
                    int racer = i;
                    Callable<Integer> race = () -> {
                        try (SavepointWriter w = s.beginSavepoint(
                                new SavepointRequest("1001", id, SavepointKind.MANUAL,
                                        "test", "test", System.currentTimeMillis(), Map.of()))) {
                            try (OutputStream out = w.openPayload(1, 1)) {
                                out.write(bytes(racer, 2_000));
                            }
                            ready.await(30, TimeUnit.SECONDS);
                            w.commit(3_000L);
                            return racer;
                        } catch (SavepointAlreadyExistsException lost) {
                            return -1;
                        }
                    };
                    outcomes.add(pool.submit(race));
                }
                List<Integer> winners = new ArrayList<>();
                for (Future<Integer> f : outcomes) {
                    int r = f.get(60, TimeUnit.SECONDS);
                    if (r >= 0) {
                        winners.add(r);
                    }
                }
                assertThat(winners).as("winners of round " + round).hasSize(1);
                assertThat(storage().readSavepoint("1001", id).payloadOfPipeline(1)).isEqualTo(bytes(winners.get(0), 2_000));
            }
            assertThat(storage().listSavepoints("1001")).hasSize(4);
            assertThat(storage().collectGarbage(Duration.ZERO).deleted()).isEmpty();
            assertThat(hdfs.fs().list(hdfs.fs().child((storage().savepointRoot() + "/" + "1001"), ".staging"))).isEmpty();
        } finally {
            pool.shutdownNow();
            for (KeepsakeStorage s : storages) {
                s.close();
            }
        }
    }

    @Test
    void everyCallRunsAsTheGivenUser() throws Exception {
        String shared = hdfs.fs().normalizeRoot(hdfs.freshDirectory("/shared"));
        org.apache.hadoop.fs.FileSystem su = hdfs.superuser();
        su.mkdirs(new org.apache.hadoop.fs.Path(shared));
        su.setPermission(new org.apache.hadoop.fs.Path(shared), new org.apache.hadoop.fs.permission.FsPermission((short) 0777));
        UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
        try (KeepsakeStorage s = KeepsakeStorage.open(new HdfsFileSystem(hdfs.clientConfiguration(), alice),
                hdfs.fs().child(shared, "ns"), null)) {
            String name = s.storeCheckPoint(new io.keepsake.storage.PipelineState("1001", 1, 1, bytes(8, 10)));
            commit(s, "1001", "sp-1", bytes(9, 10));
            assertThat(su.getFileStatus(new org.apache.hadoop.fs.Path(hdfs.fs().child(hdfs.fs().child(hdfs.fs().child(shared, "ns"), "1001"), name)))
                    .getOwner()).isEqualTo("alice");
            assertThat(su.getFileStatus(new org.apache.hadoop.fs.Path((s.savepointRoot() + "/" + "1001" + "/" + "sp-1"))).getOwner())
                    .isEqualTo("alice");
        }
    }

    @Test
    void rootsAreQualifiedWithTheNameNodeAndStayOnIt() {
        String authority = hdfs.uri().getAuthority();
        assertThat(hdfs.fs().normalizeRoot("/a//b/")).isEqualTo("hdfs://" + authority + "/a/b");
        assertThat(hdfs.fs().normalizeRoot("hdfs://" + authority + "/a/b")).isEqualTo("hdfs://" + authority + "/a/b");
        assertThat(hdfs.fs().normalizeRoot("hdfs:/a/b")).isEqualTo("hdfs://" + authority + "/a/b");
        for (String bad : List.of("a/b", "/a/../b", "/a/./b", "hdfs://elsewhere:8020/a", "file:///a", "")) {
            assertThatThrownBy(() -> hdfs.fs().normalizeRoot(bad)).as(bad)
                    .isInstanceOf(io.keepsake.storage.InvalidStorageArgumentException.class)
                    .hasMessageStartingWith("Cannot use storage root");
        }
    }

    @Test
    void listingAFileOrANothingIsEmpty() throws Exception {
        String file = hdfs.fs().child(namespace, "plain");
        write(hdfs.fs(), file, bytes(10, 3));
        assertThat(hdfs.fs().list(file)).isEmpty();
        assertThat(hdfs.fs().list(hdfs.fs().child(namespace, "nothing"))).isEmpty();
        assertThat(hdfs.fs().list(namespace)).extracting(FileStatus::path, FileStatus::length)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(file, 3L));
    }

    @Test
    void deletingANonEmptyDirectoryWithoutRecursionIsRefused() throws Exception {
        String dir = hdfs.fs().child(namespace, "full");
        write(hdfs.fs(), hdfs.fs().child(dir, "f"), bytes(11, 3));
        assertThatThrownBy(() -> hdfs.fs().delete(dir, false)).isInstanceOf(java.nio.file.DirectoryNotEmptyException.class)
                .hasMessageContaining(dir);
        assertThat(hdfs.fs().delete(dir, true)).isTrue();
        assertThat(hdfs.fs().delete(dir, true)).isFalse();
    }

    @Test
    void openingAMissingFileIsNoSuchFile() {
        String missing = hdfs.fs().child(namespace, "missing");
        assertThatThrownBy(() -> hdfs.fs().open(missing)).isInstanceOf(NoSuchFileException.class).hasMessageContaining(missing);
    }

    @Test
    void theStorageHandsOutCopiesOfItsHadoopConfiguration() throws Exception {
        try (KeepsakeStorage s = KeepsakeStorage.open(hdfs.newFileSystem(), namespace, null)) {
            HdfsStorages.hadoopConfiguration(s).set("fs.defaultFS", "file:///");
            assertThat(HdfsStorages.hadoopConfiguration(s).get("fs.defaultFS")).isEqualTo(hdfs.uri().toString());
        }
    }

    @Test
    void createInExistingDirectoryNeverRecreatesAMissingParentOnTheCluster() throws Exception {
        String dir = hdfs.fs().child(namespace, "staging-attempt");
        hdfs.fs().mkdirs(dir);
        try (io.keepsake.storage.spi.SyncableOutputStream out = hdfs.fs().createInExistingDirectory(hdfs.fs().child(dir, "a"), true)) {
            out.write(1);
        }
        assertThat(hdfs.fs().stat(hdfs.fs().child(dir, "a"))).get().extracting(io.keepsake.storage.spi.FileStatus::length)
                .isEqualTo(1L);
        hdfs.fs().delete(dir, true);
        for (boolean mustCreate : new boolean[] {true, false}) {
            assertThatThrownBy(() -> hdfs.fs().createInExistingDirectory(hdfs.fs().child(dir, "b"), mustCreate))
                    .isInstanceOf(java.nio.file.NoSuchFileException.class).hasMessageContaining(dir);
            assertThat(hdfs.fs().stat(dir)).isEmpty();
        }
        // The plain create does recreate the parent, as the protocol relied on so far.
        hdfs.fs().create(hdfs.fs().child(dir, "c"), true).close();
        assertThat(hdfs.fs().stat(dir)).isPresent();
    }
}
