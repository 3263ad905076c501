package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.Versions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Global options, backend selection, usage errors and the exit code of each error type. */
class KeepsakeCliTest {

    /** Stands for the test's directory in the arguments of {@link #refusals}. */
    private static final String TEMP = "<temp>";

    @TempDir
    Path temp;

    /** One refused command line: its arguments and what its stderr names. */
    private record Refusal(String name, List<String> args, List<String> stderr) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Refusal> refusals() {
        return Stream.of(
                new Refusal("an unknown backend lists the backends found",
                        List.of("list", "--backend", "s3-nope", "--namespace", TEMP),
                        List.of("Cannot find checkpoint storage 's3-nope'", "localfile", "hdfs")),
                new Refusal("a backend without the savepoint capability",
                        List.of("list", "--backend", "legacyonly", "--namespace", TEMP),
                        List.of("backend 'legacyonly'", "no savepoint capability")),
                new Refusal("a missing namespace", List.of("list"), List.of("--namespace")),
                new Refusal("an extra key the factory does not know",
                        List.of("list", "--namespace", TEMP, "-D", "fs.defaultFS=hdfs://nn:8020"),
                        List.of("unknown key(s) [fs.defaultFS]")),
                new Refusal("an unreadable config file", List.of("list", "--config", TEMP + "/missing.properties"),
                        List.of("Cannot read --config file", "missing.properties")),
                new Refusal("no subcommand names every command", List.of(),
                        List.of("name a command", "list", "inspect", "verify", "delete", "gc", "migrate",
                                "prepare-restore", "demo", "keepsake --help")),
                new Refusal("an unknown option", List.of("list", "--namespace", TEMP, "--colour"),
                        List.of("--colour", "keepsake list --help")),
                new Refusal("an invalid job id", List.of("inspect", "--namespace", TEMP, "..", "sp-1"),
                        List.of("Cannot accept job id")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aRefusedCommandLineExitsTwoNamingWhatWasRefusedOnStderrOnly(Refusal refusal) {
        String[] args = refusal.args().stream().map(a -> a.replace(TEMP, temp.toString())).toArray(String[]::new);

        ToolRun.Result r = ToolRun.run(args);

        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains(refusal.stderr());
        assertThat(r.out()).isEmpty();
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
    void versionNamesTheFormatVersion() {
        ToolRun.Result r = ToolRun.run("--version");

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("format version " + Versions.CURRENT_FORMAT_VERSION).doesNotContain("keepsake-0.1.0");
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
