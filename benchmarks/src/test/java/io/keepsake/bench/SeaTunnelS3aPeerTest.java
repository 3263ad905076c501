package io.keepsake.bench;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SeaTunnel 2.3.8's S3 checkpoint storage in its child JVM against an in-process S3Proxy: what it stores,
 * deletes and restores, the objects it leaves in the bucket under SeaTunnel's layout, the libraries the child
 * runs, and how failures come back. One child serves every test but the one whose child cannot start. Timings
 * are not checked.
 */
class SeaTunnelS3aPeerTest {

    private static final String BUCKET = LocalS3.BUCKET;
    private static final String ACCESS = LocalS3.ACCESS;
    private static final String SECRET = LocalS3.SECRET;
    private static final String NAMESPACE = "/seatunnel/checkpoint/";

    @RegisterExtension
    static final LocalS3Extension S3 = new LocalS3Extension();

    private static URI endpoint;
    private static SeaTunnelS3aPeer peer;

    @BeforeAll
    static void start() throws Exception {
        endpoint = S3.endpoint();
        peer = SeaTunnelS3aPeer.start(endpoint, BUCKET, ACCESS, SECRET, NAMESPACE);
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    @Test
    void runsSeaTunnelsHadoopAndAwsSdkRatherThanThisModules() {
        assertThat(peer.libraries()).isEqualTo("hadoop=3.1.4 aws-sdk=1.11.271");
    }

    @Test
    void storesRotatesAndRestoresTheNewestUnderSeaTunnelsLayout() throws Exception {
        String job = "880000000000001";
        for (long id = 1; id <= 3; id++) {
            assertThat(peer.store(job, 1, id, 1000 * (int) id, id)).isPositive();
        }
        String layout = "seatunnel/checkpoint/" + job + "/\\d{13}-\\d{1,3}-1-%s\\.ser";
        assertThat(keys("seatunnel/checkpoint/" + job + "/")).hasSize(3)
                .anyMatch(k -> k.matches(layout.formatted(1)))
                .anyMatch(k -> k.matches(layout.formatted(2)))
                .anyMatch(k -> k.matches(layout.formatted(3)));

        assertThat(peer.delete(job, 1, List.of(1L))).isPositive();
        assertThat(keys("seatunnel/checkpoint/" + job + "/")).hasSize(2)
                .anyMatch(k -> k.matches(layout.formatted(2)))
                .anyMatch(k -> k.matches(layout.formatted(3)));

        SeaTunnelS3aPeer.Restored restored = peer.restore(job, 1);
        assertThat(restored.checkpointId()).isEqualTo(3);
        assertThat(restored.stateBytes()).isEqualTo(3000);
        assertThat(peer.restoreLatest(job, 1)).isPositive();
    }

    @Test
    void storesEveryPipelineOfACheckpointAtOnce() throws Exception {
        String job = "880000000000002";
        assertThat(peer.storeAll(job, 4, 7, 4096, 11)).isPositive();
        assertThat(keys("seatunnel/checkpoint/" + job + "/")).hasSize(4)
                .allMatch(k -> k.matches("seatunnel/checkpoint/" + job + "/\\d{13}-\\d{1,3}-[1234]-7\\.ser"));
        for (int pipeline = 1; pipeline <= 4; pipeline++) {
            SeaTunnelS3aPeer.Restored restored = peer.restore(job, pipeline);
            assertThat(restored.checkpointId()).isEqualTo(7);
            assertThat(restored.stateBytes()).isEqualTo(4096);
        }
        assertThat(peer.restoreAll(job, 4)).isPositive();
        assertThatThrownBy(() -> peer.restoreAll(job, 5))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("restore the latest checkpoints of job " + job + ", 5 pipelines")
                .hasMessageContaining("no checkpoint of job " + job + " pipeline 5");
    }

    @Test
    void aFailedCallNamesTheOperationTheJobAndTheChildsMessage() {
        assertThatThrownBy(() -> peer.restoreLatest("880000000000404", 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("restore the latest checkpoint of job 880000000000404 pipeline 1")
                .hasMessageContaining("no checkpoint of job 880000000000404 pipeline 1");
    }

    @Test
    void aChildThatCannotStartIsReportedWithItsExitCodeAndStderr(@TempDir Path jars) throws Exception {
        // the storage plugin without SeaTunnel's storage API: the child's main class cannot load
        try (Stream<Path> copied = Files.list(Path.of("target", "seatunnel-s3a"))) {
            for (Path jar : copied.filter(j -> j.getFileName().toString().startsWith("checkpoint-storage-hdfs-"))
                    .toList()) {
                Files.copy(jar, jars.resolve(jar.getFileName()));
            }
        }
        assertThatThrownBy(() -> SeaTunnelS3aPeer.start(jars, endpoint, BUCKET, ACCESS, SECRET, NAMESPACE))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("SeaTunnel's S3A peer exited with code 1 while trying to open the storage on"
                        + " bucket " + BUCKET + " at " + endpoint + "; stderr: ")
                .hasMessageContaining("NoClassDefFoundError: org/apache/seatunnel/engine/checkpoint/storage/");
    }

    @Test
    void aMissingBucketComesBackAsTheStoragesOwnError() {
        assertThatThrownBy(() -> SeaTunnelS3aPeer.start(endpoint, "no-such-bucket", ACCESS, SECRET, NAMESPACE))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("SeaTunnel's S3 checkpoint storage failed to open the storage on bucket"
                        + " no-such-bucket at " + endpoint + ": ")
                .hasMessageContaining("no-such-bucket");
    }

    @Test
    void aChildThatDiesIsReportedWithItsExitCodeAndStderr() throws Exception {
        try (SeaTunnelS3aPeer doomed = SeaTunnelS3aPeer.start(endpoint, BUCKET, ACCESS, SECRET, NAMESPACE)) {
            ProcessHandle child = ProcessHandle.of(doomed.pid()).orElseThrow();
            child.destroyForcibly();
            child.onExit().get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> doomed.store("880000000000003", 1, 1, 1000, 1))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("SeaTunnel's S3A peer exited with code 137 while trying to store checkpoint 1"
                            + " of job 880000000000003 pipeline 1; stderr: ")
                    // slf4j's notice on the child's stderr that it has no logging binding
                    .hasMessageContaining("SLF4J");
        }
    }

    private static List<String> keys(String prefix) {
        return S3.client().listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream()
                .map(S3Object::key).toList();
    }
}
