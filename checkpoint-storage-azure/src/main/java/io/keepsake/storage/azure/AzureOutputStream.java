package io.keepsake.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import io.keepsake.storage.spi.objectstore.BlockBufferingOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * One block blob on its way to Azure: bytes gather in one buffer of at most a block; a full buffer
 * is staged as a block (Put Block), and {@link #sync()} publishes the blob: one Put Blob when no
 * block was staged, else the last block and one Put Block List, with {@code If-None-Match: *} when
 * the file must be created. Nothing can be written after that. The blob carries a random write id
 * as metadata, so that a request whose response was lost, retried or not, can tell its own blob
 * from another writer's. A stream closed without a successful {@code sync()} leaves only
 * uncommitted blocks, which no listing shows. Not thread-safe: one thread writes one blob.
 */
final class AzureOutputStream extends BlockBufferingOutputStream {

    private static final Logger LOG = LoggerFactory.getLogger(AzureOutputStream.class);

    private final AzureFileSystem fs;
    private final AzurePath target;
    private final List<String> blockIds = new ArrayList<>();

    AzureOutputStream(AzureFileSystem fs, AzurePath target, String path, boolean conditional) {
        super(path, conditional, fs.blockSize(), "the blob was published by sync() and is not appended to",
                "an earlier request of this stream failed");
        this.fs = fs;
        this.target = target;
    }

    @Override
    protected boolean isOurs() throws IOException {
        return fs.isOurs(target, writeId);
    }

    private static BinaryData body(byte[] bytes, int length) {
        return BinaryData.fromByteBuffer(ByteBuffer.wrap(bytes, 0, length));
    }

    private BlobRequestConditions conditions() {
        return conditional ? new BlobRequestConditions().setIfNoneMatch("*") : null;
    }

    /** Stages the bytes as the next block; block ids are this stream's write id and the block's number, all one length. */
    @Override
    protected void stageBlock(byte[] bytes, int length, int index) throws IOException {
        String id = Base64.getEncoder().encodeToString(String.format("%s-%06d", writeId, index)
                .getBytes(StandardCharsets.US_ASCII));
        BinaryData data = body(bytes, length);
        fs.call(path, "stage block " + index + " of", () -> {
            fs.blockBlob(target).stageBlock(id, data);
            return null;
        });
        blockIds.add(id);
    }

    @Override
    protected void putWhole(byte[] bytes, int length) throws IOException {
        BlockBlobSimpleUploadOptions options = new BlockBlobSimpleUploadOptions(body(bytes, length))
                .setMetadata(Map.of(AzureFileSystem.WRITE_ID, writeId)).setRequestConditions(conditions());
        publish(() -> fs.blockBlob(target).uploadWithResponse(options, null, null));
    }

    @Override
    protected void commitBlocks() throws IOException {
        BlockBlobCommitBlockListOptions options = new BlockBlobCommitBlockListOptions(blockIds)
                .setMetadata(Map.of(AzureFileSystem.WRITE_ID, writeId)).setRequestConditions(conditions());
        publish(() -> fs.blockBlob(target).commitBlockListWithResponse(options, null, null));
    }

    /**
     * Sends the publishing request. A refusal of the condition (409 BlobAlreadyExists, 412) or a
     * block list the service no longer knows (400 InvalidBlockList: a commit of this name
     * discarded the staged blocks) is success when the blob there is ours, else
     * {@link FileAlreadyExistsException} when a blob is there; any other failure is success when
     * the blob there is ours after all (the request took effect), else thrown.
     */
    private void publish(Runnable request) throws IOException {
        RuntimeException error;
        try {
            request.run();
            return;
        } catch (RuntimeException e) {
            error = e;
        }
        if (error instanceof BlobStorageException e && (e.getStatusCode() == 412
                || e.getErrorCode() == BlobErrorCode.BLOB_ALREADY_EXISTS
                || e.getErrorCode() == BlobErrorCode.INVALID_BLOCK_LIST)) {
            if (isOurs()) {
                LOG.debug("Create of {} met its own blob after a lost response", path);
                return;
            }
            if (fs.properties(target).isPresent()) {
                markFailed();
                FileAlreadyExistsException exists = new FileAlreadyExistsException(path, null,
                        "another writer created it first (HTTP " + e.getStatusCode() + " " + e.getErrorCode() + ")");
                exists.initCause(e);
                throw exists;
            }
        }
        IOException failure = fs.translate(path, "create", error);
        if (error instanceof BlobStorageException e && e.getErrorCode() == BlobErrorCode.BLOB_ALREADY_EXISTS) {
            failure = new IOException("Cannot create " + path + ": the service answered 409 BlobAlreadyExists, but no"
                    + " blob is there; the name holds only uncommitted blocks of an abandoned write, which some"
                    + " servers (Azurite) count as a blob (" + fs.description() + ")", error);
        }
        failUnlessOurs(failure, error);
    }
}
