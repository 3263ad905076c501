package io.keepsake.tool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two packaged CLIs: {@code keepsake.jar} with the HDFS backend and its Hadoop client, and
 * the small {@code keepsake-local.jar} without them. Each is run as an operator runs it.
 */
class CliJarsIT {

    private static final Path DIR = Path.of(System.getProperty("keepsake.cli.dir", "target"));
    private static final Path FULL = DIR.resolve("keepsake.jar");
    private static final Path LOCAL = DIR.resolve("keepsake-local.jar");

    @TempDir
    Path temp;

    private record Run(int exitCode, String out, String err) {
    }

    private Run run(Path jar, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString()));
        command.addAll(List.of(args));
        Path out = temp.resolve("out.txt");
        Path err = temp.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static List<String> entries(Path jar) throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            return f.stream().map(ZipEntry::getName).toList();
        }
    }

    @Test
    void theSmallJarHasNoHadoopAndRunsTheDemo() throws Exception {
        List<String> names = entries(LOCAL);
        assertThat(names).contains("io/keepsake/tool/KeepsakeCli.class",
                "io/keepsake/storage/localfile/LocalFileStorageFactory.class");
        assertThat(names).noneMatch(n -> n.startsWith("org/apache/hadoop") || n.startsWith("io/keepsake/storage/hdfs/")
                || n.startsWith("io/keepsake/storage/s3/") || n.startsWith("software/amazon/awssdk/"));
        assertThat(Files.size(LOCAL)).isLessThan(Files.size(FULL) / 5);

        Run demo = run(LOCAL, "demo");
        assertThat(demo.exitCode()).as(demo.err()).isZero();
        assertThat(demo.out()).contains("checks passed");

        // Nothing puts a keepsake command on the PATH: the kept demo's hint names the jar that ran it.
        Run keep = run(LOCAL, "demo", "--keep", "--work-dir", temp.resolve("kept").toString());
        assertThat(keep.exitCode()).as(keep.err()).isZero();
        assertThat(keep.out()).contains("; try: java -jar " + LOCAL.toAbsolutePath() + " list --namespace ");
    }

    @Test
    void bothJarsPrintTheVersionTheirManifestCarries() throws Exception {
        for (Path jar : List.of(FULL, LOCAL)) {
            String version;
            try (JarFile f = new JarFile(jar.toFile())) {
                version = f.getManifest().getMainAttributes().getValue("Implementation-Version");
            }
            Run r = run(jar, "--version");
            assertThat(r.exitCode()).as(r.err()).isZero();
            assertThat(r.out()).as("%s", jar).isEqualTo("keepsake " + version + " (savepoint format version "
                    + io.keepsake.storage.Versions.CURRENT_FORMAT_VERSION + ")"
                    + System.lineSeparator());
        }
    }

    @Test
    void theSmallJarRefusesHdfsAndS3NamingTheJarThatHasThem() throws Exception {
        Run hdfs = run(LOCAL, "list", "--backend", "hdfs", "--namespace", temp.resolve("ns").toString());
        Run s3 = run(LOCAL, "verify", "s3://bucket/ns/savepoint/700000000000000123/sp-1");
        Run help = run(LOCAL, "inspect", "--help");

        assertThat(hdfs.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(hdfs.err()).contains("Cannot open hdfs storage", "keepsake-local.jar has only the local-file backend"
                + " [localfile]", "run keepsake.jar instead");
        assertThat(s3.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(s3.err()).contains("Cannot open s3 storage", "run keepsake.jar instead").doesNotContain("classpath");
        // picocli may wrap a line inside "wasb[s]://" or after a colon: compare without white space
        assertThat(help.out().replaceAll("\\s+", "")).contains("hdfs://,s3://,s3a://,azure://,abfs[s]://and"
                + "wasb[s]://inkeepsake.jar", "hdfs,s3andazureinkeepsake.jar");
    }

    @Test
    void theFullJarRunsHdfsAndSilencesHadoopsNativeLibraryWarningUnlessVerbose() throws Exception {
        assertThat(entries(FULL)).contains("io/keepsake/storage/s3/S3StorageFactory.class");
        assertThat(entries(FULL)).contains("io/keepsake/storage/hdfs/HdfsStorageFactory.class",
                "org/apache/hadoop/fs/FileSystem.class");
        // list reads only: it creates no root, so the namespace must exist
        String namespace = java.nio.file.Files.createDirectories(temp.resolve("hdfs-ns")).toUri().toString();

        Run quiet = run(FULL, "list", "--backend", "hdfs", "--namespace", namespace, "-D", "storage.type=local");
        assertThat(quiet.exitCode()).as(quiet.err()).isZero();
        assertThat(quiet.out()).contains("No savepoints");
        assertThat(quiet.err()).doesNotContain("NativeCodeLoader");

        // The same command with -v shows the warning, so the quiet run above did silence something.
        Run verbose = run(FULL, "list", "-v", "--backend", "hdfs", "--namespace", namespace, "-D", "storage.type=local");
        assertThat(verbose.exitCode()).as(verbose.err()).isZero();
        assertThat(verbose.err()).contains("NativeCodeLoader");
    }

    /** A damaged savepoint under its own namespace: the byte at 20 of its {@code _metadata.ser} flipped. */
    private io.keepsake.storage.SavepointHandle damagedSavepoint(String name) throws Exception {
        io.keepsake.storage.SavepointHandle sp = ToolRun.savepoint(temp.resolve(name), 5);
        ListInspectVerifyTest.flipByte(Path.of(sp.location(), "_metadata.ser"), 20);
        return sp;
    }

    @Test
    void libraryWarningsShowOnlyWithVerboseWhileTheToolStillReportsTheDamage() throws Exception {
        io.keepsake.storage.SavepointHandle listed = damagedSavepoint("listed");
        io.keepsake.storage.SavepointHandle quietOne = damagedSavepoint("quiet");
        io.keepsake.storage.SavepointHandle verboseOne = damagedSavepoint("verbose");

        Run list = run(LOCAL, "list", "--namespace", temp.resolve("listed").toString());
        assertThat(list.exitCode()).as(list.err()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(list.out()).contains("corrupted: ", listed.savepointId());
        assertThat(list.err()).doesNotContain(" WARN ", " INFO ");

        // Deleting a savepoint whose metadata does not verify: the library warns, the tool says it itself.
        Run quiet = run(LOCAL, "delete", "--yes", "--namespace", temp.resolve("quiet").toString(), ToolRun.JOB,
                quietOne.savepointId());
        Run verbose = run(LOCAL, "delete", "--yes", "-v", "--namespace", temp.resolve("verbose").toString(), ToolRun.JOB,
                verboseOne.savepointId());

        assertThat(quiet.exitCode()).as(quiet.err()).isZero();
        assertThat(quiet.out()).contains("Deleted unreadable savepoint " + quietOne.savepointId());
        assertThat(quiet.err()).as("no library line without -v").doesNotContain(" WARN ", " INFO ");
        assertThat(verbose.exitCode()).as(verbose.err()).isZero();
        assertThat(verbose.out()).contains("Deleted unreadable savepoint " + verboseOne.savepointId());
        assertThat(verbose.err()).as("-v shows the library's lines").contains(" WARN ", "whose metadata does not verify");
    }
}
