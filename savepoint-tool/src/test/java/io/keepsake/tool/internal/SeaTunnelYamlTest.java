package io.keepsake.tool.internal;

import io.keepsake.tool.ToolUsageException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SeaTunnelYamlTest {

    @Test
    void readsTypeAndPluginConfigWithQuotesCommentsAndDottedKeys() {
        String yaml = """
                seatunnel:
                  engine:
                    checkpoint:
                      interval: 300000 # five minutes
                      storage:
                        type: hdfs
                        max-retained: 3
                        plugin-config:
                          namespace: '/tmp/seatunnel/checkpoint_snapshot'
                          storage.type: "hdfs"
                          fs.defaultFS: hdfs://nn:9000  # the NameNode
                          seatunnel.hadoop.dfs.replication: 2
                    map:
                      - item: 1
                        nested: 2
                      - plain
                    script: |
                      anything: here
                      - or here
                """;

        SeaTunnelYaml.StorageSection s = SeaTunnelYaml.storageSection(yaml, "test.yaml");

        assertThat(s.type()).isEqualTo("hdfs");
        assertThat(s.pluginConfig()).isEqualTo(Map.of("namespace", "/tmp/seatunnel/checkpoint_snapshot",
                "storage.type", "hdfs", "fs.defaultFS", "hdfs://nn:9000", "seatunnel.hadoop.dfs.replication", "2"));
    }

    @Test
    void readsSeaTunnelsStockBlockWithItsTrailingComment() {
        String stock = io.keepsake.tool.StockYaml.read();

        SeaTunnelYaml.StorageSection section = SeaTunnelYaml.storageSection(stock, "seatunnel.yaml");

        assertThat(section.type()).isEqualTo("hdfs");
        assertThat(section.pluginConfig()).isEqualTo(Map.of("namespace", "/tmp/seatunnel/checkpoint_snapshot",
                "storage.type", "hdfs", "fs.defaultFS", "file:///tmp/"));
    }

    @Test
    void refusesTabsAndLinesThatAreNotMappings() {
        assertThatThrownBy(() -> SeaTunnelYaml.parse("a:\n\tb: 1\n", "t.yaml"))
                .isInstanceOf(ToolUsageException.class).hasMessageContaining("tab").hasMessageContaining("line 2");
        assertThatThrownBy(() -> SeaTunnelYaml.parse("a:\n  just text\n", "t.yaml"))
                .isInstanceOf(ToolUsageException.class).hasMessageContaining("line 2");
    }

    @Test
    void aMissingTypeIsNamed() {
        assertThatThrownBy(() -> SeaTunnelYaml.storageSection(
                "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        plugin-config:\n          namespace: /x\n",
                "t.yaml")).isInstanceOf(ToolUsageException.class)
                .hasMessageContaining("seatunnel.engine.checkpoint.storage.type");
    }
}
