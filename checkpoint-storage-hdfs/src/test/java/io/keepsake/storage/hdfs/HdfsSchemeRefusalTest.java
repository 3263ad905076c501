package io.keepsake.storage.hdfs;

import io.keepsake.storage.GcReport;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.spi.FsCapability;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code hdfs} storage on schemes without atomic rename and exclusive create: refused by name
 * before Hadoop instantiates any file system, unless {@code hdfs.allow-non-atomic-scheme=true}.
 */
class HdfsSchemeRefusalTest {

    private static final String RECORDING = FakeSchemeFileSystems.Recording.class.getName();

    @TempDir
    Path temp;

    private final HdfsStorageFactory factory = new HdfsStorageFactory();

    private static Map<String, String> config(String... pairs) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    @Test
    void objectStoreSchemesAreRefusedByNameBeforeAnyFileSystemIsInstantiated() {
        int before = FakeSchemeFileSystems.INSTANTIATED.get();
        Map<String, Map<String, String>> refused = Map.of(
                "s3a", config("storage.type", "s3", "s3.bucket", "s3a://bucket", "namespace", "/x",
                        "fs.s3a.impl", RECORDING),
                "abfs", config("storage.type", "hdfs", "fs.defaultFS", "abfs://c@a.dfs.core.windows.net",
                        "namespace", "/x", "seatunnel.hadoop.fs.abfs.impl", RECORDING),
                "oss", config("storage.type", "oss", "oss.bucket", "oss://b", "namespace", "/x",
                        "fs.oss.impl", RECORDING));
        refused.forEach((scheme, config) -> assertThatThrownBy(() -> factory.create(config)).as(scheme)
                .isInstanceOfSatisfying(NonAtomicFileSystemException.class,
                        e -> assertThat(e.scheme()).isEqualTo(scheme))
                .hasMessageStartingWith("Cannot open hdfs storage on a " + scheme + ":// file system")
                .hasMessageContaining("rename is copy-and-delete").hasMessageContaining("check-then-act")
                .hasMessageContaining("use the s3 storage")
                .hasMessageContaining("hdfs.allow-non-atomic-scheme=true")
                .hasMessageContaining("namespace=/x"));
        assertThat(FakeSchemeFileSystems.INSTANTIATED.get()).as("file systems instantiated").isEqualTo(before);
    }

    @Test
    void schemesWhosePrimitivesDependOnWhatIsBehindThemAreRefusedToo() {
        for (String address : List.of("viewfs://cluster", "ofs://om-host", "o3fs://bucket.volume.om-host",
                "gs://bucket", "wasb://c@a.blob.core.windows.net", "cosn://bucket")) {
            String scheme = address.substring(0, address.indexOf(':'));
            assertThatThrownBy(() -> factory.create(config("fs.defaultFS", address, "namespace", "/x",
                    "seatunnel.hadoop.fs." + scheme + ".impl", RECORDING))).as(address)
                    .isInstanceOf(NonAtomicFileSystemException.class).hasMessageContaining(address);
        }
    }

    @Test
    void aRootQualifiedWithANonAtomicSchemeIsRefusedByNameWithoutAnAddress() {
        assertThatThrownBy(() -> factory.create(config("namespace", "abfs://c@a.dfs.core.windows.net/x")))
                .isInstanceOf(NonAtomicFileSystemException.class)
                .hasMessageContaining("namespace=abfs://c@a.dfs.core.windows.net/x");
        assertThatThrownBy(() -> factory.create(config("fs.defaultFS", "hdfs://nn:8020", "namespace", "/x",
                "savepoint.path", "s3a://bucket/sp")))
                .isInstanceOf(NonAtomicFileSystemException.class).hasMessageContaining("savepoint.path=s3a://bucket/sp");
    }

    @Test
    void theFileSystemItselfRefusesANonAtomicSchemeWithoutTheOverride() {
        Configuration conf = new Configuration();
        conf.set("fs.defaultFS", "s3a://bucket");
        conf.set("fs.s3a.impl", RECORDING);
        int before = FakeSchemeFileSystems.INSTANTIATED.get();
        assertThatThrownBy(() -> new HdfsFileSystem(conf)).isInstanceOf(NonAtomicFileSystemException.class)
                .hasMessageContaining("s3a://bucket");
        assertThat(FakeSchemeFileSystems.INSTANTIATED.get()).isEqualTo(before);
    }

