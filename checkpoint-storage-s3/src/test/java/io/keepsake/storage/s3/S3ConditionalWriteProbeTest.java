package io.keepsake.storage.s3;

import io.keepsake.fixtures.http.FaultyHttpProxy;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.OutputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The check of conditional writes at creation: it covers {@code PutObject} and
 * {@code CompleteMultipartUpload}, runs whatever {@code create-roots} says, is made once per endpoint
 * and bucket in the JVM, and leaves nothing behind; and what {@code s3.conditional-writes=unsupported}
 * then means for garbage collection.
 */
class S3ConditionalWriteProbeTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    private static KeepsakeStorage create(Map<String, String> config) throws CheckpointStorageException {
        return (KeepsakeStorage) CheckpointStorageFactories.find("s3").create(config);
    }

    private static String key(String directory) {
        return directory.substring((S3Path.SCHEME + S3ProxyServer.BUCKET + "/").length());
    }

    /** Every object and pending upload under {@code prefix} of the test bucket. */
    private static List<String> everythingUnder(String prefix) {
        List<String> all = new java.util.ArrayList<>(server.client().listObjectsV2(b -> b.bucket(S3ProxyServer.BUCKET)
                .prefix(prefix)).contents().stream().map(S3Object::key).toList());
        server.client().listMultipartUploads(b -> b.bucket(S3ProxyServer.BUCKET).prefix(prefix)).uploads().stream()
                .map(MultipartUpload::key).map(k -> "upload of " + k).forEach(all::add);
        return all;
    }

    @Test
    void theProbeRunsWithoutCreatingRootsCoversCompleteMultipartUploadAndLeavesNothing() throws Exception {
        String ns = S3ProxyServer.freshDirectory("probe-readonly");
        try (S3FileSystem fs = server.newFileSystem()) {
            fs.mkdirs(ns);
        }
        List<String> before = everythingUnder(key(ns));
        try (FaultyHttpProxy proxy = new FaultyHttpProxy(server.endpoint())) {
            Map<String, String> config = new HashMap<>(S3ProxyServer.factoryKeys(proxy.endpoint(), ns));
            config.put("create-roots", "false");
            ConditionalWriteProbe.forget();
            int runs = ConditionalWriteProbe.runs();
            try (KeepsakeStorage s = create(config)) {
                assertThat(s.namespace()).isEqualTo(ns);
            }
            assertThat(ConditionalWriteProbe.runs()).as("probes run").isEqualTo(runs + 1);
            assertThat(proxy.requests()).as("the probe's requests")
                    .anyMatch(r -> r.contains(" POST ") && r.contains(ConditionalWriteProbe.PROBE_PREFIX)
                            && r.contains("?uploads"))
                    .anyMatch(r -> r.contains(" POST ") && r.contains(ConditionalWriteProbe.PROBE_PREFIX)
                            && r.contains("uploadId="));
        }
        assertThat(everythingUnder(key(ns))).as("what is under the namespace").isEqualTo(before);
    }

    @Test
    void theProbeIsMadeOncePerEndpointAndBucket() throws Exception {
        try (var c = server.newClient()) {
            c.createBucket(b -> b.bucket("keepsake-probe-other"));
        }
        try (FaultyHttpProxy proxy = new FaultyHttpProxy(server.endpoint())) {
            ConditionalWriteProbe.forget();
            int runs = ConditionalWriteProbe.runs();
            for (int i = 0; i < 3; i++) {
                Map<String, String> config = S3ProxyServer.factoryKeys(proxy.endpoint(),
                        S3ProxyServer.freshDirectory("probe-cached"));
                try (KeepsakeStorage s = create(config)) {
                    assertThat(s.namespace()).contains("probe-cached");
                }
            }
            assertThat(ConditionalWriteProbe.runs()).as("probes for one bucket").isEqualTo(runs + 1);
            proxy.disarm();
            Map<String, String> config = new HashMap<>(S3ProxyServer.factoryKeys(proxy.endpoint(),
                    S3ProxyServer.freshDirectory("probe-cached")));
            config.put("savepoint.path", "s3a://keepsake-probe-other/sp");
            try (KeepsakeStorage s = create(config)) {
                assertThat(s.savepointRoot()).isEqualTo("s3://keepsake-probe-other/sp");
            }
            assertThat(ConditionalWriteProbe.runs()).as("probes after a second bucket").isEqualTo(runs + 2);
            assertThat(proxy.requests()).as("requests of the probe in the cached bucket")
                    .noneMatch(r -> r.contains(ConditionalWriteProbe.PROBE_PREFIX) && r.contains("/keepsake/"));
        }
    }

    @Test
    void aStoreThatIgnoresTheConditionOnCompleteMultipartUploadIsRefusedWhateverCreateRootsSays() throws Exception {
        String ns = S3ProxyServer.freshDirectory("probe-ignored");
        try (FaultyHttpProxy proxy = new FaultyHttpProxy(server.endpoint())) {
            proxy.ignoreConditionOnComplete(true);
            ConditionalWriteProbe.forget();
            Map<String, String> config = new HashMap<>(S3ProxyServer.factoryKeys(proxy.endpoint(), ns));
            assertThatThrownBy(() -> create(config)).isInstanceOf(CheckpointStorageException.class)
                    .hasMessageStartingWith("Cannot open s3 storage")
                    .hasMessageContaining("CompleteMultipartUpload with If-None-Match: *")
                    .hasMessageContaining("s3.conditional-writes=unsupported")
                    .hasMessageContaining(ConditionalWriteProbe.PROBE_PREFIX);
            config.put("create-roots", "false");
            assertThatThrownBy(() -> create(config)).isInstanceOf(CheckpointStorageException.class)
                    .hasMessageContaining("CompleteMultipartUpload with If-None-Match: *");
            assertThat(proxy.conditionalCompletesAnswered()).isEqualTo(2);
        }
        assertThat(everythingUnder(key(ns))).as("what the refused probes left").allMatch(k -> k.endsWith("/")
                && !k.contains(ConditionalWriteProbe.PROBE_PREFIX));
    }

    @Test
    void theUnsupportedModesWarningStatesTheWholeRisk() {
        assertThat(S3StorageFactory.unsupportedWarning("http://store, bucket b"))
                .contains("s3.conditional-writes=unsupported")
                .contains("two racing commits of one savepoint id can both succeed")
                .contains("could remove the files of an attempt whose commit returned")
                .contains("leaves every attempt without metadata in place and reports it as kept");
    }

    @Test
    void withoutConditionalWritesGarbageCollectionKeepsTheFilesOfUndecidedAttempts() throws Exception {
        Map<String, String> required = S3ProxyServer.factoryKeys(server.endpoint(),
                S3ProxyServer.freshDirectory("gc-required"));
        Map<String, String> unsupported = new HashMap<>(S3ProxyServer.factoryKeys(server.endpoint(),
                S3ProxyServer.freshDirectory("gc-unsupported")));
        unsupported.put("s3.conditional-writes", "unsupported");

        GcReport collected = collectAfterPlantingAnAbandonedAttempt(required);
        assertThat(collected.deleted()).as("with conditional writes").anyMatch(d -> d.contains("0123456789abcdef"));

        GcReport kept = collectAfterPlantingAnAbandonedAttempt(unsupported);
        assertThat(kept.deleted()).as("deleted without conditional writes").noneMatch(d -> d.contains("sp-2"));
        assertThat(kept.kept()).anyMatch(k -> k.contains("/sp-2/") && k.contains("0123456789abcdef")
                && k.contains("create-if-absent is not exclusive"));
        String payload = key(unsupported.get("namespace")) + "/savepoint/1001/sp-2/pipeline-1.sp-2.0123456789abcdef.wire";
        assertThat(everythingUnder(payload)).containsExactly(payload);
    }

    /**
     * Opens a storage, commits one savepoint (which marks the root as Keepsake's), leaves one payload
     * of an attempt without lease, outcome or metadata, and collects at age 0.
     */
    private static GcReport collectAfterPlantingAnAbandonedAttempt(Map<String, String> config) throws Exception {
        try (KeepsakeStorage s = create(config)) {
            try (SavepointWriter w = s.beginSavepoint(new SavepointRequest("1001", "sp-1", SavepointKind.MANUAL, "t",
                    "test-payload", 1L, Map.of()))) {
                try (OutputStream out = w.openPayload(1, 1)) {
                    out.write(new byte[] {4, 5});
                }
                w.commit(2L);
            }
            String payload = key(s.savepointRoot()) + "/1001/sp-2/pipeline-1.sp-2.0123456789abcdef.wire";
            server.client().putObject(b -> b.bucket(S3ProxyServer.BUCKET).key(payload), RequestBody.fromBytes(new byte[] {6}));
            return s.collectGarbage(Duration.ZERO);
        }
    }
}
