package io.keepsake.tool;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Progress on stderr only when asked for or attached to a terminal, never on stdout, and not for
 * work known to be small or finished within a second ({@link io.keepsake.tool.internal.Progress}).
 */
class ProgressOutputTest {

    @TempDir
    Path temp;

    @Test
    void verifyIsQuietWhenPipedAndReportsWhenAsked() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);
        long bytes = sp.meta().manifest().stream().mapToLong(e -> e.length()).sum();

        ToolRun.Result piped = ToolRun.run("verify", "--namespace", ns.toString());
        ToolRun.Result always = ToolRun.run("verify", "--progress", "always", "--namespace", ns.toString());
        ToolRun.Result json = ToolRun.run("verify", "--json", "--namespace", ns.toString());

        assertThat(io.keepsake.tool.internal.StderrTerminal.detect()).as("the test JVM's stderr is not a terminal").isFalse();
        assertThat(piped.exitCode()).isZero();
        assertThat(piped.err()).isEmpty();
        assertThat(json.err()).isEmpty();
        assertThat(always.exitCode()).isZero();
        assertThat(bytes).as("a few KiB").isLessThan(io.keepsake.tool.internal.Progress.QUIET_BYTES);
        assertThat(always.err()).as("no progress line for a few KiB, even with --progress always").isEmpty();
        assertThat(always.out()).isEqualTo(piped.out()).doesNotContain("\r");
    }
}
