package io.keepsake.seatunnel;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.keepsake.fixtures.tck.PayloadBytes;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointContent;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A savepoint written on Azure Blob Storage (Azurite) restores after its folder is copied file by
 * file, as an operator's copy tool would with each store's own client (java.nio, Hadoop's
 * {@code FileSystem}, the AWS SDK, the Azure SDK; never Keepsake), to a local directory, HDFS (a
 * mini cluster) and S3 (S3Proxy); and the copy, copied back to a fresh namespace on Azure, restores
 * there too. The second payload spans three Azure blocks (1 MiB blocks), so the Azure side of each
 * copy reads and writes a blob staged in blocks.
 */
class SavepointRelocationTest {

    private static final String JOB = "1001";
    private static final Map<Integer, byte[]> PAYLOADS = Map.of(1, PayloadBytes.bytes(5, 1000), 2, PayloadBytes.bytes(6, (2 << 20) + 7));

    private static final List<SharedBackend> STARTED = new ArrayList<>();
    private static final Map<String, SharedBackend> BACKENDS = new HashMap<>();

    @BeforeAll
    static void startBackends(@TempDir Path dir) throws Exception {
        for (String name : List.of("azure", "localfile", "hdfs", "s3")) {
            SharedBackend backend = SharedBackend.start(name, dir);
            STARTED.add(backend);
            BACKENDS.put(name, backend);
        }
    }

    @AfterAll
    static void stopBackends() throws Exception {
        for (SharedBackend backend : STARTED) {
            backend.close();
        }
    }

    @ParameterizedTest(name = "azure -> {0} -> azure")
    @ValueSource(strings = {"localfile", "hdfs", "s3"})
    void aSavepointWrittenOnAzureRestoresAfterCopyingToAnotherBackendAndBack(String other) throws Exception {
        String savepointId = "sp-" + other;
        String folder = "savepoint/" + JOB + "/" + savepointId;
        Map<String, String> azure = BACKENDS.get("azure").pluginConfig(Map.of("azure.block.size", "1M"));
        Map<String, String> elsewhere = BACKENDS.get(other).pluginConfig();
        String azureNs = azure.get("namespace");
        Map<String, String> azureBack = new HashMap<>(azure);
        azureBack.put("namespace", azureNs + "-back-from-" + other);

        try (KeepsakeStorage source = open(azure)) {
            PayloadBytes.commit(source, JOB, savepointId, PAYLOADS);
        }
        try (KeepsakeStorage target = open(elsewhere)) {
            copy(Tree.of(azure), Tree.of(elsewhere), folder);
            assertRestores(target, savepointId, "after copying from azure to " + other);
        }
        try (KeepsakeStorage back = open(azureBack)) {
            copy(Tree.of(elsewhere), Tree.of(azureBack), folder);
            assertRestores(back, savepointId, "after copying from " + other + " back to azure");
        }
    }

    private static KeepsakeStorage open(Map<String, String> config) throws Exception {
        String backend = config.getOrDefault("storage.type", "localfile");
        return (KeepsakeStorage) CheckpointStorageFactories.find(backend).create(config);
    }

    private static void assertRestores(KeepsakeStorage storage, String savepointId, String when) {
        SavepointContent restored = storage.readSavepoint(JOB, savepointId);
        PAYLOADS.forEach((pipeline, bytes) -> assertThat(restored.payloadOfPipeline(pipeline))
                .as("pipeline %d's payload %s", pipeline, when).isEqualTo(bytes));
    }

    /** Copies every file of {@code folder} (relative to the namespaces) from one tree to the other. */
    private static void copy(Tree from, Tree to, String folder) throws IOException {
        List<String> names = from.list(folder);
        assertThat(names).as("the files of " + folder).isNotEmpty();
        for (String name : names) {
            to.write(folder + "/" + name, from.read(folder + "/" + name));
        }
    }

    /** One store's files below a namespace, through that store's own client. */
    private interface Tree {

        /** The names of the files directly in {@code folder}. */
        List<String> list(String folder) throws IOException;

        byte[] read(String file) throws IOException;

        void write(String file, byte[] content) throws IOException;

