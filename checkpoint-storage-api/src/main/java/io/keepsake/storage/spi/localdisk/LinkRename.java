package io.keepsake.storage.spi.localdisk;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The rename of a regular file on the local disk that never replaces its target: {@code link(2)}
 * claims the target atomically with the whole file (it fails when anything, a link included, is
 * there), so two racing renames onto one name cannot both succeed and no reader ever sees a
 * partial target; then the source name is removed. {@code rename(2)} would replace the target,
 * and a check before it would leave a window. Stateless; thread-safe.
 */
public final class LinkRename {

    /** Removes the source's name once the target holds the file. */
    @FunctionalInterface
    public interface Unlink {
        void run() throws IOException;
    }

    private LinkRename() {
    }

    /**
     * Links {@code to} to the file at {@code from}, then runs {@code unlinkSource}.
     *
     * @param source the source as the caller named it, for messages
     * @param target the target as the caller named it, for messages
     * @throws FileAlreadyExistsException when anything is at the target
     * @throws NoSuchFileException        when the source is missing
     * @throws FileSystemException        when the target's parent directory is missing
     */
    public static void renameFile(Path from, Path to, String source, String target, Unlink unlinkSource)
            throws IOException {
        try {
            Files.createLink(to, from);
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(target, source, "rename target exists");
        } catch (NoSuchFileException e) {
            if (LocalEntries.lstat(from).isEmpty()) {
                throw new NoSuchFileException(source, target, "rename source is missing");
            }
            throw new FileSystemException(source, target, "rename target's parent directory is missing");
        }
        unlinkSource.run();
    }
}
