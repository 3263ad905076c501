/**
 * What a backend author implements, and nothing else: the file-system primitives
 * ({@link io.keepsake.storage.spi.StorageFileSystem}), what a listing says
 * ({@link io.keepsake.storage.spi.FileStatus}), optional powers
 * ({@link io.keepsake.storage.spi.FsCapability}) and a syncable output stream. The commit protocol,
 * validation and checksums are written once on top of these, in {@code io.keepsake.storage.internal};
 * a backend never extends or calls them. A backend also provides a
 * {@link io.keepsake.storage.CheckpointStorageFactory} that returns
 * {@link io.keepsake.storage.KeepsakeStorage#open} over its file system, and runs the contract kit.
 */
package io.keepsake.storage.spi;
