package io.keepsake.storage.s3;

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
import io.keepsake.storage.internal.ComposedStorage;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;

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
 * The parts of a format-version-2 payload's multipart upload line up with its chunks: read from
 * the server with {@code ListParts} just before the payload's sync completes the upload, every
 * part is a whole number of chunks (and at least S3's 5 MiB), so every part boundary is a chunk
 * boundary; a configured part size that is not a whole number of chunks is rounded up, and a file
 * system is never built with one.
 */
class S3PartsHoldWholeChunksTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    /** Lists, when a payload's sync is about to complete its upload, the sizes of the parts the server holds. */
    private static final class PartListing extends ForwardingFileSystem {
        final Map<String, List<Long>> partsByFile = new ConcurrentHashMap<>();

        PartListing() {
            super(server.fs());
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
                    partsByFile.put(path.substring(path.lastIndexOf('/') + 1), partSizes(server.fs().path(path)));
                    super.sync();
                }
            };
        }

        private static List<Long> partSizes(S3Path target) {
            List<Long> sizes = new ArrayList<>();
            for (MultipartUpload upload : server.client().listMultipartUploads(b -> b.bucket(target.bucket())
                    .prefix(target.key())).uploads()) {
                if (upload.key().equals(target.key())) {
                    for (Part part : server.client().listParts(b -> b.bucket(target.bucket()).key(target.key())
                            .uploadId(upload.uploadId())).parts()) {
                        sizes.add(part.size());
                    }
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
    void everyPartOfAVersion2PayloadIsAWholeNumberOfChunks() throws IOException {
        int chunk = ChunkDigests.CHUNK_SIZE;
        Map<Integer, byte[]> payloads = Map.of(1, bytes(1, 2 * server.fs().partSize() + 5 * chunk / 2), 2, bytes(2, 1000));
        PartListing listing = new PartListing();
        String ns = server.fs().normalizeRoot(S3ProxyServer.freshDirectory("parts") + "/ns");
        try (KeepsakeStorage storage = KeepsakeStorage.open(listing, ns, null)) {
            SavepointHandle h;
            try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest("1001", "sp-parts", SavepointKind.MANUAL,
                    "t", "test-payload", 1L, Map.of()))) {
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
            List<Long> parts = listing.partsByFile.get(large.file());
            // all but the last part were uploaded before the sync; the sync sends the last one and completes
            assertThat(parts).as("parts uploaded before the last").hasSize(2);
            long offset = 0;
            for (long size : parts) {
                assertThat(offset % chunk).as("part starting at byte " + offset + " starts a chunk").isZero();
                assertThat(size % chunk).as("part of " + size + " bytes holds whole chunks").isZero();
                assertThat(size).isGreaterThanOrEqualTo(S3FileSystem.MIN_PART_SIZE);
                offset += size;
            }
            assertThat(offset % chunk).as("the last part starts a chunk").isZero();
            assertThat(large.length() - offset).as("bytes of the last part").isPositive()
                    .isLessThanOrEqualTo(server.fs().partSize());
            assertThat(offset / chunk + ChunkDigests.chunkCount(large.length() - offset, chunk))
                    .as("chunks in the parts").isEqualTo(large.chunks().count());
            assertThat(listing.partsByFile.get(h.meta().entryForPipeline(2).file())).as("a small payload is one PUT")
                    .isEmpty();
            var content = storage.readSavepoint("1001", "sp-parts");
            payloads.forEach((pid, b) -> assertThat(content.payloadOfPipeline(pid)).isEqualTo(b));
        }
    }

    @Test
    void aPartSizeOfPartialChunksIsRoundedUpWhenConfiguredAndRefusedWhenBuilt() throws Exception {
        Map<String, String> config = new HashMap<>(server.factoryKeys(S3ProxyServer.freshDirectory("round") + "/ns"));
        config.put("fs.s3a.multipart.size", "5500000");
        try (KeepsakeStorage storage = (KeepsakeStorage) CheckpointStorageFactories.find("s3").create(config)) {
            assertThat(((S3FileSystem) ((ComposedStorage) storage).fileSystem()).partSize())
                    .isEqualTo(6 * ChunkDigests.CHUNK_SIZE);
        }
        config.put("fs.s3a.multipart.size", "64M");
        try (KeepsakeStorage storage = (KeepsakeStorage) CheckpointStorageFactories.find("s3").create(config)) {
            assertThat(((S3FileSystem) ((ComposedStorage) storage).fileSystem()).partSize()).isEqualTo(64 << 20);
        }
        assertThatThrownBy(() -> new S3FileSystem(server.client(), S3ProxyServer.BUCKET, S3FileSystem.MIN_PART_SIZE + 1, true,
                "test")).isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("chunk size");
    }
}
