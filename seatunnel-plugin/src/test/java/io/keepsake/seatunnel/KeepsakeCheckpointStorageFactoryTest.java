package io.keepsake.seatunnel;

import org.apache.seatunnel.engine.common.utils.FactoryUtil;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The factory as the engine finds and calls it: discovery, backend choice, and refusals that name the key. */
class KeepsakeCheckpointStorageFactoryTest {

    @TempDir
    Path dir;

    private Map<String, String> config(String... pairs) {
        Map<String, String> map = new HashMap<>();
        map.put("namespace", dir.resolve("ns").toString());
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Test
    void theEnginesOwnDiscoveryFindsTheFactoryByItsIdentifier() {
        CheckpointStorageFactory factory = FactoryUtil.discoverFactory(getClass().getClassLoader(),
                CheckpointStorageFactory.class, "keepsake");
        assertThat(factory).isInstanceOf(KeepsakeCheckpointStorageFactory.class);
    }

    @Test
    void createsLocalAndHadoopBackendsFromSeatunnelsKeys() throws Exception {
        KeepsakeCheckpointStorageFactory factory = new KeepsakeCheckpointStorageFactory();
        assertThat(factory.create(config())).isInstanceOf(KeepsakeCheckpointStorage.class);
        assertThat(factory.create(config("storage.type", "localfile"))).isInstanceOf(KeepsakeCheckpointStorage.class);
        assertThat(factory.create(config("storage.type", "hdfs", "fs.defaultFS", "file:///")))
                .isInstanceOf(KeepsakeCheckpointStorage.class);
        assertThat(factory.create(config("fs.defaultFS", "file:///", "seatunnel.hadoop.io.file.buffer.size", "65536")))
                .isInstanceOf(KeepsakeCheckpointStorage.class);
        assertThat(dir.resolve("ns").resolve("savepoint")).isDirectory();
    }

    @Test
    void oneStorageIsSharedPerConfigurationBecauseTheEngineNeverClosesIt() throws Exception {
        KeepsakeCheckpointStorageFactory factory = new KeepsakeCheckpointStorageFactory();
        assertThat(factory.create(config())).isSameAs(factory.create(new HashMap<>(config())));
        assertThat(factory.create(config())).isNotSameAs(factory.create(config("savepoint.path",
                Files.createDirectories(dir.resolve("elsewhere")).toString())));
    }

    @Test
    void seaTunnelsStockHdfsBlockIsAcceptedAndStoresUnderTheNamespace() throws Exception {
        // SeaTunnel 2.3.8's seatunnel.yaml: storage.type hdfs, fs.defaultFS file:///tmp/ (a directory SeaTunnel
        // does not use either); only the namespace is moved into the test's directory.
        Map<String, String> stock = config("storage.type", "hdfs", "fs.defaultFS", "file:///tmp/");
        org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage storage =
                new KeepsakeCheckpointStorageFactory().create(stock);
        storage.storeCheckPoint(org.apache.seatunnel.engine.checkpoint.storage.PipelineState.builder().jobId("7")
                .pipelineId(1).checkpointId(3L).states(new byte[]{1, 2, 3}).build());
        try (Stream<Path> files = Files.list(dir.resolve("ns").resolve("7"))) {
            assertThat(files.map(f -> f.getFileName().toString())).anyMatch(n -> n.endsWith("-1-3.ser"));
        }
    }

    @Test
    void aMissingExplicitSavepointPathIsRefusedUnlessCreateRootsSaysSo() throws Exception {
        Path typo = dir.resolve("savepoitns");
        KeepsakeCheckpointStorageFactory factory = new KeepsakeCheckpointStorageFactory();
        for (Map<String, String> config : List.of(config("savepoint.path", typo.toString()),
                config("storage.type", "hdfs", "fs.defaultFS", "file:///", "savepoint.path", typo.toString()))) {
            assertThatThrownBy(() -> factory.create(config)).as(config.toString())
                    .isInstanceOf(CheckpointStorageException.class)
                    .hasMessageContaining("savepoint.path does not exist").hasMessageContaining(typo.toString())
                    .hasMessageContaining("create-roots: true")
                    .as("names only what the operator set").hasMessageNotContaining("create-roots=false")
                    .hasMessageNotContaining("namespace");
            assertThat(typo).doesNotExist();
        }
        assertThat(factory.create(config("savepoint.path", typo.toString(), "create-roots", "true")))
                .isInstanceOf(KeepsakeCheckpointStorage.class);
        assertThat(typo).isDirectory();
        // The namespace itself is still created, as SeaTunnel's plugins create it.
        assertThat(dir.resolve("ns")).isDirectory();
        // create-roots: false keeps the library's meaning: a missing namespace is named as the namespace.
        Path other = dir.resolve("other-ns");
        assertThatThrownBy(() -> factory.create(Map.of("namespace", other.toString(), "create-roots", "false")))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("namespace")
                .hasMessageNotContaining("savepoint.path does not exist");
    }

    @Test
    void theCallersMapIsNotChanged() throws Exception {
        Map<String, String> config = config("storage.type", "hdfs", "fs.defaultFS", "file:///");
        Map<String, String> before = Map.copyOf(config);
        new KeepsakeCheckpointStorageFactory().create(config);
        assertThat(config).isEqualTo(before);
    }

    @Test
    void unknownKeyFailsNamingTheKey() {
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config("namespaces", "/x")))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("namespaces");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config("storage.type", "local",
                "fs.defaultFS", "file:///"))).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("fs.defaultFS");
    }

    @Test
    void seaTunnelsS3KeysSelectTheS3BackendWhichChecksTheEndpointAtCreation() throws Exception {
        int port;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        Map<String, String> config = config("storage.type", "s3", "s3.bucket", "s3a://seatunnel-checkpoints",
                "fs.s3a.endpoint", "http://127.0.0.1:" + port, "fs.s3a.access.key", "ak", "fs.s3a.secret.key", "sk",
                "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
                "fs.s3a.path.style.access", "true");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("on the s3 backend")
                .hasMessageContaining("fs.s3a.endpoint").hasMessageContaining("127.0.0.1:" + port);
    }

    @Test
    void badValuesFailNamingTheKey() {
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config("storage.type", "ftp")))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("storage.type").hasMessageContaining("ftp");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config(
                "savepoint.periodic.max-retained", "-1"))).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("savepoint.periodic.max-retained");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config("storage.type", "hdfs",
                "fs.defaultFS", "hdfs:///no-namenode"))).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("fs.defaultFS");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config("storage.type", "s3")))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("on the s3 backend")
                .hasMessageContaining("s3.bucket");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config("storage.type", "oss")))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("on the hdfs backend");
        Map<String, String> noNamespace = config();
        noNamespace.remove("namespace");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(noNamespace))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("namespace");
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(null))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("plugin-config");
    }
}
