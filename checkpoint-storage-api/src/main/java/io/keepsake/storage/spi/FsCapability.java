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
    DIRECTORY_SYNC,
    /**
     * A created file appears whole or not at all (an object store's PUT or completed multipart
     * upload): {@code sync()} publishes it with every byte written so far (nothing can be written
     * after that), and a stream closed without a successful {@code sync()} leaves nothing. Legacy
     * checkpoint files are then created under their final name with create-if-absent, without a
     * temporary name and a rename.
     */
    ATOMIC_FILE_CREATE,
    /**
     * Not a power but the lack of one: {@code create(path, true)} is check-then-act, so two racing
     * creators of one name can both succeed and the last one's bytes stay. Declared only by a file
     * system that an explicit setting accepted without exclusive create ({@code
     * s3.conditional-writes=unsupported}, {@code hdfs.allow-non-atomic-scheme=true}). Where it is
     * declared, no attempt outcome decides a race between a writer and a collection, so garbage
     * collection leaves the files of attempts without metadata in place and reports them as kept.
     */
    NON_EXCLUSIVE_CREATE
}
