package io.keepsake.tool;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** SeaTunnel's seatunnel.yaml, backend aliases, durations as typed, HDFS on file://. */
class ConfigurationTest {

    @TempDir
    Path temp;

    /** The test resource seatunnel.yaml with its storage section's namespace set to {@code namespace}. */
    private static String seatunnelYaml(Path namespace) throws Exception {
        try (InputStream in = ConfigurationTest.class.getResourceAsStream("/seatunnel.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${NAMESPACE}", namespace.toString());
        }
    }

    /** Writes {@code text} to the file {@code name} in the test's directory and runs {@code keepsake list --config} on it. */
    private ToolRun.Result listWithConfig(String name, String text) throws Exception {
        Path file = Files.writeString(temp.resolve(name), text);
        return ToolRun.run("list", "--config", file.toString());
    }

    @Test
    void readsTheCheckpointStorageSectionOfSeaTunnelsYaml() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);

        ToolRun.Result r = listWithConfig("seatunnel.yaml", seatunnelYaml(ns));

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains(sp.savepointId(), "ok");
    }

    @Test
    void localIsAnAliasOfLocalfile() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);

        ToolRun.Result r = ToolRun.run("list", "--backend", "local", "--namespace", ns.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains(sp.savepointId());
    }

    @Test
    void theHadoopBackendOnAFileUriNeedsNoStorageType() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);

        ToolRun.Result r = ToolRun.run("list", "--backend", "hdfs", "--namespace", ns.toUri().toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains(sp.savepointId());
    }

    @Test
    void theHadoopBackendCreatesNothingWhenReadingEither() {
        Path missing = temp.resolve("missing").resolve("ns");

        ToolRun.Result r = ToolRun.run("list", "--backend", "hdfs", "--namespace", missing.toUri().toString());

        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(temp.resolve("missing")).doesNotExist();
    }

    @Test
    void gcAcceptsZeroAndPrintsTheAgeAsTyped() throws Exception {
        Path ns = temp.resolve("ns");
        ToolRun.savepoint(ns, 6);

        ToolRun.Result zero = ToolRun.run("gc", "--older-than", "0", "--dry-run", "--namespace", ns.toString());
        ToolRun.Result byDefault = ToolRun.run("gc", "--dry-run", "--namespace", ns.toString());
        ToolRun.Result bad = ToolRun.run("gc", "--older-than", "5", "--namespace", ns.toString());

        assertThat(zero.exitCode()).as(zero.err()).isZero();
        assertThat(zero.out()).contains("older than 0 under");
        assertThat(byDefault.out()).contains("older than 1h under").doesNotContain("PT1H");
        assertThat(bad.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(bad.err()).contains("Cannot parse --older-than");
    }

    /**
     * {@code --config} reads only a regular file of at most 1 MiB: a FIFO, a directory or a device
     * is refused without being opened (nothing blocks), a 20 GiB sparse file by its size (no
     * OutOfMemoryError); each is a usage error (exit 2) with one line naming the path, in JSON too.
     */
    @Test
    void aConfigThatIsNotASmallRegularFileIsAUsageErrorNamingIt() throws Exception {
        Path ns = Files.createDirectories(temp.resolve("ns"));
        Path fifo = temp.resolve("fifo.yaml");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).as("mkfifo " + fifo).isZero();
        Path directory = Files.createDirectories(temp.resolve("conf.d"));
        Path sparse = temp.resolve("huge.properties");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(sparse.toFile(), "rw")) {
            f.setLength(20L << 30);
        }
        Path justOver = temp.resolve("over.properties");
        Files.write(justOver, ("namespace=" + ns + "\n" + "#".repeat(1 << 20)).getBytes(StandardCharsets.UTF_8));
        Map<Path, String> cases = new java.util.LinkedHashMap<>();
        cases.put(fifo, "FIFO");
        cases.put(directory, "directory");
        cases.put(Path.of("/dev/null"), "device");
        cases.put(sparse, "1 MiB");
        cases.put(justOver, "1 MiB");
        cases.put(temp.resolve("missing.yaml"), "does not exist");
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
            for (Map.Entry<Path, String> c : cases.entrySet()) {
                ToolRun.Result r = ToolRun.run("list", "--namespace", ns.toString(), "--config", c.getKey().toString());
                assertThat(r.exitCode()).as(c.getKey() + ": " + r.err()).isEqualTo(ExitCodes.USAGE);
                assertThat(r.err().strip()).as(c.getKey().toString()).doesNotContain("\n")
                        .contains("usage error: Cannot read --config file", c.getValue(), c.getKey().toString());
                ToolRun.Result json = ToolRun.run("list", "--json", "--namespace", ns.toString(), "--config",
                        c.getKey().toString());
                assertThat(json.exitCode()).isEqualTo(ExitCodes.USAGE);
                assertThat(json.out()).contains("\"exitCode\": 2", "Cannot read --config file", c.getValue());
            }
        });
    }

    @Test
    void aConfigLinkedToARegularFileIsRead() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);
        Path real = Files.writeString(temp.resolve("real.properties"), "namespace=" + ns + "\n");
        Path link = Files.createSymbolicLink(temp.resolve("keepsake.properties"), real);

        ToolRun.Result r = ToolRun.run("list", "--config", link.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains(sp.savepointId());
    }

    /** The engine section of config/seatunnel.yaml as SeaTunnel 2.3.8 ships it, byte for byte (trailing comment included). */
    static final String SEATUNNEL_2_3_8_STOCK = StockYaml.read();

    @Test
    void seaTunnelsStockYamlIsAcceptedAsItIs() throws Exception {
        ToolRun.Result r = listWithConfig("seatunnel.yaml", SEATUNNEL_2_3_8_STOCK);

        // Read-only: on a machine without /tmp/seatunnel/checkpoint_snapshot that is "not found", never a refused address.
        assertThat(r.exitCode()).as(r.err()).isIn(0, ExitCodes.NOT_FOUND);
        assertThat(r.err()).doesNotContain("malformed").doesNotContain("fs.defaultFS");
        if (r.exitCode() == ExitCodes.NOT_FOUND) {
            assertThat(r.err()).contains("/tmp/seatunnel/checkpoint_snapshot");
        }
    }

    @Test
    void seaTunnelsStockYamlFindsTheSavepointsUnderItsNamespaceNotUnderTheDirectoryOfFsDefaultFs() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);
        ToolRun.Result r = listWithConfig("seatunnel.yaml", SEATUNNEL_2_3_8_STOCK
                .replace("/tmp/seatunnel/checkpoint_snapshot", ns.toString())
                .replace("file:///tmp/", temp.resolve("unused").toUri() + "/"));

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains(sp.savepointId(), "ok");
        assertThat(temp.resolve("unused")).doesNotExist();
    }

    @Test
    void aYamlWithoutTheSectionNamesWhatIsMissing() throws Exception {
        ToolRun.Result r = listWithConfig("other.yaml", "seatunnel:\n  engine:\n    backup-count: 1\n");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("seatunnel.engine.checkpoint.storage", "seatunnel.engine.checkpoint",
                temp.resolve("other.yaml").toString());
    }
}
