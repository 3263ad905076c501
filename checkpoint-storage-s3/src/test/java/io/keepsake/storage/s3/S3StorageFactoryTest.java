package io.keepsake.storage.s3;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageRootNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The factory {@code s3}: SeaTunnel's keys, fail-fast checks at creation, and roots in other buckets. */
class S3StorageFactoryTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    private static Map<String, String> keys(String namespace) {
        return new HashMap<>(server.factoryKeys(namespace));
    }

    private static KeepsakeStorage create(Map<String, String> config) throws CheckpointStorageException {
        return (KeepsakeStorage) CheckpointStorageFactories.find("s3").create(config);
    }

    @Test
    void seaTunnelKeysOpenAWorkingStorageInTheConfiguredBucket() throws Exception {
        try (KeepsakeStorage s = create(keys("/seatunnel/checkpoint_snapshot/"))) {
            assertThat(s.namespace()).isEqualTo("s3://keepsake/seatunnel/checkpoint_snapshot");
            assertThat(s.savepointRoot()).isEqualTo("s3://keepsake/seatunnel/checkpoint_snapshot/savepoint");
            PipelineState state = new PipelineState("1001", 1, 1, new byte[] {1, 2, 3});
            s.storeCheckPoint(state);
            assertThat(s.getLatestCheckpoint("1001")).containsExactly(state);
        }
    }

    @Test
    void savepointPathMayNameAnotherBucket() throws Exception {
        try (var c = server.newClient()) {
            c.createBucket(b -> b.bucket("keepsake-savepoints"));
        }
        Map<String, String> config = keys("/jobs/ns");
        config.put("savepoint.path", "s3a://keepsake-savepoints/apart");
        try (KeepsakeStorage s = create(config)) {
            SavepointHandle h;
            try (SavepointWriter w = s.beginSavepoint(new SavepointRequest("1001", "sp-1", SavepointKind.MANUAL, "t",
                    "test-payload", 1L, Map.of()))) {
                try (OutputStream out = w.openPayload(1, 1)) {
                    out.write(new byte[] {4, 5});
                }
                h = w.commit(2L);
            }
            assertThat(h.location()).isEqualTo("s3://keepsake-savepoints/apart/1001/sp-1");
            assertThat(s.readSavepoint("1001", "sp-1").payloadOfPipeline(1)).containsExactly(4, 5);
        }
    }

    @Test
    void aMissingBucketFailsAtCreationNamingTheKey() {
        Map<String, String> config = keys("/ns");
        config.put("s3.bucket", "s3a://no-such-bucket");
        // a root that cannot be created: not found (the tool's exit 3), not an I/O failure
        assertThatThrownBy(() -> create(config)).isInstanceOf(StorageRootNotFoundException.class)
                .hasMessageContaining("s3.bucket").hasMessageContaining("no-such-bucket")
                .hasMessageContaining(server.endpoint().toString());
    }

    @Test
    void aMissingBucketOpenedWithoutCreatingRootsIsRootNotFoundNamingTheBucket() {
        Map<String, String> config = keys("/ns");
        config.put("s3.bucket", "s3a://no-such-bucket");
        config.put("create-roots", "false");
        assertThatThrownBy(() -> create(config)).isInstanceOf(StorageRootNotFoundException.class)
                .hasMessageContaining("namespace").hasMessageContaining("S3 bucket 'no-such-bucket' does not exist")
                .hasMessageContaining("s3://no-such-bucket/ns");
    }

    @Test
    void wrongCredentialsFailAtCreationNamingTheKeys() {
        Map<String, String> config = keys("/ns");
        config.put("fs.s3a.secret.key", "wrong");
        assertThatThrownBy(() -> create(config)).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("fs.s3a.access.key").hasMessageContaining(server.endpoint().toString());
    }

    @Test
    void anUnreachableEndpointFailsFastNamingTheKey() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Map<String, String> config = keys("/ns");
        config.put("fs.s3a.endpoint", "http://127.0.0.1:" + port);
        long start = System.nanoTime();
        assertThatThrownBy(() -> create(config)).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("fs.s3a.endpoint").hasMessageContaining("127.0.0.1:" + port);
        assertThat((System.nanoTime() - start) / 1_000_000_000L).as("seconds to fail").isLessThan(30);
    }

    @Test
    void anEndpointThatNeverAnswersFailsWithinTheProbeTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            Map<String, String> config = keys("/ns");
            config.put("fs.s3a.endpoint", "http://127.0.0.1:" + silent.getLocalPort());
            config.put("fs.s3a.connection.timeout", "2s");
            long start = System.nanoTime();
            assertThatThrownBy(() -> create(config)).isInstanceOf(CheckpointStorageException.class)
                    .hasMessageContaining("fs.s3a.endpoint");
            assertThat((System.nanoTime() - start) / 1_000_000_000L).as("seconds to fail").isLessThan(30);
        }
    }

    @Test
    void unknownAndMalformedKeysAreRefusedByName() {
        assertRefused(with("fs.s3a.fast.upload.buffer", "disk"), "fs.s3a.fast.upload.buffer");
        Map<String, String> half = keys("/ns");
        half.remove("fs.s3a.secret.key");
        half.remove("fs.s3a.aws.credentials.provider");
        assertRefused(half, "fs.s3a.secret.key");
        assertRefused(with("fs.s3a.aws.credentials.provider", "com.example.Mine"), "com.example.Mine");
        assertRefused(with("fs.s3a.multipart.size", "1M"), "fs.s3a.multipart.size");
        assertRefused(with("storage.type", "hdfs"), "storage.type");
        Map<String, String> noBucket = keys("/ns");
        noBucket.remove("s3.bucket");
        assertRefused(noBucket, "namespace", "bucket");
        assertRefused(keys("/ns/../x"), "namespace");
    }

    /** The keys of a storage at {@code /ns} with {@code key} set to {@code value}. */
    private static Map<String, String> with(String key, String value) {
        Map<String, String> config = keys("/ns");
        config.put(key, value);
        return config;
    }

    /** Opening {@code config} is refused as an invalid argument whose message names every one of {@code named}. */
    private static void assertRefused(Map<String, String> config, String... named) {
        var thrown = assertThatThrownBy(() -> create(config)).isInstanceOf(InvalidStorageArgumentException.class);
        for (String n : named) {
            thrown.hasMessageContaining(n);
        }
    }

    @Test
    void createRootsFalseWritesNothingAndNeedsTheNamespace() throws Exception {
        Map<String, String> config = keys("/never-created/ns");
        config.put("create-roots", "false");
        assertThatThrownBy(() -> create(config)).isInstanceOf(StorageRootNotFoundException.class)
                .hasMessageContaining("namespace");
        try (S3FileSystem fs = server.newFileSystem()) {
            assertThat(fs.stat("/never-created")).isEmpty();
        }
    }

    @Test
    void theCallersMapIsNotChangedAndTheFactoryIsFoundById() throws Exception {
        Map<String, String> config = keys("/untouched/ns");
        Map<String, String> copy = Map.copyOf(config);
        try (CheckpointStorage s = CheckpointStorageFactories.find("s3").create(config)) {
            assertThat(s).isInstanceOf(KeepsakeStorage.class);
        }
        assertThat(config).isEqualTo(copy);
        assertThat(URI.create(config.get("fs.s3a.endpoint")).getPort()).isEqualTo(server.endpoint().getPort());
    }
}
