/**
 * The local-disk checks shared by the backends whose files live on a POSIX disk (the local-file
 * backend and the HDFS backend's {@code file://} path): entry types read without following links,
 * the roots below which no link is followed, the rename that claims its target with
 * {@code link(2)}, and the output stream over a file channel whose sync is {@code fsync}. For backend authors whose files are on a local disk; not an API for users of the
 * storage.
 */
package io.keepsake.storage.spi.localdisk;
