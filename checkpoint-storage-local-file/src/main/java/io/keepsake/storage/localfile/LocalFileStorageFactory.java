package io.keepsake.storage.localfile;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.spi.FileSystemStorageFactory;
import io.keepsake.storage.spi.StorageFileSystem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Checkpoints and savepoints on a local disk (factory id {@code localfile}): a
 * {@link KeepsakeStorage} over {@link LocalFileSystem}, configured by {@code namespace}, optional
 * {@code savepoint.path} and {@code storage.type} ({@code local} or {@code localfile}). Files and
 * directories are fsynced before publication and savepoints are published by atomic rename. The
 * roots are created when missing; a root that exists but is not a writable directory is refused
 * at once.
 */
public final class LocalFileStorageFactory extends FileSystemStorageFactory {

    /** The id users put in their configuration. */
    public static final String IDENTIFIER = "localfile";

    /** The factory {@link java.util.ServiceLoader} instantiates. */
    public LocalFileStorageFactory() {
        super(IDENTIFIER, Set.of(), List.of(), Set.of("local", "localfile", "file"));
    }

    @Override
    protected StorageFileSystem openFileSystem(StorageOptions options) {
        return new LocalFileSystem();
    }

    @Override
    protected void prepareRoots(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage) throws CheckpointStorageException {
        requireWritableDirectory(storage.namespace(), StorageOptions.NAMESPACE);
        requireWritableDirectory(storage.savepointRoot(), StorageOptions.SAVEPOINT_PATH);
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
