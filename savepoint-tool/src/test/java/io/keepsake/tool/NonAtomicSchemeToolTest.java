package io.keepsake.tool;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code hdfs} backend given a file system without atomic rename and exclusive create: the
 * tool prints the backend's refusal and exits 2 (a configuration error), nothing contacted.
 */
class NonAtomicSchemeToolTest {

    @Test
    void aNamespaceOnAnObjectStoreWithTheHdfsBackendExitsTwoWithTheRefusal() {
        ToolRun.Result r = ToolRun.run("list", "--backend", "hdfs", "--namespace", "s3a://bucket/x");

        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("s3a://").contains("namespace=s3a://bucket/x")
                .contains("check-then-act").contains("hdfs.allow-non-atomic-scheme=true");
    }

    @Test
    void aSavepointPathOnOssExitsTwoWithTheRefusalInJsonToo() {
        ToolRun.Result r = ToolRun.run("verify", "--json", "oss://bucket/st/checkpoint/savepoint/700/sp-1");

        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("oss://").contains("hdfs.allow-non-atomic-scheme=true");
        assertThat(r.out()).contains("\"exitCode\": 2").contains("NonAtomicFileSystemException");
    }

    @Test
    void anAbfsAddressGivenAsFsDefaultFsExitsTwoWithTheRefusal() {
        ToolRun.Result r = ToolRun.run("list", "--backend", "hdfs", "-D",
                "fs.defaultFS=abfs://c@a.dfs.core.windows.net", "--namespace", "/x");

        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("abfs://c@a.dfs.core.windows.net").contains("rename is copy-and-delete");
    }
}
