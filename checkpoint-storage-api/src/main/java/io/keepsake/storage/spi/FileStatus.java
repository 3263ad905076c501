package io.keepsake.storage.spi;

import io.keepsake.storage.internal.Arguments;

/**
 * What a listing or a stat says about one entry. Only {@link Type#REGULAR_FILE}s are ever opened
 * and only {@link Type#DIRECTORY}s are ever descended into; the other types are reported so that
 * the protocol can skip them or name them in an error, never to be read.
 *
 * @param path             the full path, in the file system's syntax (the protocol itself only
 *                         relies on {@code name} and joins it with {@link StorageFileSystem#child})
 * @param name             the last path component
 * @param type             what kind of entry it is
 * @param length           the file's length in bytes, 0 for anything but a regular file
 * @param modificationTime epoch millis
 */
public record FileStatus(String path, String name, Type type, long length, long modificationTime) {

    /** The kinds of entry a file system reports. */
    public enum Type {
        /** A regular file: the only kind that is ever opened. */
        REGULAR_FILE,
        /** A directory. */
        DIRECTORY,
        /** A symbolic link, which is never followed. */
        SYMBOLIC_LINK,
        /** A FIFO, socket, device or anything else that is neither a file nor a directory; never opened. */
        OTHER
    }

    /** Checks that the type is given. */
    public FileStatus {
        Arguments.requireNonNull("create file status", "type", type);
    }

    /** A regular file or a directory, as file systems without other entry types report them. */
    public FileStatus(String path, String name, boolean directory, long length, long modificationTime) {
        this(path, name, directory ? Type.DIRECTORY : Type.REGULAR_FILE, directory ? 0 : length, modificationTime);
    }

    /** True for a directory. */
    public boolean directory() {
        return type == Type.DIRECTORY;
    }

    /** True for a regular file, the only kind of entry that may be opened and read. */
    public boolean regularFile() {
        return type == Type.REGULAR_FILE;
    }
}
