package io.keepsake.storage.spi;

/** Optional powers of a {@link StorageFileSystem}; the commit protocol adapts to what is there. */
public enum FsCapability {
    /**
     * {@code rename(dir, target)} publishes a directory in one atomic step and fails, without
     * replacing anything, when the target exists. Without it, {@code _metadata.ser} is created
     * last with create-if-absent.
     */
    ATOMIC_DIRECTORY_RENAME,
    /** {@link StorageFileSystem#syncDirectory} makes a directory's entries durable (POSIX fsync). */
    DIRECTORY_SYNC
}
