package io.keepsake.tool;

import io.keepsake.tool.internal.Durations;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An age no clock can subtract is a usage error (exit 2), not a failure (exit 1). */
class GcAgeBoundTest {

    @TempDir
    Path temp;

    /** Holds one savepoint, so gc has something it could remove. */
    private Path namespace;

    @BeforeEach
    void oneSavepoint() throws Exception {
        namespace = temp.resolve("ns");
        ToolRun.savepoint(namespace, 1);
    }

    @Test
    void gcOlderThanAnAbsurdAgeExitsWithUsage() throws Exception {
        for (String age : new String[] {"999999999999d", "PT2562047788015215H", "P99999999999D"}) {
            ToolRun.Result r = ToolRun.run("gc", "--older-than", age, "--namespace", namespace.toString());
            assertThat(r.exitCode()).as(age + ": " + r.err()).isEqualTo(ExitCodes.USAGE);
            assertThat(r.err()).contains("--older-than", age);
            ToolRun.Result dry = ToolRun.run("gc", "--dry-run", "--older-than", age, "--namespace", namespace.toString());
            assertThat(dry.exitCode()).as(age + " --dry-run: " + dry.err()).isEqualTo(ExitCodes.USAGE);
        }
    }

    @Test
    void theLongestAcceptedAgeStillWorks() throws Exception {
        assertThat(Durations.parse("3660000d")).isEqualTo(Durations.MAX);
        assertThatThrownBy(() -> Durations.parse("3660001d")).hasMessageContaining("10000 years");
        ToolRun.Result r = ToolRun.run("gc", "--older-than", "3660000d", "--namespace", namespace.toString());
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
    }
}
