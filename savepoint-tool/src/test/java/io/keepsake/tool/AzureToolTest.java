package io.keepsake.tool;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.azure.AzuritePerClass;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tool on the {@code azure} backend against Azurite: a savepoint path or namespace on Azure
 * selects the backend by its scheme, with the account and key given as {@code -D} keys, and the
 * commands read what the engine's storage wrote there.
 */
class AzureToolTest {

    @RegisterExtension
    static final AzuritePerClass azurite = new AzuritePerClass();

    /** Commits a savepoint of pipelines 1 and 2 through the {@code azure} factory, as the engine's storage does. */
    private static SavepointHandle savepoint(String namespace) throws Exception {
        try (CheckpointStorage storage = CheckpointStorageFactories.find("azure")
                .create(azurite.factoryKeys(namespace))) {
            List<Integer> pipelines = List.of(1, 2);
            try (SavepointSaveSession session = SavepointSaveSession.builder((SavepointStorage) storage, ToolRun.JOB,
                    pipelines).open()) {
                for (CompletedCheckpoint cp : ToolRun.state(7, pipelines).values()) {
                    session.report(cp);
                    session.pipelineSuspended(cp.pipelineId());
                }
                return session.commit();
            }
        }
    }

    /** {@code -D} options for the server's account, endpoint and key, without {@code storage.type} and namespace. */
    private static List<String> accountOptions() {
        List<String> args = new ArrayList<>();
        for (Map.Entry<String, String> e : azurite.factoryKeys("unused").entrySet()) {
            if (e.getKey().startsWith("azure.")) {
                args.add("-D");
                args.add(e.getKey() + "=" + e.getValue());
            }
        }
        return args;
    }

    private static ToolRun.Result run(List<String> first, List<String> rest) {
        List<String> args = new ArrayList<>(first);
        args.addAll(rest);
        return ToolRun.run(args.toArray(String[]::new));
    }

    @Test
    void aSavepointPathOnAzureSelectsTheAzureBackendAndVerifies() throws Exception {
        String container = AzuriteServer.freshContainerName("tool");
        azurite.server().createContainer(container);
        SavepointHandle h = savepoint("azure://" + container + "/ns");
        assertThat(h.location()).startsWith("azure://" + container + "/ns/savepoint/" + ToolRun.JOB + "/");

        ToolRun.Result verify = run(List.of("verify", h.location()), accountOptions());
        assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
        assertThat(verify.out()).contains(h.savepointId());

        ToolRun.Result list = run(List.of("list", "--json", "--namespace", "azure://" + container + "/ns"),
                accountOptions());
        assertThat(list.exitCode()).as(list.out() + list.err()).isZero();
        assertThat(list.out()).contains("\"" + h.savepointId() + "\"").contains("\"" + ToolRun.JOB + "\"");
    }

    @Test
    void anAzureNamespaceWithoutItsAccountIsRefusedNamingTheKey() {
        ToolRun.Result r = ToolRun.run("list", "--namespace", "azure://nothere/ns");

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("azure.account.name");
    }
}
