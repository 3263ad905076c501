package io.keepsake.seatunnel;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.keepsake.engine.CheckpointType;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shaded jar as an operator drops it into SeaTunnel's {@code lib/}: it holds Keepsake, its
 * third-party code relocated below {@code io/keepsake/shaded/} and nothing the engine ships, it
 * carries LICENSE and NOTICE, its size is the one docs/seatunnel.md gives, and it works in a class
 * loader that sees only the engine's jars and it, on the local, Hadoop, S3 and Azure backends (the
 * S3 one over HTTP to S3Proxy in a child process with the relocated AWS SDK, the Azure one over HTTP
 * to Azurite with the relocated Azure SDK, each beside an unrelocated SDK as a connector would bring
 * it).
 */
class PluginJarIT {

    private static final Path JAR = Path.of(System.getProperty("keepsake.plugin.jar", "target/keepsake-seatunnel.jar"));
    /** The packages the third-party code is relocated to, each a folder below io/keepsake/shaded/. */
    private static final Set<String> SHADED = Set.of("io/keepsake/shaded/org/apache/commons/codec",
            "io/keepsake/shaded/software/amazon/awssdk", "io/keepsake/shaded/software/amazon/eventstream",
            "io/keepsake/shaded/org/apache/hc", "io/keepsake/shaded/org/reactivestreams",
            "io/keepsake/shaded/org/publicsuffix", "io/keepsake/shaded/com/azure",
            "io/keepsake/shaded/com/microsoft/aad", "io/keepsake/shaded/com/fasterxml/jackson",
            "io/keepsake/shaded/reactor", "io/keepsake/shaded/io/netty");

