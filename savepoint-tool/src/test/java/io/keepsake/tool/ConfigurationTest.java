package io.keepsake.tool;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Item 11: SeaTunnel's seatunnel.yaml, backend aliases, durations as typed, HDFS on file://. */
class ConfigurationTest {

    @TempDir
    Path temp;

    private Path seatunnelYaml(Path namespace) throws Exception {
        String text;
        try (InputStream in = ConfigurationTest.class.getResourceAsStream("/seatunnel.yaml")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path file = temp.resolve("seatunnel.yaml");
        Files.writeString(file, text.replace("${NAMESPACE}", namespace.toString()));
        return file;
    }

    @Test
    void readsTheCheckpointStorageSectionOfSeaTunnelsYaml() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);

        ToolRun.Result r = ToolRun.run("list", "--config", seatunnelYaml(ns).toString());

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

    @Test
    void aYamlWithoutTheSectionNamesWhatIsMissing() throws Exception {
        Path file = temp.resolve("other.yaml");
        Files.writeString(file, "seatunnel:\n  engine:\n    backup-count: 1\n");

        ToolRun.Result r = ToolRun.run("list", "--config", file.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("seatunnel.engine.checkpoint.storage", "seatunnel.engine.checkpoint", file.toString());
    }
}
