package io.keepsake.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
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

    /** Put Blob of {@code content} with {@code If-None-Match: *}. */
    private static void putIfAbsent(BlockBlobClient b, String content) {
        b.uploadWithResponse(new BlockBlobSimpleUploadOptions(text(content)).setRequestConditions(IF_ABSENT), null, null);
    }

    /** Put Block List of the one staged block {@code id} with {@code If-None-Match: *}. */
    private static void commitIfAbsent(BlockBlobClient b, String id) {
        b.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(List.of(id)).setRequestConditions(IF_ABSENT),
                null, null);
    }

    /** The id of block {@code n} as the service takes it: Base64 of {@code block-<n>}. */
    private static String blockId(int n) {
        return Base64.getEncoder().encodeToString(("block-" + n).getBytes(StandardCharsets.US_ASCII));
    }

    /** What the service refused {@code request} with, printed after {@code what} with its status and error code. */
    private static BlobStorageException refused(String what, ThrowingCallable request) {
        BlobStorageException e = catchThrowableOfType(BlobStorageException.class, request);
        System.out.println(what + ": HTTP " + e.getStatusCode() + " " + e.getErrorCode());
        return e;
    }

    @Test
    void putBlobIfNoneMatchStarIsRefusedWhenTheBlobExists() {
        BlockBlobClient b = blob("put");
        putIfAbsent(b, "first");
        BlobStorageException e = refused("Put Blob If-None-Match: * of an existing blob", () -> putIfAbsent(b, "second"));
        assertThat(e.getStatusCode()).isIn(409, 412);
        assertThat(e.getErrorCode()).isIn(BlobErrorCode.BLOB_ALREADY_EXISTS, BlobErrorCode.CONDITION_NOT_MET);
        assertThat(b.downloadContent().toString()).isEqualTo("first");
    }

    @Test
    void putBlockListIfNoneMatchStarIsRefusedWhenTheBlobExistsAndStagedBlocksAreInvisible() {
        BlockBlobClient b = blob("blocks");
        String id = blockId(0);
        b.stageBlock(id, text("staged"));
        assertThat(b.exists()).as("a blob with only staged blocks exists").isFalse();
        commitIfAbsent(b, id);
        assertThat(b.downloadContent().toString()).isEqualTo("staged");
        String id2 = blockId(1);
        b.stageBlock(id2, text("other"));
        BlobStorageException e = refused("Put Block List If-None-Match: * of an existing blob", () -> commitIfAbsent(b, id2));
        assertThat(e.getStatusCode()).isIn(409, 412);
        assertThat(b.downloadContent().toString()).isEqualTo("staged");
    }

    @Test
    void azuriteRefusesAConditionalPutBlobOverANameHoldingOnlyUncommittedBlocks() {
        BlockBlobClient b = blob("uncommitted");
        b.stageBlock(blockId(0), text("staged, never committed"));
        assertThat(b.exists()).isFalse();
        BlobStorageException e = refused("Azurite: Put Blob If-None-Match: * over only uncommitted blocks",
                () -> putIfAbsent(b, "first visible"));
        assertThat(e.getStatusCode()).isEqualTo(409);
        assertThat(b.exists()).isFalse();
    }
}
