package io.keepsake.storage.spi;

/**
 * What a listing says about one entry.
 *
 * @param path             the full path, in the file system's syntax (the protocol itself only
 *                         relies on {@code name} and joins it with {@link StorageFileSystem#child})
 * @param name             the last path component
 * @param directory        true for a directory
 * @param length           the file's length in bytes, 0 for a directory
 * @param modificationTime epoch millis
 */
public record FileStatus(String path, String name, boolean directory, long length, long modificationTime) {
}
