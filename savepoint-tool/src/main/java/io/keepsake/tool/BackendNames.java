package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.CheckpointStorageFactory;

import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * The {@code --backend} values the running jar has: the ids of the storage factories its class
 * path provides ({@code localfile} in {@code keepsake-local.jar}; {@code localfile}, {@code hdfs}
 * and {@code s3} in {@code keepsake.jar}). picocli asks for them only to write the completion
 * script, so the factories are looked up then, not on every run.
 */
public final class BackendNames implements Iterable<String> {

    /** Looks the factories up when iterated. */
    @Override
    public Iterator<String> iterator() {
        ClassLoader loader = BackendNames.class.getClassLoader();
        return CheckpointStorageFactories.discover(ServiceLoader.load(CheckpointStorageFactory.class, loader).iterator())
                .keySet().iterator();
    }
}
