package io.keepsake.storage.hdfs;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code file://} through Hadoop's raw local file system: where Hadoop's own create-if-absent and
 * rename are check-then-act, the primitives still give one winner, claim no atomic rename, and
 * leave no checksum side files.
 */
class HdfsFileSystemOnLocalDiskTest {

    @TempDir
    Path temp;

    @RegisterExtension
    static final RawLocalPerClass local = new RawLocalPerClass();

    @Test
    void theLocalDiskClaimsDirectorySyncButNotAtomicRename() {
        assertThat(local.fs().capabilities()).containsExactly(FsCapability.DIRECTORY_SYNC);
        assertThat(local.fs().uri().toString()).isEqualTo("file:///");
    }

    @Test
    void racingCreateIfAbsentHasExactlyOneWinnerEveryTime() throws Exception {
        String base = local.fs().normalizeRoot(temp.toString());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 100; round++) {
                String path = local.fs().child(base, "claim-" + round);
                CyclicBarrier start = new CyclicBarrier(2);
                List<Future<Boolean>> outcomes = new ArrayList<>();
                for (int racer = 0; racer < 2; racer++) {
                    byte content = (byte) racer;
                    Callable<Boolean> create = () -> {
                        start.await(10, TimeUnit.SECONDS);
                        try (SyncableOutputStream out = local.fs().create(path, true)) {
                            out.write(content);
                            return true;
                        } catch (FileAlreadyExistsException lost) {
                            return false;
                        }
                    };
                    outcomes.add(pool.submit(create));
                }
                int winners = 0;
                for (Future<Boolean> f : outcomes) {
                    winners += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(winners).as("winners of round " + round).isEqualTo(1);
                try (InputStream in = local.fs().open(path)) {
                    assertThat(in.readAllBytes()).hasSize(1);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void renameNeverReplacesAnExistingTarget() throws Exception {
        String base = local.fs().normalizeRoot(temp.toString());
        String source = local.fs().child(base, "source");
        String target = local.fs().child(base, "target");
        try (SyncableOutputStream out = local.fs().create(local.fs().child(source, "f"), true)) {
            out.write(1);
        }
        local.fs().mkdirs(target);
        assertThatThrownBy(() -> local.fs().rename(source, target)).isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(target);
        assertThat(local.fs().list(target)).isEmpty();
        local.fs().rename(source, local.fs().child(base, "moved"));
        assertThat(local.fs().list(local.fs().child(base, "moved"))).hasSize(1);
    }

    @Test
    void noChecksumSideFilesAreWritten() throws Exception {
        String base = local.fs().normalizeRoot(temp.toString());
        try (SyncableOutputStream out = local.fs().create(local.fs().child(base, "data"), true)) {
            out.write(new byte[100]);
            out.sync();
        }
        local.fs().syncDirectory(base);
        try (Stream<Path> files = Files.list(temp)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("data");
        }
    }

    @Test
    void localRootsAreQualifiedAsFileUris() {
        assertThat(local.fs().normalizeRoot("/tmp/x/")).isEqualTo("file:///tmp/x");
        assertThat(local.fs().normalizeRoot("file:/tmp/x")).isEqualTo("file:///tmp/x");
        assertThat(local.fs().normalizeRoot("file:///tmp/x")).isEqualTo("file:///tmp/x");
        assertThatThrownBy(() -> local.fs().normalizeRoot("hdfs://nn:8020/x")).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("another file system");
        assertThatThrownBy(() -> local.fs().normalizeRoot("file://host/x")).isInstanceOf(InvalidStorageArgumentException.class);
    }
}
