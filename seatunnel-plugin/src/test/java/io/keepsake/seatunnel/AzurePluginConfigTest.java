package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.azure.AzuritePerClass;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The plugin-config blocks docs/seatunnel.md gives for {@code storage.type: azure}, run through the
 * plugin's factory against Azurite (with {@code azure.endpoint} pointing at it): a savepoint
 * stored through the engine's SPI is read back, and a missing container or a foreign account fail
 * naming what is wrong and never the key.
 */
class AzurePluginConfigTest {

    @RegisterExtension
    static final AzuritePerClass AZURITE = new AzuritePerClass();

    private static final String ACCOUNT = AzuriteServer.ACCOUNT;

    private static String container() throws Exception {
        String container = AzuriteServer.freshContainerName("plugin-config");
        AZURITE.server().createContainer(container);
        return container;
    }

    private static Map<String, String> config(String... pairs) {
        Map<String, String> map = new HashMap<>();
        map.put("azure.endpoint", AZURITE.endpoint().toString());
        map.put("azure.account.name", ACCOUNT);
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Test
    void azurePathAndAccountKeyKeepASavepoint() throws Exception {
        Map<String, String> config = config("storage.type", "azure", "namespace", "azure://" + container() + "/checkpoint",
                "azure.account.key", AzuriteServer.ACCOUNT_KEY);
        assertThat(storeAndRestore(config, "1")).isEqualTo(savepoint("1"));
    }

    @Test
    void hadoopAbfsPathAndKeysKeepASavepoint() throws Exception {
        Map<String, String> config = config("storage.type", "abfs",
                "namespace", "abfss://" + container() + "@" + ACCOUNT + ".dfs.core.windows.net/checkpoint",
                "fs.azure.account.key." + ACCOUNT + ".dfs.core.windows.net", AzuriteServer.ACCOUNT_KEY,
                // a Hadoop abfs block's other keys, kept as they are and not used
                "fs.azure.account.auth.type." + ACCOUNT + ".dfs.core.windows.net", "SharedKey");
        assertThat(storeAndRestore(config, "2")).isEqualTo(savepoint("2"));
    }

    @Test
    void theSavepointRootMayBeInAnotherContainerOfTheAccount() throws Exception {
        String savepoints = container();
        Map<String, String> config = config("storage.type", "wasbs", "namespace", "azure://" + container() + "/checkpoint",
                "savepoint.path", "wasbs://" + savepoints + "@" + ACCOUNT + ".blob.core.windows.net/kept",
                "create-roots", "true", "azure.account.key", AzuriteServer.ACCOUNT_KEY);
        assertThat(storeAndRestore(config, "3")).isEqualTo(savepoint("3"));
    }

    @Test
    void aMissingContainerFailsNamingItAndTheEndpointNeverTheKey() {
        Map<String, String> config = config("storage.type", "azure", "namespace", "azure://no-such-container/checkpoint",
                "azure.account.key", AzuriteServer.ACCOUNT_KEY);
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("on the azure backend")
                .hasMessageContaining("no-such-container").hasMessageContaining(AZURITE.endpoint().toString())
                .hasMessageNotContaining(AzuriteServer.ACCOUNT_KEY);
    }

    @Test
    void aPathOfAnotherAccountFailsNamingThePath() {
        String path = "abfss://seatunnel@otheraccount.dfs.core.windows.net/checkpoint";
        Map<String, String> config = config("storage.type", "abfss", "namespace", path,
                "azure.account.key", AzuriteServer.ACCOUNT_KEY);
        assertThatThrownBy(() -> new KeepsakeCheckpointStorageFactory().create(config))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining(path)
                .hasMessageContaining("otheraccount").hasMessageNotContaining(AzuriteServer.ACCOUNT_KEY);
    }

    private static byte[] savepoint(String jobId) {
        return LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(Long.parseLong(jobId), 1, 7L, 1L,
                CheckpointType.SAVEPOINT_TYPE, 2L, Map.of(), Map.of()));
    }

    /**
     * Through the engine's SPI: stores {@link #savepoint} of job {@code jobId}, deletes the job's
     * checkpoints as terminal cleanup does, and returns the state a restore then reads.
     */
    private static byte[] storeAndRestore(Map<String, String> config, String jobId) throws Exception {
        CheckpointStorage storage = new KeepsakeCheckpointStorageFactory().create(config);
        storage.storeCheckPoint(PipelineState.builder().jobId(jobId).pipelineId(1).checkpointId(7L)
                .states(savepoint(jobId)).build());
        storage.deleteCheckpoint(jobId);
        return storage.getLatestCheckpointByJobIdAndPipelineId(jobId, "1").getStates();
    }
}
