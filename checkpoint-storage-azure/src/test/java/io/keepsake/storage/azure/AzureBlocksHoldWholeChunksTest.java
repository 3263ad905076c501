package io.keepsake.storage.azure;

import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.Block;
import com.azure.storage.blob.models.BlockListType;
import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.faults.ForwardingOutputStream;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.azure.internal.AzureSettings;
import io.keepsake.storage.internal.ComposedStorage;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

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

    /** Lists, when a payload's sync is about to commit its blocks, the sizes of the blocks the server holds. */
    private static final class BlockListing extends ForwardingFileSystem {
        final Map<String, List<Long>> blocksByFile = new ConcurrentHashMap<>();

        BlockListing() {
            super(azurite.fs());
        }

        @Override
        public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
            return listed(path, super.createInExistingDirectory(path, mustCreate));
        }

        @Override
        public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
            return listed(path, super.create(path, mustCreate));
        }

        private SyncableOutputStream listed(String path, SyncableOutputStream out) {
            if (!path.substring(path.lastIndexOf('/') + 1).startsWith("pipeline-")) {
                return out;
            }
            return new ForwardingOutputStream(out) {
                @Override
                public void sync() throws IOException {
                    blocksByFile.put(path.substring(path.lastIndexOf('/') + 1), stagedBlocks(path));
                    super.sync();
                }
            };
        }

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
    }

    private static byte[] bytes(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void everyBlockOfAVersion2PayloadIsAWholeNumberOfChunks() throws IOException {
        int chunk = ChunkDigests.CHUNK_SIZE;
        int block = azurite.fs().blockSize();
        Map<Integer, byte[]> payloads = Map.of(1, bytes(1, 2 * block + 5 * chunk / 2), 2, bytes(2, 1000));
        BlockListing listing = new BlockListing();
        String ns = azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory("blocks") + "/ns");
        try (KeepsakeStorage storage = KeepsakeStorage.open(listing, ns, null)) {
            SavepointHandle h;
            try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest("1001", "sp-blocks",
                    SavepointKind.MANUAL, "t", "test-payload", 1L, Map.of()))) {
                for (Map.Entry<Integer, byte[]> p : payloads.entrySet()) {
                    try (OutputStream out = w.openPayload(p.getKey(), 7)) {
                        out.write(p.getValue());
                    }
                }
                h = w.commit(2L);
            }
            assertThat(h.meta().formatVersion()).isEqualTo(2);
            ManifestEntry large = h.meta().entryForPipeline(1);
            assertThat(large.chunks().chunkSize()).isEqualTo(chunk);
            List<Long> blocks = listing.blocksByFile.get(large.file());
            assertThat(blocks).as("blocks staged before the sync").hasSizeGreaterThanOrEqualTo(4);
            long offset = 0;
            for (long size : blocks) {
                assertThat(offset % chunk).as("block starting at byte " + offset + " starts a chunk").isZero();
                assertThat(size % chunk).as("block of " + size + " bytes holds whole chunks").isZero();
                offset += size;
            }
            assertThat(offset % chunk).as("the last block starts a chunk").isZero();
            assertThat(large.length() - offset).as("bytes of the last block").isPositive().isLessThanOrEqualTo(block);
            assertThat(offset / chunk + ChunkDigests.chunkCount(large.length() - offset, chunk))
                    .as("chunks in the blocks").isEqualTo(large.chunks().count());
            assertThat(listing.blocksByFile.get(h.meta().entryForPipeline(2).file()))
                    .as("a small payload is one Put Blob").isEmpty();
            var content = storage.readSavepoint("1001", "sp-blocks");
            payloads.forEach((pid, b) -> assertThat(content.payloadOfPipeline(pid)).isEqualTo(b));
        }
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
