package io.keepsake.seatunnel;

import io.keepsake.storage.internal.ComposedStorage;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test class whose tests each get the plugin's checkpoint storage, made by its factory from the
 * namespace key alone as the engine makes it, on a fresh namespace ({@code dir/ns}); a subclass's
 * own {@code @BeforeEach} runs after it is opened. After each test the storage's background work
 * (the rotations the test asked for, the tidying after its commits) ends before the namespace is
 * removed, so that removal never races with it.
 */
abstract class OnPluginStorage {

    @TempDir
    Path dir;

    /** What the running test's storage wrote, read from the disk. */
    Namespace ns;

    /** The running test's storage. */
    CheckpointStorage storage;

    @BeforeEach
    void openPluginStorage() throws Exception {
        ns = new Namespace(dir.resolve("ns"));
        storage = new KeepsakeCheckpointStorageFactory().create(Map.of("namespace", ns.root().toString()));
    }

    @AfterEach
    void awaitBackgroundWork() throws Exception {
        KeepsakeCheckpointStorage plugin = (KeepsakeCheckpointStorage) storage;
        assertThat(plugin.awaitRetention(Duration.ofSeconds(60))).as("the rotations the test asked for ended").isTrue();
        assertThat(plugin.savepointSide()).isInstanceOf(ComposedStorage.class);
        ((ComposedStorage) plugin.savepointSide()).awaitTidying();
    }
}
