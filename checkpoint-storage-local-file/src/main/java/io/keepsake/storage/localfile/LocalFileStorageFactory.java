package io.keepsake.storage.localfile;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.StorageOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Creates {@link LocalFileStorage} from {@code namespace}, optional {@code savepoint.path} and
 * {@code storage.type} ({@code local} or {@code localfile}). The roots are created when missing;
 * a root that exists but is not a writable directory is refused at once.
 */
public final class LocalFileStorageFactory implements CheckpointStorageFactory {

    /** The id users put in their configuration. */
    public static final String IDENTIFIER = "localfile";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public CheckpointStorage create(Map<String, String> configuration) throws CheckpointStorageException {
        StorageOptions options = StorageOptions.parse(configuration, IDENTIFIER, Set.of(), List.of(),
                Set.of("local", "localfile", "file"));
        LocalFileSystem fs = new LocalFileSystem();
        LocalFileStorage storage = new LocalFileStorage(fs, options.namespace(), options.savepointPath(),
                options.periodicMaxRetained());
        requireWritableDirectory(storage.namespace(), StorageOptions.NAMESPACE);
        requireWritableDirectory(storage.savepointRoot(), StorageOptions.SAVEPOINT_PATH);
        return storage;
    }

    private static void requireWritableDirectory(String root, String key) throws CheckpointStorageException {
        Path dir = Path.of(root);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CheckpointStorageException("Cannot create storage root for " + key + ": " + e + " (" + root + ")", e);
        }
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new InvalidStorageArgumentException("Cannot use storage root for " + key
                    + ": it is not a writable directory (" + root + ")");
        }
    }
}
