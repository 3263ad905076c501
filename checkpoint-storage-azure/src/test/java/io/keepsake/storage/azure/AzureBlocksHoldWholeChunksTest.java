package io.keepsake.storage.azure;

import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.Block;
import com.azure.storage.blob.models.BlockListType;
import io.keepsake.fixtures.tck.UploadsHoldWholeChunks;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.azure.internal.AzureSettings;
import io.keepsake.storage.internal.ComposedStorage;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.keepsake.fixtures.tck.PayloadBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The staged blocks of a large format-version-2 payload line up with its chunks: read from the
 * server (Get Block List, uncommitted blocks) just before the payload's sync commits them, every
 * block is a whole number of chunks, so every block boundary is a chunk boundary; a small payload
 * stages none (one Put Blob); a configured block size that is not a whole number of chunks is
 * rounded up, and a file system is never built with one.
 */
class AzureBlocksHoldWholeChunksTest {

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    /** The sizes of the uncommitted blocks the server holds for {@code path}. */
    private static List<Long> stagedBlocks(String path) {
        List<Long> sizes = new ArrayList<>();
        AzureFileSystem fs = azurite.fs();
        try {
            for (Block b : fs.blockBlob(fs.path(path)).listBlocks(BlockListType.UNCOMMITTED).getUncommittedBlocks()) {
                sizes.add(b.getSizeLong());
            }
        } catch (BlobStorageException e) {
            if (e.getStatusCode() != 404) {
                throw e;
            }
        }
        return sizes;
    }

    @Test
    void everyBlockOfAVersion2PayloadIsAWholeNumberOfChunks() throws IOException {
        UploadsHoldWholeChunks.check(azurite.fs(),
                azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory("blocks") + "/ns"),
                azurite.fs().blockSize(), "block", AzureBlocksHoldWholeChunksTest::stagedBlocks,
                blocks -> assertThat(blocks).as("blocks staged before the sync").hasSizeGreaterThanOrEqualTo(4),
                "Put Blob");
    }

    @Test
    void aBlockSizeOfPartialChunksIsRoundedUpWhenConfiguredAndRefusedWhenBuilt() throws Exception {
        Map<String, String> config = new HashMap<>(azurite.keys(AzuritePerTestClass.freshDirectory("round") + "/ns"));
        config.put(AzureSettings.BLOCK_SIZE, "5500000");
        try (KeepsakeStorage storage = (KeepsakeStorage) CheckpointStorageFactories.find("azure").create(config)) {
            assertThat(((AzureFileSystem) ((ComposedStorage) storage).fileSystem()).blockSize())
                    .isEqualTo(6 * ChunkDigests.CHUNK_SIZE);
        }
        assertThatThrownBy(() -> AzuritePerTestClass.newFileSystemWithBlock(azurite.endpoint(),
                ChunkDigests.CHUNK_SIZE + 1)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("chunk size");
    }

    @Test
    void aStreamClosedWithoutSyncLeavesNothingVisible() throws IOException {
        AzureFileSystem fs = azurite.fs();
        String dir = AzuritePerTestClass.freshDirectory("abandoned");
        fs.mkdirs(dir);
        String file = fs.child(dir, "big");
        try (SyncableOutputStream out = fs.create(file, true)) {
            out.write(bytes(3, 2 * fs.blockSize() + 10));
        }
        assertThat(fs.stat(file)).isEmpty();
        assertThat(fs.listNames(dir)).isEmpty();
        String other = fs.child(dir, "small");
        try (SyncableOutputStream out = fs.create(other, true)) {
            out.write(bytes(4, 10));
            out.sync();
        }
        assertThat(fs.listNames(dir)).containsExactly("small");
        assertThat(fs.stat(other)).get().satisfies(s -> assertThat(s.length()).isEqualTo(10));
    }
}
