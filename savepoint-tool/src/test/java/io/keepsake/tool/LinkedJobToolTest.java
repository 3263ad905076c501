package io.keepsake.tool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Through the operator tool: a job directory that is a link is never deleted through. */
class LinkedJobToolTest {

    @TempDir
    Path temp;

    @Test
    void deleteThroughALinkedJobFailsAndLeavesTheTargetAlone() throws Exception {
        Path namespace = temp.resolve("ns");
        ToolRun.savepoint(namespace, 1);
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere").resolve("important-project"));
        Files.write(elsewhere.resolve("_metadata.ser"), new byte[] {1});
        Files.write(elsewhere.resolve("thesis.txt"), new byte[] {2});
        Files.createSymbolicLink(namespace.resolve("savepoint").resolve("evil"), elsewhere.getParent());

        ToolRun.Result one = ToolRun.run("delete", "--yes", "--namespace", namespace.toString(), "evil",
                "important-project");
        ToolRun.Result all = ToolRun.run("delete", "--yes", "--all", "--namespace", namespace.toString(), "evil");
        ToolRun.Result list = ToolRun.run("list", "--namespace", namespace.toString());

        assertThat(one.exitCode()).as(one.err()).isNotZero();
        assertThat(one.err()).contains("symbolic link");
        assertThat(all.exitCode()).as(all.err()).isNotZero();
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out()).contains(ToolRun.JOB);
        assertThat(elsewhere.resolve("_metadata.ser")).exists();
        assertThat(elsewhere.resolve("thesis.txt")).exists();
    }
}
