package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
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
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shaded jar as an operator drops it into SeaTunnel's {@code lib/}: it holds Keepsake and
 * nothing the engine ships, and it works in a class loader that sees only the engine's jars and it.
 */
class PluginJarIT {

    private static final Path JAR = Path.of(System.getProperty("keepsake.plugin.jar", "target/keepsake-seatunnel.jar"));

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
                    .contains("io.keepsake.storage.s3.S3StorageFactory");
        }
        assertThat(names).contains("io/keepsake/seatunnel/KeepsakeCheckpointStorage.class",
                "io/keepsake/storage/internal/ComposedStorage.class", "io/keepsake/wire/LegacyCheckpointCodec.class",
                "io/keepsake/reader/SavepointReaderRegistry.class", "io/keepsake/storage/hdfs/HdfsFileSystem.class");
        // Keepsake's classes, and the AWS SDK v2 the S3 backend runs on (SeaTunnel 2.3.8 ships none).
        assertThat(names).filteredOn(n -> n.endsWith(".class"))
                .allSatisfy(n -> assertThat(n).matches("(io/keepsake/|software/amazon/|org/reactivestreams/|org/apache/hc/).*"));
        assertThat(names).noneMatch(n -> n.startsWith("org/slf4j") || n.startsWith("io/protostuff")
                || n.startsWith("org/apache/hadoop") || n.startsWith("com/google") || n.startsWith("org/apache/logging")
                || n.startsWith("org/apache/seatunnel") || n.contains("SLF4JServiceProvider")
                || n.equals("META-INF/services/org.apache.hadoop.fs.FileSystem"));
    }

    @Test
    void jarWorksBesideOnlyTheEnginesJars(@TempDir Path dir) throws Exception {
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
        byte[] savepoint = LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(42L, 1, 7L, 1L,
                CheckpointType.SAVEPOINT_TYPE, 2L, Map.of(), Map.of()));
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader engine = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(engine);
            Class<?> factoryType = engine.loadClass("org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory");
            Object factory = engine.loadClass("org.apache.seatunnel.engine.common.utils.FactoryUtil")
                    .getMethod("discoverFactory", ClassLoader.class, Class.class, String.class)
                    .invoke(null, engine, factoryType, "keepsake");
            assertThat(factory.getClass().getProtectionDomain().getCodeSource().getLocation().getPath())
                    .endsWith("keepsake-seatunnel.jar");
            assertThat(engine.loadClass("org.slf4j.LoggerFactory").getMethod("getILoggerFactory").invoke(null)
                    .getClass().getName()).as("Keepsake logs through the engine's slf4j 1.7 binding")
                    .startsWith("org.apache.logging.slf4j");

            for (Map<String, String> config : List.of(
                    Map.of("namespace", dir.resolve("local").toString()),
                    Map.of("namespace", dir.resolve("hdfs").toString(), "storage.type", "hdfs", "fs.defaultFS", "file:///"))) {
                Object storage = factoryType.getMethod("create", Map.class).invoke(factory, config);
                Class<?> stateType = engine.loadClass("org.apache.seatunnel.engine.checkpoint.storage.PipelineState");
                Object builder = stateType.getMethod("builder").invoke(null);
                builder = builder.getClass().getMethod("jobId", String.class).invoke(builder, "42");
                builder = builder.getClass().getMethod("pipelineId", int.class).invoke(builder, 1);
                builder = builder.getClass().getMethod("checkpointId", long.class).invoke(builder, 7L);
                builder = builder.getClass().getMethod("states", byte[].class).invoke(builder, (Object) savepoint);
                Object state = builder.getClass().getMethod("build").invoke(builder);
                storage.getClass().getMethod("storeCheckPoint", stateType).invoke(storage, state);
                storage.getClass().getMethod("deleteCheckpoint", String.class).invoke(storage, "42");
                Object latest = storage.getClass().getMethod("getLatestCheckpointByJobIdAndPipelineId", String.class,
                        String.class).invoke(storage, "42", "1");
                assertThat((byte[]) stateType.getMethod("getStates").invoke(latest)).isEqualTo(savepoint);
                assertThat(Path.of(config.get("namespace"), "savepoint", "42",
                        KeepsakeCheckpointStorage.savepointId(7, 1), "_metadata.ser")).isRegularFile();
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static String read(JarFile jar, String name) throws Exception {
        ZipEntry entry = jar.getEntry(name);
        assertThat(entry).as(name).isNotNull();
        return new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
    }
}
