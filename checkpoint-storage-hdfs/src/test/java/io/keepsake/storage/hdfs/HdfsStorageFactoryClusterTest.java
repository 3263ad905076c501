package io.keepsake.storage.hdfs;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointWriter;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The factory against a real HDFS: the configuration a user writes reaches the cluster, the
 * roots exist once the storage is returned, and storages with different settings in one process
 * write with their own.
 */
class HdfsStorageFactoryClusterTest {

    @RegisterExtension
    static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();

    @TempDir
    java.nio.file.Path temp;

    private final HdfsStorageFactory factory = new HdfsStorageFactory();

    private Map<String, String> keys(String namespace, String... extra) {
        Map<String, String> m = new HashMap<>(hdfs.factoryKeys(namespace));
        for (int i = 0; i < extra.length; i += 2) {
            m.put(extra[i], extra[i + 1]);
        }
        return m;
    }

    private static String path(String qualified) {
        return new Path(qualified).toUri().getPath();
    }

    private short replicationOfCheckpoint(KeepsakeStorage storage, String job) throws Exception {
        String name = storage.storeCheckPoint(new PipelineState(job, 1, 1, new byte[] {1, 2, 3}));
        FileSystem su = hdfs.superuser();
        return su.getFileStatus(new Path(storage.namespace() + "/" + job + "/" + name)).getReplication();
    }

    @Test
    void theFactoryFoundByIdOpensAStorageOnTheClusterWithItsRootsCreated() throws Exception {
        String ns = "/factory-" + System.nanoTime() + "/checkpoint/";
        String sp = "/factory-" + System.nanoTime() + "/savepoints";
        try (CheckpointStorage storage = CheckpointStorageFactories.find("hdfs")
                .create(keys(ns, "savepoint.path", sp, "savepoint.periodic.max-retained", "3"))) {
            KeepsakeStorage hdfsStorage = (KeepsakeStorage) storage;
            assertThat(hdfsStorage.namespace()).isEqualTo(hdfs.uri() + ns.substring(0, ns.length() - 1));
            assertThat(hdfsStorage.savepointRoot()).isEqualTo(hdfs.uri() + sp);
            assertThat(hdfsStorage.periodicMaxRetained()).isEqualTo(3);
            FileSystem su = hdfs.superuser();
            assertThat(su.getFileStatus(new Path(ns)).isDirectory()).isTrue();
            assertThat(su.getFileStatus(new Path(sp)).isDirectory()).isTrue();

            PipelineState state = new PipelineState("1001", 2, 9, new byte[] {7, 7});
            storage.storeCheckPoint(state);
            SavepointStorage savepoints = (SavepointStorage) storage;
            try (SavepointWriter w = savepoints.beginSavepoint(new SavepointRequest("1001", "sp-1", SavepointKind.MANUAL,
                    "test", "t", System.currentTimeMillis(), Map.of()))) {
                try (OutputStream out = w.openPayload(2, 9)) {
                    out.write(new byte[] {8});
                }
                w.commit(5L);
            }
            assertThat(storage.getLatestCheckpoint("1001")).containsExactly(state);
            assertThat(savepoints.readSavepoint("1001", "sp-1").payloadOfPipeline(2)).containsExactly(8);
            assertThat(su.exists(new Path(sp + "/1001/sp-1/_metadata.ser"))).isTrue();
        }
    }

    @Test
    void storagesWithDifferentSettingsInOneProcessWriteWithTheirOwn() throws Exception {
        try (KeepsakeStorage twice = factory.create(keys("/replication/two", "seatunnel.hadoop.dfs.replication", "2"))) {
            KeepsakeStorage once = factory.create(keys("/replication/one", "seatunnel.hadoop.dfs.replication", "1"));
            try {
                assertThat(replicationOfCheckpoint(once, "1001")).isEqualTo((short) 1);
                assertThat(replicationOfCheckpoint(twice, "1001")).isEqualTo((short) 2);
                assertThat(HdfsStorages.hadoopConfiguration(once).get("dfs.replication")).isEqualTo("1");
                assertThat(HdfsStorages.hadoopConfiguration(twice).get("dfs.replication")).isEqualTo("2");
            } finally {
                once.close();
            }
            assertThat(replicationOfCheckpoint(twice, "1002")).as("closing one storage leaves the other's client open")
                    .isEqualTo((short) 2);
        }
    }

    @Test
    void anHdfsSiteFileIsReadButTheExplicitKeysWin() throws Exception {
        java.nio.file.Path site = temp.resolve("hdfs-site.xml");
        Files.writeString(site, """
                <?xml version="1.0"?>
                <configuration>
                  <property><name>dfs.replication</name><value>2</value></property>
                  <property><name>fs.defaultFS</name><value>hdfs://wrong-namenode:1</value></property>
                  <property><name>keepsake.from.site</name><value>yes</value></property>
                </configuration>
                """, StandardCharsets.UTF_8);
        try (KeepsakeStorage storage = factory.create(keys("/site/ns", "hdfs_site_path", site.toString()))) {
            assertThat(HdfsStorages.hadoopConfiguration(storage).get("keepsake.from.site")).isEqualTo("yes");
            assertThat(HdfsStorages.hadoopConfiguration(storage).get("fs.defaultFS")).isEqualTo(hdfs.uri().toString());
            assertThat(replicationOfCheckpoint(storage, "1001")).isEqualTo((short) 2);
        }
    }

    @Test
    void aQualifiedNamespaceMustNameThisCluster() throws Exception {
        try (KeepsakeStorage storage = factory.create(keys(hdfs.uri() + "/qualified/ns"))) {
            assertThat(path(storage.namespace())).isEqualTo("/qualified/ns");
        }
        assertThatThrownBy(() -> factory.create(keys("hdfs://elsewhere:8020/ns")))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("namespace").hasMessageContaining("another file system");
    }
}
