package io.keepsake.storage.s3;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the in-process server really does with the requests the backend relies on: if it accepted
 * a second conditional create of one key, every atomicity test of this module would be meaningless.
 */
class S3ServerBehaviourTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    private static String bucket() {
        return S3ProxyServer.BUCKET;
    }

    @Test
    void aSecondConditionalPutOfOneKeyIsRefusedWith412AndTheFirstObjectStays() {
        String key = "behaviour/put-once";
        server.client().putObject(b -> b.bucket(bucket()).key(key).ifNoneMatch("*"), RequestBody.fromString("first"));
        assertThatThrownBy(() -> server.client().putObject(b -> b.bucket(bucket()).key(key).ifNoneMatch("*"),
                RequestBody.fromString("second")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
        assertThat(server.client().getObjectAsBytes(b -> b.bucket(bucket()).key(key)).asUtf8String()).isEqualTo("first");
    }

    @Test
    void aSecondConditionalMultipartCompletionOfOneKeyIsRefusedWith412() {
        String key = "behaviour/multipart-once";
        byte[] part = new byte[S3FileSystem.MIN_PART_SIZE];
        new Random(1).nextBytes(part);
        String first = upload(key, part, "a");
        String second = upload(key, part, "b");
        complete(key, first, "a");
        assertThatThrownBy(() -> complete(key, second, "b"))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
        assertThat(new String(server.client().getObjectAsBytes(b -> b.bucket(bucket()).key(key)).asByteArray(),
                S3FileSystem.MIN_PART_SIZE, 1, StandardCharsets.UTF_8)).isEqualTo("a");
        server.client().abortMultipartUpload(b -> b.bucket(bucket()).key(key).uploadId(second));
    }

    @Test
    void aConditionalPutMeetsAnObjectCompletedByMultipart() {
        String key = "behaviour/multipart-then-put";
        byte[] part = new byte[S3FileSystem.MIN_PART_SIZE];
        String id = upload(key, part, "a");
        complete(key, id, "a");
        assertThatThrownBy(() -> server.client().putObject(b -> b.bucket(bucket()).key(key).ifNoneMatch("*"),
                RequestBody.fromString("late")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    }

    @Test
    void pendingMultipartUploadsAreListedAndAbortable() {
        String key = "behaviour/pending/upload";
        String id = server.client().createMultipartUpload(b -> b.bucket(bucket()).key(key)).uploadId();
        assertThat(server.client().listMultipartUploads(b -> b.bucket(bucket()).prefix("behaviour/pending/")).uploads())
                .extracting(u -> u.uploadId()).contains(id);
        server.client().abortMultipartUpload(b -> b.bucket(bucket()).key(key).uploadId(id));
        assertThat(server.client().listMultipartUploads(b -> b.bucket(bucket()).prefix("behaviour/pending/")).uploads())
                .extracting(u -> u.uploadId()).doesNotContain(id);
        assertThat(server.client().listObjectsV2(b -> b.bucket(bucket()).prefix("behaviour/pending/")).contents()).isEmpty();
    }

    @Test
    void deleteObjectsRemovesABatch() {
        List<ObjectIdentifier> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String key = "behaviour/batch/" + i;
            server.client().putObject(b -> b.bucket(bucket()).key(key), RequestBody.fromString("x"));
            ids.add(ObjectIdentifier.builder().key(key).build());
        }
        var response = server.client().deleteObjects(b -> b.bucket(bucket()).delete(d -> d.objects(ids).quiet(true)));
        assertThat(response.errors()).isEmpty();
        assertThat(server.client().listObjectsV2(b -> b.bucket(bucket()).prefix("behaviour/batch/")).contents()).isEmpty();
    }

    @Test
    void userMetadataSurvivesPutAndMultipart() {
        server.client().putObject(b -> b.bucket(bucket()).key("behaviour/meta-put").metadata(java.util.Map.of("k", "v1")),
                RequestBody.fromString("x"));
        assertThat(server.client().headObject(b -> b.bucket(bucket()).key("behaviour/meta-put")).metadata()).containsEntry("k", "v1");
        String id = server.client().createMultipartUpload(b -> b.bucket(bucket()).key("behaviour/meta-mp")
                .metadata(java.util.Map.of("k", "v2"))).uploadId();
        String etag = server.client().uploadPart(b -> b.bucket(bucket()).key("behaviour/meta-mp").uploadId(id).partNumber(1),
                RequestBody.fromString("y")).eTag();
        server.client().completeMultipartUpload(b -> b.bucket(bucket()).key("behaviour/meta-mp").uploadId(id)
                .multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag(etag).build())));
        assertThat(server.client().headObject(b -> b.bucket(bucket()).key("behaviour/meta-mp")).metadata()).containsEntry("k", "v2");
    }

    @Test
    void listingIsPaginated() {
        for (int i = 0; i < 25; i++) {
            String key = "behaviour/pages/" + i;
            server.client().putObject(b -> b.bucket(bucket()).key(key), RequestBody.fromString("x"));
        }
        long t0 = System.nanoTime();
        var page = server.client().listObjectsV2(b -> b.bucket(bucket()).prefix("behaviour/pages/").maxKeys(10));
        assertThat(page.contents()).hasSize(10);
        assertThat(page.isTruncated()).isTrue();
        int total = 0;
        for (var p : server.client().listObjectsV2Paginator(b -> b.bucket(bucket()).prefix("behaviour/pages/").maxKeys(10))) {
            total += p.contents().size();
        }
        assertThat(total).isEqualTo(25);
        long perRequest = (System.nanoTime() - t0) / 4 / 1000;
        System.out.println("list request: " + perRequest + " us");
        long t1 = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            server.client().headObject(b -> b.bucket(bucket()).key("behaviour/pages/1"));
        }
        System.out.println("head request: " + (System.nanoTime() - t1) / 20 / 1000 + " us");
        long t2 = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            String key = "behaviour/put-timing/" + i;
            server.client().putObject(b -> b.bucket(bucket()).key(key), RequestBody.fromString("x"));
        }
        System.out.println("put request: " + (System.nanoTime() - t2) / 20 / 1000 + " us");
    }

    private String upload(String key, byte[] part, String last) {
        String id = server.client().createMultipartUpload(b -> b.bucket(bucket()).key(key)).uploadId();
        server.client().uploadPart(b -> b.bucket(bucket()).key(key).uploadId(id).partNumber(1), RequestBody.fromBytes(part));
        server.client().uploadPart(b -> b.bucket(bucket()).key(key).uploadId(id).partNumber(2), RequestBody.fromString(last));
        return id;
    }

    private void complete(String key, String uploadId, String last) {
        var parts = server.client().listParts(b -> b.bucket(bucket()).key(key).uploadId(uploadId)).parts();
        List<CompletedPart> completed = new ArrayList<>();
        for (var p : parts) {
            completed.add(CompletedPart.builder().partNumber(p.partNumber()).eTag(p.eTag()).build());
        }
        server.client().completeMultipartUpload(b -> b.bucket(bucket()).key(key).uploadId(uploadId).ifNoneMatch("*")
                .multipartUpload(m -> m.parts(completed)));
    }
}
