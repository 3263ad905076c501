package io.keepsake.storage.hdfs;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.hdfs.internal.HdfsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The factory's configuration handling, without a cluster: what is accepted, what is refused
 * and how, and that an address nobody answers on fails in seconds.
 */
class HdfsStorageFactoryTest {

    @TempDir
    Path temp;

    private final HdfsStorageFactory factory = new HdfsStorageFactory();

    private Map<String, String> local(String... extra) {
        Map<String, String> m = new HashMap<>();
        m.put("namespace", temp.resolve("ns").toString());
        m.put("storage.type", "local");
        for (int i = 0; i < extra.length; i += 2) {
            m.put(extra[i], extra[i + 1]);
        }
        return m;
    }

    private static Map<String, String> hdfs(String defaultFs, String... extra) {
        Map<String, String> m = new HashMap<>();
        m.put("namespace", "/keepsake/ns");
        m.put("storage.type", "hdfs");
        if (defaultFs != null) {
            m.put("fs.defaultFS", defaultFs);
        }
        for (int i = 0; i < extra.length; i += 2) {
            m.put(extra[i], extra[i + 1]);
        }
        return m;
    }

    private static int unusedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void theFactoryIsFoundByItsId() {
        assertThat(CheckpointStorageFactories.find("hdfs")).isInstanceOf(HdfsStorageFactory.class);
        assertThat(factory.factoryIdentifier()).isEqualTo("hdfs");
    }

