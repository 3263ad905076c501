package io.keepsake.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What Azurite answers to the requests the backend rests on, as the service documents them:
 * {@code If-None-Match: *} on Put Blob and on Put Block List of a blob that exists is refused with
 * 409 BlobAlreadyExists, and the blob keeps the first writer's bytes; staged blocks stay invisible
 * until a Put Block List commits them. Where Azurite is stricter than a blob that does not exist
 * calls for: a conditional Put Blob of a name that holds only uncommitted blocks is refused with
 * 409 BlobAlreadyExists although no blob is visible there.
 */
class AzuriteBehaviourTest {

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    private static final BlobRequestConditions IF_ABSENT = new BlobRequestConditions().setIfNoneMatch("*");

    private static BlockBlobClient blob(String name) {
        AzureFileSystem fs = azurite.fs();
        return fs.blockBlob(fs.path(fs.child(AzuritePerTestClass.freshDirectory("behaviour"), name)));
    }

    private static BinaryData text(String s) {
        return BinaryData.fromBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void putBlobIfNoneMatchStarIsRefusedWhenTheBlobExists() {
        BlockBlobClient b = blob("put");
        b.uploadWithResponse(new BlockBlobSimpleUploadOptions(text("first")).setRequestConditions(IF_ABSENT), null, null);
        BlobStorageException e = catchThrowableOfType(BlobStorageException.class, () -> b.uploadWithResponse(
                new BlockBlobSimpleUploadOptions(text("second")).setRequestConditions(IF_ABSENT), null, null));
        System.out.println("Put Blob If-None-Match: * of an existing blob: HTTP " + e.getStatusCode() + " "
                + e.getErrorCode());
        assertThat(e.getStatusCode()).isIn(409, 412);
        assertThat(e.getErrorCode()).isIn(BlobErrorCode.BLOB_ALREADY_EXISTS, BlobErrorCode.CONDITION_NOT_MET);
        assertThat(b.downloadContent().toString()).isEqualTo("first");
    }

    @Test
    void putBlockListIfNoneMatchStarIsRefusedWhenTheBlobExistsAndStagedBlocksAreInvisible() {
        BlockBlobClient b = blob("blocks");
        String id = Base64.getEncoder().encodeToString("block-0".getBytes(StandardCharsets.US_ASCII));
        b.stageBlock(id, text("staged"));
        assertThat(b.exists()).as("a blob with only staged blocks exists").isFalse();
        b.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(List.of(id)).setRequestConditions(IF_ABSENT),
                null, null);
        assertThat(b.downloadContent().toString()).isEqualTo("staged");
        String id2 = Base64.getEncoder().encodeToString("block-1".getBytes(StandardCharsets.US_ASCII));
        b.stageBlock(id2, text("other"));
        BlobStorageException e = catchThrowableOfType(BlobStorageException.class, () -> b.commitBlockListWithResponse(
                new BlockBlobCommitBlockListOptions(List.of(id2)).setRequestConditions(IF_ABSENT), null, null));
        System.out.println("Put Block List If-None-Match: * of an existing blob: HTTP " + e.getStatusCode() + " "
                + e.getErrorCode());
        assertThat(e.getStatusCode()).isIn(409, 412);
        assertThat(b.downloadContent().toString()).isEqualTo("staged");
    }

    @Test
    void azuriteRefusesAConditionalPutBlobOverANameHoldingOnlyUncommittedBlocks() {
        BlockBlobClient b = blob("uncommitted");
        String id = Base64.getEncoder().encodeToString("block-0".getBytes(StandardCharsets.US_ASCII));
        b.stageBlock(id, text("staged, never committed"));
        assertThat(b.exists()).isFalse();
        BlobStorageException e = catchThrowableOfType(BlobStorageException.class, () -> b.uploadWithResponse(
                new BlockBlobSimpleUploadOptions(text("first visible")).setRequestConditions(IF_ABSENT), null, null));
        System.out.println("Azurite: Put Blob If-None-Match: * over only uncommitted blocks: HTTP " + e.getStatusCode()
                + " " + e.getErrorCode());
        assertThat(e.getStatusCode()).isEqualTo(409);
        assertThat(b.exists()).isFalse();
    }
}
