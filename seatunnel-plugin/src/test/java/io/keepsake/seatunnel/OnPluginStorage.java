package io.keepsake.seatunnel;

import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

/**
 * A test class whose tests each get the plugin's checkpoint storage, made by its factory from the
 * namespace key alone as the engine makes it, on a fresh namespace ({@code dir/ns}); a subclass's
 * own {@code @BeforeEach} runs after it is opened.
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
}