    @Test
    void localStorageTypeStoresAndPublishesThroughTheRawLocalFileSystem() throws Exception {
        try (KeepsakeStorage storage = factory.create(local())) {
            assertThat(storage.namespace()).isEqualTo("file://" + temp.resolve("ns"));
            PipelineState state = new PipelineState("1001", 1, 7, new byte[] {1, 2, 3});
            storage.storeCheckPoint(state);
            try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest("1001", "sp-1", SavepointKind.MANUAL,
                    "test", "t", System.currentTimeMillis(), Map.of()))) {
                try (OutputStream out = w.openPayload(1, 7)) {
                    out.write(new byte[] {4, 5});
                }
                w.commit(1L);
            }
            assertThat(storage.getLatestCheckpoint("1001")).containsExactly(state);
            assertThat(storage.readSavepoint("1001", "sp-1").payloadOfPipeline(1)).containsExactly(4, 5);
        }
        try (Stream<Path> files = Files.walk(temp)) {
            assertThat(files.map(Path::toString)).noneMatch(p -> p.endsWith(".crc"));
        }
    }

    @Test
    void unknownKeysAreRefusedByName() {
        assertThatThrownBy(() -> factory.create(local("fs.defaultFs", "file:///", "kerberos.principal", "x")))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("fs.defaultFs").hasMessageContaining("kerberos.principal");
    }

    @Test
    void keysOfAnotherStorageTypeAreRefused() {
        assertThatThrownBy(() -> factory.create(local("kerberosPrincipal", "a@B", "kerberosKeytabFilePath", "/k")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("local");
        assertThatThrownBy(() -> factory.create(local("s3.bucket", "s3a://bucket")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("s3.bucket");
        assertThatThrownBy(() -> factory.create(hdfs("hdfs://nn:8020", "fs.oss.endpoint", "x")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("fs.oss.endpoint");
        assertThatThrownBy(() -> factory.create(local("storage.type", "ftp")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("ftp");
    }

    @Test
    void theCallersMapIsNeverMutated() throws Exception {
        Map<String, String> given = local("seatunnel.hadoop.io.file.buffer.size", "8192", "savepoint.path",
                temp.resolve("sp").toString());
        Map<String, String> copy = Map.copyOf(given);
        factory.create(given).close();
        assertThat(given).isEqualTo(copy);
        factory.create(Collections.unmodifiableMap(given)).close();
        factory.create(Map.copyOf(given)).close();
        assertThat(given).isEqualTo(copy);
    }

    @Test
    void hadoopKeysArePassedThroughWithThePrefixStripped() throws Exception {
        try (KeepsakeStorage storage = factory.create(local("seatunnel.hadoop.dfs.replication", "1",
                "seatunnel.hadoop.io.file.buffer.size", "8192"))) {
            assertThat(HdfsStorages.hadoopConfiguration(storage).get("dfs.replication")).isEqualTo("1");
            assertThat(HdfsStorages.hadoopConfiguration(storage).get("io.file.buffer.size")).isEqualTo("8192");
            assertThat(HdfsStorages.hadoopConfiguration(storage).get("seatunnel.hadoop.dfs.replication")).isNull();
        }
    }

    @Test
    void twoStoragesInOneProcessKeepTheirOwnSettings() throws Exception {
        try (KeepsakeStorage a = factory.create(local("seatunnel.hadoop.keepsake.marker", "a"));
             KeepsakeStorage b = factory.create(local("namespace", temp.resolve("other").toString(),
                     "seatunnel.hadoop.keepsake.marker", "b"))) {
            assertThat(HdfsStorages.hadoopConfiguration(a).get("keepsake.marker")).isEqualTo("a");
            assertThat(HdfsStorages.hadoopConfiguration(b).get("keepsake.marker")).isEqualTo("b");
            assertThat(HdfsStorages.fileSystem(a)).isNotSameAs(HdfsStorages.fileSystem(b));
        }
    }

    @Test
    void kerberosKeysGoTogether() {
        assertThatThrownBy(() -> factory.create(hdfs("hdfs://nn:8020", "kerberosPrincipal", "keepsake@EXAMPLE.COM")))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("kerberosKeytabFilePath").hasMessageContaining("kerberosPrincipal");
        assertThatThrownBy(() -> factory.create(hdfs("hdfs://nn:8020", "kerberosKeytabFilePath", "/etc/keepsake.keytab")))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("kerberosKeytabFilePath").hasMessageContaining("kerberosPrincipal");
        String missing = temp.resolve("missing.keytab").toString();
        assertThatThrownBy(() -> factory.create(hdfs("hdfs://nn:8020", "kerberosPrincipal", "keepsake@EXAMPLE.COM",
                "kerberosKeytabFilePath", missing)))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("kerberosKeytabFilePath").hasMessageContaining(missing);
    }

    @Test
    void aMissingHdfsSiteFileIsRefusedByName() {
        String missing = temp.resolve("hdfs-site.xml").toString();
        assertThatThrownBy(() -> factory.create(hdfs("hdfs://nn:8020", "hdfs_site_path", missing)))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("hdfs_site_path").hasMessageContaining(missing);
    }

    @Test
    void anHdfsSiteFileThatIsNotHadoopXmlIsRefusedByName() throws Exception {
        Path site = Files.writeString(temp.resolve("hdfs-site.xml"), "dfs.replication=2\n");
        assertThatThrownBy(() -> factory.create(hdfs("hdfs://nn:8020", "hdfs_site_path", site.toString())))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("hdfs_site_path").hasMessageContaining(site.toString());
    }

    @Test
    void hdfsNeedsItsNameNodeAddress() {
        assertThatThrownBy(() -> factory.create(hdfs(null)))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("fs.defaultFS");
        Map<String, String> noType = hdfs(null);
        noType.remove("storage.type");
        assertThatThrownBy(() -> factory.create(noType))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("fs.defaultFS");
    }

    @Test
    void malformedNameNodeAddressesAreRefusedByName() {
        for (String bad : List.of("hdfs//nn:8020", "namenode:8020", "hdfs://", "hdfs:///", "hdfs://nn:port",
                "file:///", "hdfs://nn:8020?x=1", "hdfs:///keepsake", " ")) {
            assertThatThrownBy(() -> factory.create(hdfs(bad))).as(bad)
                    .isInstanceOf(InvalidStorageArgumentException.class)
                    .hasMessageContaining("fs.defaultFS");
        }
    }

    @Test
    void seaTunnelsStockLocalAddressWithADirectoryStoresUnderTheNamespaceAsSeaTunnelDoes() throws Exception {
        // seatunnel.yaml as shipped: fs.defaultFS: file:///tmp/ with an absolute namespace. SeaTunnel's hdfs plugin
        // (FileSystem.get) takes only the scheme and authority; the namespace is used as it is.
        Path elsewhere = temp.resolve("fs-default-dir");
        try (CheckpointStorage storage = factory.create(local("fs.defaultFS", elsewhere.toUri() + "/"))) {
            storage.storeCheckPoint(new PipelineState("job", 1, 3L, new byte[]{1, 2, 3}));
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId("job", "1").checkpointId()).isEqualTo(3L);
        }
        try (Stream<Path> files = Files.list(temp.resolve("ns").resolve("job"))) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.endsWith("-1-3.ser"));
        }
        assertThat(elsewhere).doesNotExist();
    }

    @Test
    void aDirectoryAfterTheAddressIsLeftOutOfTheFileSystemUriForEveryType() {
        Map<String, String> seaTunnelStock = Map.of("namespace", "/tmp/seatunnel/checkpoint_snapshot",
                "storage.type", "local", "fs.defaultFS", "file:///tmp/");
        HdfsSettings local = settings(seaTunnelStock);
        assertThat(local.fileSystemUri()).hasToString("file:///");
        assertThat(local.ignoredDirectory()).isEqualTo("/tmp/");
        assertThat(local.configuration().get("fs.defaultFS")).isEqualTo("file:///");

        HdfsSettings cluster = settings(hdfs("hdfs://nn:8020/user/seatunnel"));
        assertThat(cluster.fileSystemUri()).hasToString("hdfs://nn:8020");
        assertThat(cluster.ignoredDirectory()).isEqualTo("/user/seatunnel");

        HdfsSettings plain = settings(hdfs("hdfs://nn:8020/"));
        assertThat(plain.fileSystemUri()).hasToString("hdfs://nn:8020");
        assertThat(plain.ignoredDirectory()).isNull();
    }

    private static HdfsSettings settings(Map<String, String> configuration) {
        return HdfsSettings.from(StorageOptions.parse(new HashMap<>(configuration), "hdfs", HdfsSettings.KEYS,
                HdfsSettings.PREFIXES, HdfsSettings.STORAGE_TYPES));
    }

    @Test
    void conflictingAddressesAreRefused() {
        assertThatThrownBy(() -> factory.create(hdfs("hdfs://a:8020", "seatunnel.hadoop.fs.defaultFS", "hdfs://b:8020")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("hdfs://b:8020");
        Map<String, String> s3 = hdfs("s3a://one", "storage.type", "s3", "s3.bucket", "s3a://two");
        assertThatThrownBy(() -> factory.create(s3))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("s3.bucket");
    }

    @Test
    void aRelativeNamespaceIsRefusedByName() {
        assertThatThrownBy(() -> factory.create(local("namespace", "relative/ns")))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("namespace").hasMessageContaining("relative/ns");
        assertThatThrownBy(() -> factory.create(local("savepoint.path", "/a/../b")))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("savepoint.path");
    }

    @Test
    void anObjectStoreWithoutItsConnectorSaysWhichJarIsMissing() {
        Map<String, String> s3 = hdfs(null, "storage.type", "s3", "s3.bucket", "s3a://keepsake-bucket",
                "fs.s3a.endpoint", "http://127.0.0.1:1", "hdfs.allow-non-atomic-scheme", "true");
        assertThatThrownBy(() -> factory.create(s3)).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("s3a://keepsake-bucket").hasMessageContaining("hadoop-aws");
    }

    @Test
    void aNameNodeThatRefusesConnectionsFailsInSecondsNamingTheAddress() throws Exception {
        String address = "hdfs://127.0.0.1:" + unusedPort();
        CheckpointStorageException e = refusedWithinSeconds(address, "dead");
        assertThat(e.getMessage()).contains("fs.defaultFS").contains(address).containsIgnoringCase("connection refused");
    }

    @Test
    void aNameNodeThatNeverAnswersFailsInSecondsNamingTheAddress() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String address = "hdfs://127.0.0.1:" + silent.getLocalPort();
            CheckpointStorageException e = refusedWithinSeconds(address, "silent");
            assertThat(e.getMessage()).contains("fs.defaultFS").contains(address).containsIgnoringCase("timeout");
        }
    }

    /**
     * What creating a storage on the name node at {@code address} ({@code what}: how it fails to
     * answer) threw; fails when it took 30 seconds or more, or created a storage.
     */
    private CheckpointStorageException refusedWithinSeconds(String address, String what) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (CheckpointStorage unexpected = factory.create(hdfs(address))) {
                throw new AssertionError("created a storage on a " + what + " address: " + unexpected);
            } catch (CheckpointStorageException expected) {
                return expected;
            }
        });
    }
}
