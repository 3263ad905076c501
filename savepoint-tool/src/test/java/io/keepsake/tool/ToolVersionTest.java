package io.keepsake.tool;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake --version} names the tool once and prints the version the build gave it. */
class ToolVersionTest {

    @Test
    void versionIsTheProjectVersionFromTheBuild() {
        String projectVersion = System.getProperty("keepsake.project.version");
        assertThat(projectVersion).as("set by the surefire configuration of savepoint-tool/pom.xml").isNotBlank();

        ToolRun.Result r = ToolRun.run("--version");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).isEqualTo("keepsake " + projectVersion + " (savepoint format version "
                + io.keepsake.storage.Versions.CURRENT_FORMAT_VERSION + ")\n");
        assertThat(r.out()).doesNotContain("keepsake-");
        assertThat(ToolRun.run("verify", "--version").out()).as("a command's -V").isEqualTo(r.out());
    }
}
