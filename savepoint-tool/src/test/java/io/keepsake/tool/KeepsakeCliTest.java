package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Global options, backend selection, usage errors and the exit code of each error type. */
class KeepsakeCliTest {

    @TempDir
    Path temp;

    @Test
    void anUnknownBackendExitsTwoListingTheBackendsFound() {
        ToolRun.Result r = ToolRun.run("list", "--backend", "s3-nope", "--namespace", temp.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("Cannot find checkpoint storage 's3-nope'", "localfile", "hdfs");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aBackendWithoutTheSavepointCapabilityIsRefused() {
        ToolRun.Result r = ToolRun.run("list", "--backend", "legacyonly", "--namespace", temp.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("backend 'legacyonly'", "no savepoint capability");
    }

    @Test
    void aMissingNamespaceIsAUsageError() {
        ToolRun.Result r = ToolRun.run("list");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--namespace");
    }

    @Test
    void theConfigFileSuppliesKeysAndTheFlagsOverrideIt() throws Exception {
        Path real = temp.resolve("real");
        SavepointHandle sp = ToolRun.savepoint(real, 6);
        Path config = temp.resolve("storage.properties");
        Files.createDirectories(temp.resolve("elsewhere"));
        Files.writeString(config, "namespace=" + temp.resolve("elsewhere") + "\nsavepoint.periodic.max-retained=3\n");

        ToolRun.Result fromFile = ToolRun.run("list", "--config", config.toString());
        ToolRun.Result overridden = ToolRun.run("list", "--config", config.toString(), "--namespace", real.toString());

        assertThat(fromFile.exitCode()).isEqualTo(0);
        assertThat(fromFile.out()).contains("No savepoints under " + temp.resolve("elsewhere"));
        assertThat(overridden.exitCode()).isEqualTo(0);
        assertThat(overridden.out()).contains(sp.savepointId());
    }

    @Test
    void extraKeysGoToTheFactoryWhichRefusesUnknownOnes() {
        ToolRun.Result r = ToolRun.run("list", "--namespace", temp.toString(), "-D", "fs.defaultFS=hdfs://nn:8020");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("unknown key(s) [fs.defaultFS]");
    }

    @Test
    void anUnreadableConfigFileIsAUsageError() {
        ToolRun.Result r = ToolRun.run("list", "--config", temp.resolve("missing.properties").toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("Cannot read --config file", "missing.properties");
    }

    @Test
    void withoutASubcommandItNamesTheCommandsAndExitsTwo() {
        ToolRun.Result r = ToolRun.run();

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("name a command", "list", "inspect", "verify", "delete", "gc", "migrate",
                "prepare-restore", "demo", "keepsake --help");
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        ToolRun.Result r = ToolRun.run("list", "--namespace", temp.toString(), "--colour");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--colour", "keepsake list --help");
    }

    @Test
    void versionNamesTheFormatVersion() {
        ToolRun.Result r = ToolRun.run("--version");

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("format version " + io.keepsake.storage.Versions.CURRENT_FORMAT_VERSION).doesNotContain("keepsake-0.1.0");
    }

    @Test
    void invalidIdsAreUsageErrors() {
        ToolRun.Result r = ToolRun.run("inspect", "--namespace", temp.toString(), "..", "sp-1");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("Cannot accept job id");
    }

    @Test
    void exitCodesFollowTheErrorType() {
        assertThat(ExitCodes.of(new ToolUsageException("x"))).isEqualTo(2);
        assertThat(ExitCodes.of(new InvalidStorageArgumentException("x"))).isEqualTo(2);
        assertThat(ExitCodes.of(new SavepointNotFoundException("x"))).isEqualTo(3);
        assertThat(ExitCodes.of(new SavepointCorruptedException("f", "x", "a", "b"))).isEqualTo(4);
        assertThat(ExitCodes.of(new SavepointIncompatibleException("x", 9, 1, 1))).isEqualTo(5);
        assertThat(ExitCodes.of(new SavepointAlreadyExistsException("x"))).isEqualTo(1);
        assertThat(ExitCodes.of(new SavepointStorageException("x"))).isEqualTo(1);
        assertThat(ExitCodes.of(new CheckpointStorageException("x"))).isEqualTo(1);
        assertThat(ExitCodes.of(new IllegalStateException("x"))).isEqualTo(1);
        assertThat(ExitCodes.label(new SavepointAlreadyExistsException("x"))).isEqualTo("already exists");
        assertThat(ExitCodes.label(new SavepointCorruptedException("f", "x", "a", "b"))).isEqualTo("corrupted");
    }
}