        /** The tree of the namespace a plugin-config of {@link SharedBackend} names. */
        static Tree of(Map<String, String> config) throws IOException {
            String ns = config.get("namespace");
            return switch (config.getOrDefault("storage.type", "localfile")) {
                case "localfile" -> new LocalTree(Path.of(ns));
                case "hdfs" -> new HadoopTree(FileSystem.newInstance(URI.create(config.get("fs.defaultFS")),
                        new Configuration()), ns);
                case "s3" -> new S3Tree(config, URI.create(ns));
                case "azure" -> new AzureTree(config, URI.create(ns));
                default -> throw new IllegalArgumentException("no copy tool for " + config.get("storage.type"));
            };
        }
    }

    private record LocalTree(Path root) implements Tree {
        @Override
        public List<String> list(String folder) throws IOException {
            try (Stream<Path> files = Files.list(root.resolve(folder))) {
                return files.filter(Files::isRegularFile).map(f -> f.getFileName().toString()).toList();
            }
        }

        @Override
        public byte[] read(String file) throws IOException {
            return Files.readAllBytes(root.resolve(file));
        }

        @Override
        public void write(String file, byte[] content) throws IOException {
            Files.createDirectories(root.resolve(file).getParent());
            Files.write(root.resolve(file), content);
        }
    }

    private record HadoopTree(FileSystem fs, String root) implements Tree {
        private org.apache.hadoop.fs.Path path(String relative) {
            return new org.apache.hadoop.fs.Path(root + "/" + relative);
        }

        @Override
        public List<String> list(String folder) throws IOException {
            List<String> names = new ArrayList<>();
            for (FileStatus f : fs.listStatus(path(folder))) {
                if (f.isFile()) {
                    names.add(f.getPath().getName());
                }
            }
            return names;
        }

        @Override
        public byte[] read(String file) throws IOException {
            try (InputStream in = fs.open(path(file))) {
                return in.readAllBytes();
            }
        }

        @Override
        public void write(String file, byte[] content) throws IOException {
            try (FSDataOutputStream out = fs.create(path(file), false)) {
                out.write(content);
            }
        }
    }

    /** {@code s3a://bucket/prefix} through the AWS SDK. */
    private record S3Tree(Map<String, String> config, URI ns) implements Tree {
        private S3Client client() {
            return S3ProxyProcess.client(URI.create(config.get("fs.s3a.endpoint")), config.get("fs.s3a.access.key"),
                    config.get("fs.s3a.secret.key"));
        }

        private String key(String relative) {
            return ns.getPath().substring(1) + "/" + relative;
        }

        @Override
        public List<String> list(String folder) {
            String prefix = key(folder) + "/";
            try (S3Client c = client()) {
                return c.listObjectsV2Paginator(b -> b.bucket(ns.getHost()).prefix(prefix).delimiter("/")).contents()
                        .stream().map(S3Object::key).map(k -> k.substring(prefix.length())).filter(n -> !n.isEmpty())
                        .toList();
            }
        }

        @Override
        public byte[] read(String file) {
            try (S3Client c = client()) {
                return c.getObjectAsBytes(b -> b.bucket(ns.getHost()).key(key(file))).asByteArray();
            }
        }

        @Override
        public void write(String file, byte[] content) {
            try (S3Client c = client()) {
                c.putObject(b -> b.bucket(ns.getHost()).key(key(file)), RequestBody.fromBytes(content));
            }
        }
    }

    /** {@code azure://container/prefix} through the Azure SDK, with the account key. */
    private record AzureTree(Map<String, String> config, URI ns) implements Tree {
        private BlobContainerClient container() {
            return new BlobServiceClientBuilder().endpoint(config.get("azure.endpoint"))
                    .credential(new StorageSharedKeyCredential(config.get("azure.account.name"),
                            config.get("azure.account.key")))
                    .buildClient().getBlobContainerClient(ns.getHost());
        }

        private String name(String relative) {
            return ns.getPath().substring(1) + "/" + relative;
        }

        @Override
        public List<String> list(String folder) {
            String prefix = name(folder) + "/";
            return container().listBlobsByHierarchy(prefix).stream().filter(b -> !Boolean.TRUE.equals(b.isPrefix()))
                    .map(BlobItem::getName).map(n -> n.substring(prefix.length())).filter(n -> !n.isEmpty()).toList();
        }

        @Override
        public byte[] read(String file) {
            return container().getBlobClient(name(file)).downloadContent().toBytes();
        }

        @Override
        public void write(String file, byte[] content) {
            container().getBlobClient(name(file)).upload(BinaryData.fromBytes(content), false);
        }
    }
}
