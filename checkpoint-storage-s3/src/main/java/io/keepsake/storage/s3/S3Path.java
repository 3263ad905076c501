package io.keepsake.storage.s3;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.objectstore.ObjectLocation;

import java.util.Locale;

/**
 * A path on S3: a bucket and a key without leading or trailing slash ({@code ""} for the bucket's
 * top). Written as {@code s3://bucket/key}; {@code s3a://} and {@code s3n://} are read as the same,
 * and a path starting with {@code /} is a key in the default bucket.
 *
 * @param bucket the bucket
 * @param key    the key, {@code ""} for the top of the bucket
 */
record S3Path(String bucket, String key) implements ObjectLocation<S3Path> {

    /** The scheme every path is written with. */
    static final String SCHEME = "s3://";

    /** Parses {@code path}; plain paths are keys in {@code defaultBucket}, which may then not be null. */
    static S3Path parse(String path, String defaultBucket) {
        String rest;
        String bucket;
        String lower = path.toLowerCase(Locale.ROOT);
        if (lower.startsWith("s3://") || lower.startsWith("s3a://") || lower.startsWith("s3n://")) {
            String location = path.substring(path.indexOf("://") + 3);
            bucket = ObjectLocation.beforeFirstSlash(location);
            rest = ObjectLocation.afterFirstSlash(location);
        } else if (path.startsWith("/")) {
            if (defaultBucket == null) {
                throw new InvalidStorageArgumentException("Cannot use S3 path: it names no bucket and no default bucket"
                        + " is configured (s3.bucket) (" + path + ")");
            }
            bucket = defaultBucket;
            rest = path.substring(1);
        } else {
            throw new InvalidStorageArgumentException("Cannot use S3 path: it is neither s3://bucket/key nor an absolute"
                    + " key starting with / (" + path + ")");
        }
        if (bucket.isEmpty()) {
            throw new InvalidStorageArgumentException("Cannot use S3 path: the bucket is empty (" + path + ")");
        }
        return new S3Path(bucket, ObjectLocation.withoutTrailingSlashes(rest));
    }

    /** The key. */
    @Override
    public String name() {
        return key;
    }

    @Override
    public S3Path parent() {
        return new S3Path(bucket, parentName());
    }

    /** The path as written: {@code s3://bucket/key}. */
    @Override
    public String toString() {
        return ObjectLocation.written(SCHEME, bucket, key);
    }
}
