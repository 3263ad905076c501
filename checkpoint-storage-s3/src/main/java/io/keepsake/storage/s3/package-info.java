/**
 * The S3 backend: {@link io.keepsake.storage.s3.S3FileSystem} (the file-system primitives on the
 * AWS SDK v2, with conditional writes and no rename) and {@link io.keepsake.storage.s3.S3StorageFactory}
 * (factory id {@code s3}, SeaTunnel's {@code s3.bucket} and {@code fs.s3a.*} keys).
 */
package io.keepsake.storage.s3;
