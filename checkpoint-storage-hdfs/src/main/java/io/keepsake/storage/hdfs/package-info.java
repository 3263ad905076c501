/**
 * The HDFS backend (factory id {@code hdfs}): {@link io.keepsake.storage.hdfs.HdfsFileSystem}, the
 * primitive file system over a Hadoop {@code FileSystem} ({@code hdfs://}, {@code file://} and,
 * with their jars, {@code s3a://} and {@code oss://}), and its factory. Hadoop itself is not
 * brought along: the engine puts its own Hadoop client on the class path.
 */
package io.keepsake.storage.hdfs;
