package io.keepsake.storage.s3;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

import static io.keepsake.fixtures.tck.PayloadBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The S3 primitives on the in-process server: paths, markers, multipart, listing pages, batched deletes, relocation. */
class S3FileSystemTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    @TempDir
    Path local;

    private static void write(StorageFileSystem on, String path, byte[] content, boolean mustCreate) throws IOException {
        try (SyncableOutputStream out = on.create(path, mustCreate)) {
            out.write(content);
            out.sync();
        }
    }

    private static byte[] read(StorageFileSystem on, String path) throws IOException {
        try (InputStream in = on.open(path)) {
            return in.readAllBytes();
        }
    }

    @Test
    void rootsAreNormalisedToS3UrisAndBadOnesRefused() {
        assertThat(server.fs().normalizeRoot("/a/b/")).isEqualTo("s3://keepsake/a/b");
        assertThat(server.fs().normalizeRoot("s3a://other/x")).isEqualTo("s3://other/x");
        assertThat(server.fs().normalizeRoot("S3N://other/x/")).isEqualTo("s3://other/x");
        for (String bad : new String[] {"relative/path", "/a/../b", "/a//b", "s3a:///x", "hdfs://nn/x"}) {
            assertThatThrownBy(() -> server.fs().normalizeRoot(bad)).as(bad).isInstanceOf(InvalidStorageArgumentException.class);
        }
        assertThat(server.fs().capabilities()).containsExactly(FsCapability.ATOMIC_FILE_CREATE);
    }

    @Test
    void aMultipartFileReadsBackWholeAndAppearsOnlyOnSync() throws IOException {
        String path = S3ProxyServer.freshDirectory("fs") + "/big.bin";
        byte[] content = bytes(1, 2 * S3FileSystem.MIN_PART_SIZE + 12_345);
        try (SyncableOutputStream out = server.fs().create(path, true)) {
            for (int off = 0; off < content.length; off += 100_000) {
                out.write(content, off, Math.min(100_000, content.length - off));
            }
            assertThat(server.fs().stat(path)).as("not visible before sync").isEmpty();
            assertThat(server.fs().pendingUploads(S3ProxyServer.freshDirectory("none"))).isEmpty();
            out.sync();
            assertThatThrownBy(() -> out.write(1)).isInstanceOf(IOException.class).hasMessageContaining("append");
        }
        assertThat(server.fs().stat(path)).get().extracting(FileStatus::length).isEqualTo((long) content.length);
        assertThat(read(server.fs(), path)).isEqualTo(content);
        assertThatThrownBy(() -> write(server.fs(), path, new byte[] {1}, true)).isInstanceOf(FileAlreadyExistsException.class);
        write(server.fs(), path, new byte[] {7}, false);
        assertThat(read(server.fs(), path)).containsExactly(7);
    }

    @Test
    void aStreamClosedWithoutSyncLeavesNoObjectAndNoUpload() throws IOException {
        String dir = S3ProxyServer.freshDirectory("fs");
        try (SyncableOutputStream out = server.fs().create(dir + "/abandoned.bin", true)) {
            out.write(bytes(2, S3FileSystem.MIN_PART_SIZE + 10));
        }
        assertThat(server.fs().stat(dir + "/abandoned.bin")).isEmpty();
        assertThat(server.fs().pendingUploads(dir)).isEmpty();
    }

    @Test
    void pendingUploadsAreListedAndAborted() throws IOException {
        String dir = S3ProxyServer.freshDirectory("fs");
        String key = dir.substring((S3Path.SCHEME + S3ProxyServer.BUCKET + "/").length()) + "/left/behind.bin";
        String id = server.fs().client().createMultipartUpload(b -> b.bucket(S3ProxyServer.BUCKET).key(key)).uploadId();
        assertThat(server.fs().pendingUploads(dir)).singleElement().satisfies(u -> {
            assertThat(u.uploadId()).isEqualTo(id);
            assertThat(u.path()).isEqualTo(dir + "/left/behind.bin");
        });
        server.fs().abortUpload(server.fs().pendingUploads(dir).get(0));
        assertThat(server.fs().pendingUploads(dir)).isEmpty();
    }

    @Test
    void directoriesArePrefixesWithMarkers() throws IOException {
        String dir = S3ProxyServer.freshDirectory("fs");
        server.fs().mkdirs(dir + "/empty");
        write(server.fs(), dir + "/full/a", new byte[] {1}, true);
        assertThat(server.fs().list(dir)).extracting(FileStatus::name, FileStatus::directory)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("empty", true),
                        org.assertj.core.groups.Tuple.tuple("full", true));
        assertThat(server.fs().stat(dir + "/empty")).get().extracting(FileStatus::directory).isEqualTo(true);
        assertThatThrownBy(() -> server.fs().createInExistingDirectory(dir + "/missing/x", true))
                .isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> server.fs().delete(dir + "/full", false)).isInstanceOf(DirectoryNotEmptyException.class);
        assertThatThrownBy(() -> server.fs().open(dir + "/full")).isInstanceOf(IOException.class)
                .isNotInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> server.fs().open(dir + "/nothing")).isInstanceOf(NoSuchFileException.class);
        assertThat(server.fs().delete(dir + "/empty", false)).isTrue();
        assertThat(server.fs().stat(dir + "/empty")).isEmpty();
        assertThat(server.fs().delete(dir + "/empty", false)).isFalse();
    }

    @Test
    void aJobWith10000SavepointFoldersListsWhole() throws IOException {
        String dir = S3ProxyServer.freshDirectory("many");
        String key = dir.substring((S3Path.SCHEME + S3ProxyServer.BUCKET + "/").length());
        for (int i = 0; i < 10_000; i++) {
            server.plant(key + "/sp-" + i + "/_metadata.ser", new byte[] {1});
        }
        server.plant(key + "/notes.txt", new byte[] {2, 3});
        var entries = server.fs().list(dir);
        assertThat(entries).hasSize(10_001);
        assertThat(entries.stream().filter(FileStatus::directory).map(FileStatus::name).distinct().count())
                .isEqualTo(10_000);
        assertThat(entries).filteredOn(e -> !e.directory()).singleElement()
                .extracting(FileStatus::name, FileStatus::length).containsExactly("notes.txt", 2L);
    }

    @Test
    void aRecursiveDeleteOfMoreThanOneBatchRemovesEverything() throws IOException {
        String dir = S3ProxyServer.freshDirectory("batch");
        String key = dir.substring((S3Path.SCHEME + S3ProxyServer.BUCKET + "/").length());
        for (int i = 0; i < 2_500; i++) {
            server.plant(key + "/d" + (i % 7) + "/f-" + i, new byte[] {1});
        }
        server.fs().mkdirs(dir);
        assertThat(server.fs().delete(dir, true)).isTrue();
        assertThat(server.fs().stat(dir)).isEmpty();
        assertThat(server.fs().list(dir)).isEmpty();
    }

    private static SavepointHandle commit(KeepsakeStorage s, Map<Integer, byte[]> payloads) throws IOException {
        try (SavepointWriter w = s.beginSavepoint(new SavepointRequest("1001", "sp-moved", SavepointKind.MANUAL, "t",
                "test-payload", 1L, Map.of()))) {
            for (Map.Entry<Integer, byte[]> p : payloads.entrySet()) {
                try (OutputStream out = w.openPayload(p.getKey(), 3)) {
                    out.write(p.getValue());
                }
            }
            return w.commit(2L);
        }
    }

    /** Copies a savepoint folder file by file, as an operator's copy tool would. */
    private static void copy(StorageFileSystem from, String source, StorageFileSystem to, String target)
            throws IOException {
        to.mkdirs(target);
        for (FileStatus f : from.list(source)) {
            write(to, to.child(target, f.name()), read(from, f.path()), true);
        }
    }

    @Test
    void aSavepointCopiedBetweenLocalDiskAndS3RestoresBothWays() throws IOException {
        Map<Integer, byte[]> payloads = Map.of(1, bytes(5, 1000), 2, bytes(6, S3FileSystem.MIN_PART_SIZE + 7));
        S3FileSystem s3 = server.fs();
        try (LocalFileSystem disk = new LocalFileSystem()) {
            String localNs = disk.normalizeRoot(local.resolve("ns").toString());
            String s3Ns = S3ProxyServer.freshDirectory("reloc") + "/ns";
            try (KeepsakeStorage onDisk = KeepsakeStorage.open(disk, localNs, null);
                 KeepsakeStorage onS3 = KeepsakeStorage.open(new io.keepsake.fixtures.faults.ForwardingFileSystem(s3),
                         s3.normalizeRoot(s3Ns), null)) {
                SavepointHandle h = commit(onDisk, payloads);
                copy(disk, h.location(), s3, s3.child(s3.child(onS3.savepointRoot(), "1001"), "sp-moved"));
                var restored = onS3.readSavepoint("1001", "sp-moved");
                payloads.forEach((pid, b) -> assertThat(restored.payloadOfPipeline(pid)).isEqualTo(b));

                String back = disk.normalizeRoot(local.resolve("back").toString());
                try (KeepsakeStorage onDisk2 = KeepsakeStorage.open(disk, back, null)) {
                    copy(s3, restored.handle().location(), disk,
                            disk.child(disk.child(onDisk2.savepointRoot(), "1001"), "sp-moved"));
                    var again = onDisk2.readSavepoint("1001", "sp-moved");
                    payloads.forEach((pid, b) -> assertThat(again.payloadOfPipeline(pid)).isEqualTo(b));
                }
            }
        }
    }
}
