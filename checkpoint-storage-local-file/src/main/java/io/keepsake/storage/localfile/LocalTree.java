package io.keepsake.storage.localfile;

import io.keepsake.storage.spi.localdisk.LocalEntries;
import io.keepsake.storage.spi.localdisk.LocalRoots;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;

/**
 * The way down to a directory of the local disk without following a link: from the configured
 * root that holds it (or {@code /}), one component at a time, each opened as a
 * {@link LocalDirectory}. {@code mkdir} has no handle-relative form in java.nio, so a missing
 * component is created by name and then opened without following links, so nothing is written
 * through a component swapped meanwhile. Thread-safe.
 */
final class LocalTree {

    private final LocalRoots roots = new LocalRoots();

    /** The roots below which no link is followed. */
    LocalRoots roots() {
        return roots;
    }

    /**
     * Opens {@code directory}, walking down from its root one component at a time without
     * following a link.
     *
     * @throws NoSuchFileException   when a component is missing
     * @throws NotDirectoryException when a component is a file
     * @throws FileSystemException   when a component is a symbolic link
     */
    LocalDirectory openDirectory(Path directory, String forPath) throws IOException {
        if (roots.isTrusted(directory)) {
            return LocalDirectory.open(directory);
        }
        Path anchor = roots.anchorOf(directory);
        LocalDirectory dir = LocalDirectory.open(anchor);
        try {
            Path current = anchor;
            for (Path name : LocalRoots.below(anchor, directory)) {
                current = current.resolve(name);
                LocalDirectory next = dir.directory(name, current.toString());
                dir.close();
                dir = next;
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            dir.close();
            if (e instanceof NoSuchFileException || e instanceof NotDirectoryException
                    || !(e instanceof FileSystemException fse) || fse.getFile() == null || fse.getFile().equals(forPath)) {
                throw e;
            }
            FileSystemException named = new FileSystemException(fse.getFile(), forPath, fse.getReason());
            named.initCause(e);
            throw named;
        }
    }

    /**
     * Creates {@code target} and its missing parents below its root, opening each without
     * following a link.
     *
     * @throws FileAlreadyExistsException when a file is in the way
     * @throws FileSystemException        when a component is a symbolic link
     */
    void mkdirs(Path target, String path) throws IOException {
        Path anchor = roots.anchorOf(target);
        Files.createDirectories(anchor);
        LocalDirectory dir = LocalDirectory.open(anchor);
        try {
            Path current = anchor;
            for (Path name : LocalRoots.below(anchor, target)) {
                current = current.resolve(name);
                LocalDirectory next;
                try {
                    next = dir.directory(name, current.toString());
                } catch (NoSuchFileException missing) {
                    try {
                        Files.createDirectory(current);
                    } catch (FileAlreadyExistsException raced) {
                        // Another creator, or something in the way: opening it below tells which.
                    }
                    next = dir.directory(name, current.toString());
                }
                dir.close();
                dir = next;
            }
        } catch (NotDirectoryException e) {
            throw new FileAlreadyExistsException(path, e.getFile(), "a file is in the way of the directory");
        } finally {
            dir.close();
        }
    }

    /** A path string as a path, with an error naming it when this JVM's file-name encoding cannot hold it. */
    static Path path(String path) throws IOException {
        Objects.requireNonNull(path, "path");
        try {
            return Path.of(path);
        } catch (InvalidPathException e) {
            throw new FileSystemException(path, null, "not a valid path in this JVM's file-name encoding: "
                    + e.getMessage());
        }
    }

    /** The parent of an absolute path below a directory. */
    static Path parentOf(Path file, String path) throws IOException {
        if (!file.isAbsolute() || file.getParent() == null) {
            throw new FileSystemException(path, null, "not an absolute path below a directory");
        }
        return file.getParent();
    }

    /** The last component's name, {@code /} for the root. */
    static String nameOf(Path file) {
        return file.getFileName() == null ? "/" : file.getFileName().toString();
    }

    /** Says that an open failed because {@code name} is a link, when it is one; else {@code e} as it is. */
    static IOException explainLink(LocalDirectory dir, Path name, String path, FileSystemException e) {
        try {
            Optional<BasicFileAttributes> a = dir.attributes(name);
            if (a.isPresent() && a.get().isSymbolicLink()) {
                return LocalEntries.linkRefused(path, e);
            }
        } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
        }
        return e;
    }
}
