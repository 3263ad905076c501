package io.keepsake.storage.s3;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
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

    private static S3ProxyServer server;
    private static S3Client client;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start();
        client = server.client();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String bucket() {
        return S3ProxyServer.BUCKET;
    }

    @Test
    void aSecondConditionalPutOfOneKeyIsRefusedWith412AndTheFirstObjectStays() {
        String key = "behaviour/put-once";
        client.putObject(b -> b.bucket(bucket()).key(key).ifNoneMatch("*"), RequestBody.fromString("first"));
        assertThatThrownBy(() -> client.putObject(b -> b.bucket(bucket()).key(key).ifNoneMatch("*"),
                RequestBody.fromString("second")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
        assertThat(client.getObjectAsBytes(b -> b.bucket(bucket()).key(key)).asUtf8String()).isEqualTo("first");
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
        assertThat(new String(client.getObjectAsBytes(b -> b.bucket(bucket()).key(key)).asByteArray(),
                S3FileSystem.MIN_PART_SIZE, 1, StandardCharsets.UTF_8)).isEqualTo("a");
        client.abortMultipartUpload(b -> b.bucket(bucket()).key(key).uploadId(second));
    }

    @Test
    void aConditionalPutMeetsAnObjectCompletedByMultipart() {
        String key = "behaviour/multipart-then-put";
        byte[] part = new byte[S3FileSystem.MIN_PART_SIZE];
        String id = upload(key, part, "a");
        complete(key, id, "a");
        assertThatThrownBy(() -> client.putObject(b -> b.bucket(bucket()).key(key).ifNoneMatch("*"),
                RequestBody.fromString("late")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    }

    @Test
    void pendingMultipartUploadsAreListedAndAbortable() {
        String key = "behaviour/pending/upload";
        String id = client.createMultipartUpload(b -> b.bucket(bucket()).key(key)).uploadId();
        assertThat(client.listMultipartUploads(b -> b.bucket(bucket()).prefix("behaviour/pending/")).uploads())
                .extracting(u -> u.uploadId()).contains(id);
        client.abortMultipartUpload(b -> b.bucket(bucket()).key(key).uploadId(id));
        assertThat(client.listMultipartUploads(b -> b.bucket(bucket()).prefix("behaviour/pending/")).uploads())
                .extracting(u -> u.uploadId()).doesNotContain(id);
        assertThat(client.listObjectsV2(b -> b.bucket(bucket()).prefix("behaviour/pending/")).contents()).isEmpty();
    }

    @Test
    void deleteObjectsRemovesABatch() {
        List<ObjectIdentifier> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String key = "behaviour/batch/" + i;
            client.putObject(b -> b.bucket(bucket()).key(key), RequestBody.fromString("x"));
            ids.add(ObjectIdentifier.builder().key(key).build());
        }
        var response = client.deleteObjects(b -> b.bucket(bucket()).delete(d -> d.objects(ids).quiet(true)));
        assertThat(response.errors()).isEmpty();
        assertThat(client.listObjectsV2(b -> b.bucket(bucket()).prefix("behaviour/batch/")).contents()).isEmpty();
    }

    @Test
    void userMetadataSurvivesPutAndMultipart() {
        client.putObject(b -> b.bucket(bucket()).key("behaviour/meta-put").metadata(java.util.Map.of("k", "v1")),
                RequestBody.fromString("x"));
        assertThat(client.headObject(b -> b.bucket(bucket()).key("behaviour/meta-put")).metadata()).containsEntry("k", "v1");
        String id = client.createMultipartUpload(b -> b.bucket(bucket()).key("behaviour/meta-mp")
                .metadata(java.util.Map.of("k", "v2"))).uploadId();
        String etag = client.uploadPart(b -> b.bucket(bucket()).key("behaviour/meta-mp").uploadId(id).partNumber(1),
                RequestBody.fromString("y")).eTag();
        client.completeMultipartUpload(b -> b.bucket(bucket()).key("behaviour/meta-mp").uploadId(id)
                .multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag(etag).build())));
        assertThat(client.headObject(b -> b.bucket(bucket()).key("behaviour/meta-mp")).metadata()).containsEntry("k", "v2");
    }

    @Test
    void listingIsPaginated() {
        for (int i = 0; i < 25; i++) {
            String key = "behaviour/pages/" + i;
            client.putObject(b -> b.bucket(bucket()).key(key), RequestBody.fromString("x"));
        }
        long t0 = System.nanoTime();
        var page = client.listObjectsV2(b -> b.bucket(bucket()).prefix("behaviour/pages/").maxKeys(10));
        assertThat(page.contents()).hasSize(10);
        assertThat(page.isTruncated()).isTrue();
        int total = 0;
        for (var p : client.listObjectsV2Paginator(b -> b.bucket(bucket()).prefix("behaviour/pages/").maxKeys(10))) {
            total += p.contents().size();
        }
        assertThat(total).isEqualTo(25);
        long perRequest = (System.nanoTime() - t0) / 4 / 1000;
        System.out.println("list request: " + perRequest + " us");
        long t1 = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            client.headObject(b -> b.bucket(bucket()).key("behaviour/pages/1"));
        }
        System.out.println("head request: " + (System.nanoTime() - t1) / 20 / 1000 + " us");
        long t2 = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            String key = "behaviour/put-timing/" + i;
            client.putObject(b -> b.bucket(bucket()).key(key), RequestBody.fromString("x"));
        }
        System.out.println("put request: " + (System.nanoTime() - t2) / 20 / 1000 + " us");
    }

    private String upload(String key, byte[] part, String last) {
        String id = client.createMultipartUpload(b -> b.bucket(bucket()).key(key)).uploadId();
        client.uploadPart(b -> b.bucket(bucket()).key(key).uploadId(id).partNumber(1), RequestBody.fromBytes(part));
        client.uploadPart(b -> b.bucket(bucket()).key(key).uploadId(id).partNumber(2), RequestBody.fromString(last));
        return id;
    }

    private void complete(String key, String uploadId, String last) {
        var parts = client.listParts(b -> b.bucket(bucket()).key(key).uploadId(uploadId)).parts();
        List<CompletedPart> completed = new ArrayList<>();
        for (var p : parts) {
            completed.add(CompletedPart.builder().partNumber(p.partNumber()).eTag(p.eTag()).build());
        }
        client.completeMultipartUpload(b -> b.bucket(bucket()).key(key).uploadId(uploadId).ifNoneMatch("*")
                .multipartUpload(m -> m.parts(completed)));
    }
}