    @Test
    void theOverrideMustBeTrueOrFalse() {
        assertThatThrownBy(() -> factory.create(config("storage.type", "local", "namespace",
                temp.resolve("ns").toString(), "hdfs.allow-non-atomic-scheme", "yes")))
                .isInstanceOf(io.keepsake.storage.InvalidStorageArgumentException.class)
                .hasMessageContaining("hdfs.allow-non-atomic-scheme").hasMessageContaining("yes");
    }

    @Test
    void theLocalDiskIsAcceptedWithoutTheOverride() throws Exception {
        try (KeepsakeStorage storage = factory.create(config("storage.type", "local", "namespace",
                temp.resolve("ns").toString()))) {
            assertThat(storage.namespace()).startsWith("file://");
            commit(storage, "sp-local");
        }
    }

    @Test
    void theOverrideAcceptsAnotherSchemeAndItsCollectionsKeepUndecidedAttempts() throws Exception {
        Path ns = temp.resolve("fake-ns");
        Map<String, String> config = config("storage.type", "hdfs", "fs.defaultFS", "fake:///",
                "namespace", ns.toString(),
                "seatunnel.hadoop.fs.fake.impl", FakeSchemeFileSystems.LocalUnderFakeScheme.class.getName(),
                "seatunnel.hadoop.fs.AbstractFileSystem.fake.impl",
                FakeSchemeFileSystems.LocalUnderFakeSchemeFs.class.getName());
        assertThatThrownBy(() -> factory.create(config)).isInstanceOf(NonAtomicFileSystemException.class)
                .hasMessageContaining("fake://");

        config.put("hdfs.allow-non-atomic-scheme", "true");
        try (KeepsakeStorage storage = factory.create(config)) {
            assertThat(storage.namespace()).isEqualTo("fake://" + ns);
            commit(storage, "sp-1");
            assertThat(storage.readSavepoint("1001", "sp-1").payloadOfPipeline(1)).containsExactly(4, 5);

            // the files of an attempt whose writer is gone, without metadata, lease or outcome
            Path folder = Files.createDirectories(ns.resolve("savepoint").resolve("1001").resolve("sp-2"));
            Path payload = Files.write(folder.resolve("pipeline-1.sp-2.0123456789abcdef.wire"), new byte[] {6});
            GcReport report = storage.collectGarbage(Duration.ZERO);
            assertThat(report.kept()).anyMatch(k -> k.contains("/sp-2/") && k.contains("0123456789abcdef")
                    && k.contains("create-if-absent is not exclusive"));
            assertThat(report.deleted()).noneMatch(d -> d.contains("sp-2"));
            assertThat(payload).exists();
        }
    }

    @Test
    void theFileSystemOpenedWithTheOverrideDeclaresItsCreateNotExclusive() throws Exception {
        Configuration conf = new Configuration();
        conf.set("fs.defaultFS", "fake:///");
        conf.set("fs.fake.impl", FakeSchemeFileSystems.LocalUnderFakeScheme.class.getName());
        conf.set("fs.AbstractFileSystem.fake.impl", FakeSchemeFileSystems.LocalUnderFakeSchemeFs.class.getName());
        try (HdfsFileSystem fs = new HdfsFileSystem(conf, null, true)) {
            assertThat(fs.capabilities()).contains(FsCapability.NON_EXCLUSIVE_CREATE)
                    .doesNotContain(FsCapability.ATOMIC_DIRECTORY_RENAME);
        }
        Configuration local = new Configuration();
        local.set("fs.defaultFS", "file:///");
        try (HdfsFileSystem fs = new HdfsFileSystem(local)) {
            assertThat(fs.capabilities()).doesNotContain(FsCapability.NON_EXCLUSIVE_CREATE);
        }
    }

    private static SavepointRequest request(String id) {
        return new SavepointRequest("1001", id, SavepointKind.MANUAL, "test", "t", System.currentTimeMillis(),
                Map.of());
    }

    private static void commit(KeepsakeStorage storage, String id) throws Exception {
        try (SavepointWriter w = storage.beginSavepoint(request(id))) {
            try (OutputStream out = w.openPayload(1, 1)) {
                out.write(new byte[] {4, 5});
            }
            w.commit(1L);
        }
    }
}
