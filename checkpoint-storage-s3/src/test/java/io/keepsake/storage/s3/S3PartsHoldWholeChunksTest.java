package io.keepsake.storage.s3;

import io.keepsake.fixtures.tck.UploadsHoldWholeChunks;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.internal.ComposedStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    /** The sizes of the parts the server holds for the multipart upload of {@code path}. */
    private static List<Long> partSizes(String path) {
        S3Path target = server.fs().path(path);
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

    @Test
    void everyPartOfAVersion2PayloadIsAWholeNumberOfChunks() throws IOException {
        UploadsHoldWholeChunks.check(server.fs(), server.fs().normalizeRoot(S3ProxyServer.freshDirectory("parts") + "/ns"),
                server.fs().partSize(), "part", S3PartsHoldWholeChunksTest::partSizes, parts -> {
                    // all but the last part were uploaded before the sync; the sync sends the last one and completes
                    assertThat(parts).as("parts uploaded before the last").hasSize(2);
                    assertThat(parts).allSatisfy(size -> assertThat(size).isGreaterThanOrEqualTo(S3FileSystem.MIN_PART_SIZE));
                }, "PUT");
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