    @Test
    void jarHoldsKeepsakeAndNothingTheEngineShips() throws Exception {
        List<String> names = new ArrayList<>();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            jar.stream().map(ZipEntry::getName).forEach(names::add);
            assertThat(read(jar, "META-INF/services/org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory"))
                    .contains(KeepsakeCheckpointStorageFactory.class.getName());
            assertThat(read(jar, "META-INF/services/io.keepsake.storage.CheckpointStorageFactory"))
                    .contains("io.keepsake.storage.localfile.LocalFileStorageFactory")
                    .contains("io.keepsake.storage.hdfs.HdfsStorageFactory")
                    .contains("io.keepsake.storage.s3.S3StorageFactory")
                    .contains("io.keepsake.storage.azure.AzureStorageFactory");
            assertThat(read(jar, "META-INF/services/io.keepsake.shaded.com.azure.core.http.HttpClientProvider"))
                    .as("the Azure SDK finds its relocated Netty client")
                    .contains("io.keepsake.shaded.com.azure.core.http.netty.NettyAsyncHttpClientProvider");
        }
        assertThat(names).contains("io/keepsake/seatunnel/KeepsakeCheckpointStorage.class",
                "io/keepsake/storage/internal/ComposedStorage.class", "io/keepsake/wire/LegacyCheckpointCodec.class",
                "io/keepsake/reader/SavepointReaderRegistry.class", "io/keepsake/storage/hdfs/HdfsFileSystem.class");
        // lib/ is the class path every connector shares: Keepsake's own packages, the third-party code relocated
        // below io/keepsake/shaded/, and META-INF; no other top-level entry.
        assertThat(names).allSatisfy(n -> assertThat(n).matches("(io/|io/keepsake/.*|META-INF/.*)"));
        assertThat(names).filteredOn(n -> n.endsWith(".class") && !n.startsWith("io/keepsake/shaded/"))
                .allSatisfy(n -> assertThat(n).matches("io/keepsake/(seatunnel|storage|wire|engine|reader)/.*"));
        assertThat(names.stream().filter(n -> n.startsWith("io/keepsake/shaded/")).map(PluginJarIT::shadedPackage)
                .collect(Collectors.toSet()))
                .contains("io/keepsake/shaded/org/apache/commons/codec", "io/keepsake/shaded/software/amazon/awssdk",
                        "io/keepsake/shaded/org/apache/hc", "io/keepsake/shaded/com/azure",
                        "io/keepsake/shaded/com/fasterxml/jackson", "io/keepsake/shaded/reactor",
                        "io/keepsake/shaded/io/netty")
                .allSatisfy(p -> assertThat(p.isEmpty() || SHADED.contains(p)).as("a relocated package: " + p).isTrue());
        // Netty runs on NIO and the JDK's TLS here: no native library, which relocation would break.
        assertThat(names).noneMatch(n -> n.endsWith(".so") || n.endsWith(".dll") || n.endsWith(".jnilib")
                || n.startsWith("META-INF/native/"));
        assertThat(names).filteredOn(n -> n.startsWith("META-INF/services/"))
                .allSatisfy(n -> assertThat(n).matches("META-INF/services/(|io\\.keepsake\\..*|org\\.apache\\.seatunnel\\.engine"
                        + "\\.checkpoint\\.storage\\.api\\.CheckpointStorageFactory)"));
        assertThat(names).noneMatch(n -> n.startsWith("org/slf4j") || n.startsWith("io/protostuff")
                || n.startsWith("org/apache/hadoop") || n.startsWith("com/google") || n.startsWith("org/apache/logging")
                || n.startsWith("org/apache/seatunnel") || n.contains("SLF4JServiceProvider")
                || n.equals("META-INF/services/org.apache.hadoop.fs.FileSystem"));
    }

    @Test
    void jarCarriesLicenseAndNotice() throws Exception {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(read(jar, "META-INF/LICENSE")).isEqualTo(Files.readString(Path.of("..", "LICENSE")));
            assertThat(read(jar, "META-INF/NOTICE")).contains("Keepsake", "Apache Commons Codec", "AWS SDK for Java 2.0")
                    .as("the SDK's part names LICENSE.txt").contains("included in LICENSE.txt");
            assertThat(read(jar, "META-INF/LICENSE.txt")).as("the AWS SDK's license, which its NOTICE names")
                    .contains("Apache License", "Version 2.0");
            // Exactly what docs/seatunnel.md lists under "What the jar holds".
            List<String> topLevel = jar.stream().map(JarEntry::getName)
                    .filter(n -> n.matches("META-INF/[^/]+")).sorted().toList();
            assertThat(topLevel).containsExactly("META-INF/FastDoubleParser-LICENSE",
                    "META-INF/FastDoubleParser-ThirdParty-LICENSE", "META-INF/LICENSE", "META-INF/LICENSE.txt",
                    "META-INF/MANIFEST.MF", "META-INF/NOTICE", "META-INF/Schubfach-LICENSE");
            assertThat(jar.stream().map(JarEntry::getName).filter(n -> n.startsWith("META-INF/") && !n.endsWith("/")
                    && !topLevel.contains(n) && !n.startsWith("META-INF/services/")))
                    .as("the rest of META-INF: the SDK's module versions")
                    .allSatisfy(n -> assertThat(n).matches("META-INF/software\\.amazon\\.awssdk/[a-z0-9-]+/version\\.properties"));
        }
    }

    @Test
    void jarSizeIsTheOneTheDocsGive() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "seatunnel.md"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("`keepsake-seatunnel\\.jar` is ([0-9.]+) MB").matcher(docs);
        assertThat(m.find()).as("docs/seatunnel.md gives the jar's size as `keepsake-seatunnel.jar` is N MB").isTrue();
        double documented = Double.parseDouble(m.group(1));
        double actual = Files.size(JAR) / 1_000_000.0;
        assertThat(actual).as("keepsake-seatunnel.jar's size in MB; update docs/seatunnel.md")
                .isCloseTo(documented, org.assertj.core.data.Percentage.withPercentage(5));
    }

    @Test
    void theRelocatedS3BackendTalksToAnS3EndpointBesideAConnectorsOwnSdk() throws Exception {
        try (S3ProxyProcess s3 = S3ProxyProcess.start()) {
            inEngine(engine -> {
                // A connector's unrelocated AWS SDK v2 on the same class path (the test's, from the S3 backend's pom).
                Class<?> connectorsSdk = engine.loadClass("software.amazon.awssdk.services.s3.S3Client");
                assertThat(connectorsSdk.getProtectionDomain().getCodeSource().getLocation().getPath())
                        .doesNotEndWith("keepsake-seatunnel.jar");
                Object factory = discover(engine);
                Map<String, String> config = Map.of("storage.type", "s3", "namespace", "s3a://" + s3.bucket() + "/ns",
                        "fs.s3a.endpoint", s3.endpoint().toString(), "fs.s3a.path.style.access", "true",
                        "fs.s3a.endpoint.region", "us-east-1", "fs.s3a.access.key", s3.accessKey(),
                        "fs.s3a.secret.key", s3.secretKey(),
                        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider,"
                                + "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider");
                assertThat(storeCleanUpAndRestore(engine, factory, config)).isEqualTo(savepoint());
                // What S3Proxy holds, read with the test's own (unrelocated) SDK.
                assertThat(s3.keys("ns/")).contains("ns/savepoint/42/" + KeepsakeCheckpointStorage.savepointId(7, 1)
                        + "/_metadata.ser");
            });
        }
    }

    @Test
    void theRelocatedAzureBackendTalksToAzuriteBesideAConnectorsOwnSdk() throws Exception {
        try (AzuriteServer azurite = AzuriteServer.start()) {
            String container = AzuriteServer.freshContainerName("plugin-jar");
            azurite.createContainer(container);
            inEngine(engine -> {
                // A connector's unrelocated Azure SDK, Reactor and Netty on the same class path (the test's, from the
                // Azure backend's pom).
                for (String connectors : List.of("com.azure.storage.blob.BlobServiceClient", "com.azure.core.http.HttpClient",
                        "reactor.core.publisher.Mono", "io.netty.channel.Channel", "com.fasterxml.jackson.databind.ObjectMapper")) {
                    assertThat(engine.loadClass(connectors).getProtectionDomain().getCodeSource().getLocation().getPath())
                            .as(connectors).doesNotEndWith("keepsake-seatunnel.jar");
                }
                for (String jackson : List.of("core.json", "databind.cfg", "datatype.jsr310")) {
                    Object version = engine.loadClass("io.keepsake.shaded.com.fasterxml.jackson." + jackson + ".PackageVersion")
                            .getField("VERSION").get(null);
                    assertThat(version).as("the relocated Jackson %s is the version the Azure SDK is built against", jackson)
                            .hasToString(System.getProperty("keepsake.azure-sdk.jackson.version"));
                }
                Object factory = discover(engine);
                Map<String, String> config = azurite.factoryKeys("azure://" + container + "/ns");
                assertThat(storeCleanUpAndRestore(engine, factory, config)).isEqualTo(savepoint());
                // What Azurite holds, listed with the test's own (unrelocated) SDK.
                List<String> blobs = new BlobServiceClientBuilder().endpoint(azurite.endpoint().toString())
                        .credential(new StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
                        .buildClient().getBlobContainerClient(container)
                        .listBlobs(new ListBlobsOptions().setPrefix("ns/"), null).stream().map(BlobItem::getName).toList();
                assertThat(blobs).contains("ns/savepoint/42/" + KeepsakeCheckpointStorage.savepointId(7, 1)
                        + "/_metadata.ser");
            });
        }
    }

    /** A class loader of the engine's jars (third-party jars from the local repository) and the plugin jar, first. */
    private static URLClassLoader engineWithPluginJar() throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(JAR.toUri().toURL());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String e = entry.replace('\\', '/');
            // The engine's jars: third-party jars from the local repository, without Keepsake's modules
            // and without commons-codec (the jar brings a relocated copy).
            if (e.contains("/.m2/repository/") && !e.contains("/io/keepsake/") && !e.contains("/commons-codec/")
                    && !e.contains("/org/junit/") && !e.contains("/org/assertj/")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    private static Object discover(ClassLoader engine) throws Exception {
        Class<?> factoryType = engine.loadClass("org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory");
        Object factory = engine.loadClass("org.apache.seatunnel.engine.common.utils.FactoryUtil")
                .getMethod("discoverFactory", ClassLoader.class, Class.class, String.class)
                .invoke(null, engine, factoryType, "keepsake");
        assertThat(factory.getClass().getProtectionDomain().getCodeSource().getLocation().getPath())
                .endsWith("keepsake-seatunnel.jar");
        return factory;
    }

    private static Object state(Class<?> stateType, byte[] states) throws Exception {
        Object builder = stateType.getMethod("builder").invoke(null);
        builder = builder.getClass().getMethod("jobId", String.class).invoke(builder, "42");
        builder = builder.getClass().getMethod("pipelineId", int.class).invoke(builder, 1);
        builder = builder.getClass().getMethod("checkpointId", long.class).invoke(builder, 7L);
        builder = builder.getClass().getMethod("states", byte[].class).invoke(builder, (Object) states);
        return builder.getClass().getMethod("build").invoke(builder);
    }

    @Test
    void jarWorksBesideOnlyTheEnginesJars(@TempDir Path dir) throws Exception {
        inEngine(engine -> {
            Object factory = discover(engine);
            assertThat(engine.loadClass("org.slf4j.LoggerFactory").getMethod("getILoggerFactory").invoke(null)
                    .getClass().getName()).as("Keepsake logs through the engine's slf4j 1.7 binding")
                    .startsWith("org.apache.logging.slf4j");

            for (Map<String, String> config : List.of(
                    Map.of("namespace", dir.resolve("local").toString()),
                    Map.of("namespace", dir.resolve("hdfs").toString(), "storage.type", "hdfs", "fs.defaultFS", "file:///"))) {
                assertThat(storeCleanUpAndRestore(engine, factory, config)).isEqualTo(savepoint());
                assertThat(Path.of(config.get("namespace"), "savepoint", "42",
                        KeepsakeCheckpointStorage.savepointId(7, 1), "_metadata.ser")).isRegularFile();
            }
        });
    }

    /** What a test does inside the engine's class loader. */
    @FunctionalInterface
    private interface InEngine {
        void run(URLClassLoader engine) throws Exception;
    }

    /**
     * Runs {@code test} with a class loader of the engine's jars and the plugin jar
     * ({@link #engineWithPluginJar}) as the thread's context class loader, as the engine runs the
     * plugin; restores the previous one and closes the loader after.
     */
    private static void inEngine(InEngine test) throws Exception {
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader engine = engineWithPluginJar()) {
            Thread.currentThread().setContextClassLoader(engine);
            test.run(engine);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** The state of checkpoint 7 of job 42's pipeline 1, a savepoint, as the engine hands it to the storage. */
    private static byte[] savepoint() {
        return LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(42L, 1, 7L, 1L,
                CheckpointType.SAVEPOINT_TYPE, 2L, Map.of(), Map.of()));
    }

    /**
     * Through the engine's SPI, as the engine calls it: creates a storage with {@code config},
     * stores {@link #savepoint} (job 42, pipeline 1), deletes the job's checkpoints as terminal
     * cleanup does, and returns the state a restore then reads.
     */
    private static byte[] storeCleanUpAndRestore(ClassLoader engine, Object factory, Map<String, String> config)
            throws Exception {
        Class<?> factoryType = engine.loadClass("org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory");
        Object storage = factoryType.getMethod("create", Map.class).invoke(factory, config);
        Class<?> stateType = engine.loadClass("org.apache.seatunnel.engine.checkpoint.storage.PipelineState");
        storage.getClass().getMethod("storeCheckPoint", stateType).invoke(storage, state(stateType, savepoint()));
        storage.getClass().getMethod("deleteCheckpoint", String.class).invoke(storage, "42");
        Object latest = storage.getClass().getMethod("getLatestCheckpointByJobIdAndPipelineId", String.class,
                String.class).invoke(storage, "42", "1");
        return (byte[]) stateType.getMethod("getStates").invoke(latest);
    }

    /** The relocated package an entry below io/keepsake/shaded/ belongs to, or "" for the folders above them. */
    private static String shadedPackage(String name) {
        for (String k : SHADED) {
            if (name.startsWith(k + "/")) {
                return k;
            }
        }
        return SHADED.stream().anyMatch(k -> (k + "/").startsWith(name)) ? "" : name;
    }

    private static String read(JarFile jar, String name) throws Exception {
        ZipEntry entry = jar.getEntry(name);
        assertThat(entry).as(name).isNotNull();
        return new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
    }
}
