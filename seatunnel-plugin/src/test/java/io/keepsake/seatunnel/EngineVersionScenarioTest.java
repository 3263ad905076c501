package io.keepsake.seatunnel;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core scenario on whichever released engine the build embeds (2.3.8 by default, 2.3.4 with the
 * {@code seatunnel-2.3.4} profile): stream, savepoint, the bundle is kept and verifies, restore from
 * it, cancel, the bundle stays. It names the engine it ran on from the engine jars' manifests and
 * checks it against the version the build asked for. Nothing here depends on the engine's terminal
 * cleanup, which 2.3.4 does not do.
 */
class EngineVersionScenarioTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theEmbeddedEngineIsTheVersionTheBuildChose() {
        String server = implementationVersion(org.apache.seatunnel.engine.server.SeaTunnelServer.class);
        String client = implementationVersion(org.apache.seatunnel.engine.client.SeaTunnelClient.class);
        String storageApi = implementationVersion(
                org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory.class);
        Figures.record("SeaTunnel engine embedded (Implementation-Version of server / client / storage SPI jars)",
                server + " / " + client + " / " + storageApi);
        assertThat(List.of(client, storageApi)).containsOnly(server);
        String expected = System.getProperty("keepsake.seatunnel.version");
        if (expected != null) {
            assertThat(server).isEqualTo(expected);
        }
    }

    @Test
    void savepointIsKeptAndTheJobRestoresFromIt(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        long t0 = System.nanoTime();
        engine.useStorage("keepsake", Map.of("namespace", ns.root().toString()), 5);
        RunningJob job = RunningJob.submit(engine, ns, Jobs.streaming(dir, "version", 1, 1000), WAIT);
        long jobId = job.jobId();
        long savepointId = job.savepointAfter(2);
        List<SavepointHandle> kept = savepoints.list(jobId);
        assertThat(kept).singleElement().satisfies(h -> assertThat(h.savepointId())
                .isEqualTo(KeepsakeCheckpointStorage.savepointId(savepointId, 1)));
        assertThat(savepoints.verify(kept.get(0)).get(1).checkpointId()).isEqualTo(savepointId);

        job.restoreAbove(savepointId, "a checkpoint after the restore");
        long firstAfterRestore = ns.checkpoints(jobId).stream().mapToLong(Namespace.CheckpointFile::checkpointId)
                .filter(id -> id > savepointId).min().orElseThrow();
        assertThat(firstAfterRestore).as("the restored run continues from the savepoint").isEqualTo(savepointId + 1);
        job.cancelKeeping(savepoints, 1);
        Figures.record("core scenario on SeaTunnel "
                + implementationVersion(org.apache.seatunnel.engine.server.SeaTunnelServer.class) + ", ms",
                KeepsakePluginScenariosTest.millisSince(t0));
    }

    /** The Implementation-Version in the manifest of the jar that holds {@code type}. */
    private static String implementationVersion(Class<?> type) {
        try (JarFile jar = new JarFile(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toFile())) {
            return jar.getManifest().getMainAttributes().getValue("Implementation-Version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
