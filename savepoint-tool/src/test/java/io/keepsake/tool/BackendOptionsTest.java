package io.keepsake.tool;

import io.keepsake.tool.internal.SavepointPath;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How the backend and its map are chosen from flags, the config file and a savepoint path. */
class BackendOptionsTest {

    @Test
    void anHdfsPathSelectsTheHadoopBackendAndItsAddress() {
        BackendOptions options = new BackendOptions();

        BackendOptions.Resolved r = options.resolve(true,
                SavepointPath.parse("hdfs://nn:8020/st/checkpoint/savepoint/700/sp-1"));

        assertThat(r.backend()).isEqualTo("hdfs");
        assertThat(r.configuration()).containsEntry("fs.defaultFS", "hdfs://nn:8020")
                .containsEntry("namespace", "hdfs://nn:8020/st/checkpoint")
                .containsEntry("savepoint.path", "hdfs://nn:8020/st/checkpoint/savepoint")
                .containsEntry("create-roots", "false").doesNotContainKey("storage.type");
    }

    @Test
    void anS3PathSelectsTheS3BackendWithItsRootsAsTheyAre() {
        BackendOptions.Resolved r = new BackendOptions().resolve(true,
                SavepointPath.parse("s3a://bucket/st/checkpoint/savepoint/700/sp-1"));

        assertThat(r.backend()).isEqualTo("s3");
        assertThat(r.configuration()).containsEntry("namespace", "s3a://bucket/st/checkpoint")
                .containsEntry("savepoint.path", "s3a://bucket/st/checkpoint/savepoint")
                .doesNotContainKey("fs.defaultFS").doesNotContainKey("storage.type");
    }

    @Test
    void anS3NamespaceSelectsTheS3Backend() {
        BackendOptions options = new BackendOptions();
        options.namespace = "s3a://bucket/ns";

        assertThat(options.resolve(true, null).backend()).isEqualTo("s3");
        options.namespace = "/data/ns";
        assertThat(options.resolve(true, null).backend()).isEqualTo("localfile");
    }

    @Test
    void anHdfsNamespaceSelectsTheHadoopBackendWithItsAddressAndHdfsNeedsNoSeparateAddress() {
        BackendOptions options = new BackendOptions();
        options.namespace = "hdfs://nn:8020/st/checkpoint";

        BackendOptions.Resolved chosen = options.resolve(true, null);
        options.backend = "hdfs";
        options.namespace = "hdfs://nn/x";
        BackendOptions.Resolved given = options.resolve(true, null);
        options.extra.put("fs.defaultFS", "hdfs://other:9000");
        BackendOptions.Resolved explicit = options.resolve(true, null);

        assertThat(chosen.backend()).isEqualTo("hdfs");
        assertThat(chosen.configuration()).containsEntry("fs.defaultFS", "hdfs://nn:8020")
                .containsEntry("namespace", "hdfs://nn:8020/st/checkpoint").doesNotContainKey("storage.type");
        assertThat(given.configuration()).containsEntry("fs.defaultFS", "hdfs://nn");
        assertThat(explicit.configuration()).as("an address given is kept").containsEntry("fs.defaultFS",
                "hdfs://other:9000");
    }

    @Test
    void anObjectStorePathOnTheHadoopBackendAlsoNamesItsStorageType() {
        BackendOptions options = new BackendOptions();
        options.backend = "hdfs";
        BackendOptions.Resolved r = options.resolve(true,
                SavepointPath.parse("s3a://bucket/st/checkpoint/savepoint/700/sp-1"));

        assertThat(r.backend()).isEqualTo("hdfs");
        assertThat(r.configuration()).containsEntry("storage.type", "s3a").containsEntry("fs.defaultFS", "s3a://bucket");
        BackendOptions.Resolved oss = new BackendOptions().resolve(true,
                SavepointPath.parse("oss://bucket/st/checkpoint/savepoint/700/sp-1"));
        assertThat(oss.backend()).isEqualTo("hdfs");
        assertThat(oss.configuration()).containsEntry("storage.type", "oss");
    }

    @Test
    void writingCommandsDoNotAskForReadOnly() {
        BackendOptions options = new BackendOptions();
        options.namespace = "/data/ns";

        assertThat(options.resolve(false, null).configuration()).isEqualTo(Map.of("namespace", "/data/ns"));
    }

    /** {@code -D create-roots=true} on a command that creates nothing is refused, not overridden. */
    @Test
    void aCreateRootsFlagAskingForMoreThanTheCommandDoesIsRefused() {
        BackendOptions options = new BackendOptions();
        options.namespace = "/data/ns";
        options.extra.put("create-roots", "true");

        assertThatThrownBy(() -> options.resolve(true, null)).isInstanceOf(ToolUsageException.class)
                .hasMessageContaining("-D create-roots=true").hasMessageContaining("migrate")
                .hasMessageContaining("drop the -D create-roots option");
        assertThat(options.resolve(false, null).configuration()).containsEntry("create-roots", "true");

        options.extra.put("create-roots", "FALSE");
        assertThat(options.resolve(true, null).configuration()).containsEntry("create-roots", "false");
        assertThat(options.resolve(false, null).configuration()).containsEntry("create-roots", "FALSE");
    }

    @Test
    void keepsakesSeaTunnelPluginTypeChoosesLikeThePlugin() {
        assertThat(BackendOptions.backendOfSeaTunnelType("keepsake", Map.of("storage.type", "local")))
                .isEqualTo("localfile");
        assertThat(BackendOptions.backendOfSeaTunnelType("keepsake", Map.of("fs.defaultFS", "hdfs://nn:8020")))
                .isEqualTo("hdfs");
        assertThat(BackendOptions.backendOfSeaTunnelType("keepsake", Map.of())).isEqualTo("localfile");
        assertThat(BackendOptions.backendOfSeaTunnelType("hdfs", Map.of())).isEqualTo("hdfs");
        assertThat(BackendOptions.backendOfSeaTunnelType("hdfs", Map.of("storage.type", "s3"))).isEqualTo("s3");
        assertThat(BackendOptions.backendOfSeaTunnelType("keepsake", Map.of("storage.type", "s3a"))).isEqualTo("s3");
        assertThat(BackendOptions.canonical("Local")).isEqualTo("localfile");
        assertThat(BackendOptions.backendOfSeaTunnelType("keepsake", Map.of("storage.type", "File")))
                .isEqualTo("localfile");
    }
}
