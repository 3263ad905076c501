/**
 * The local-file backend (factory id {@code localfile}): {@link io.keepsake.storage.localfile.LocalFileSystem},
 * the primitive file system on {@code java.nio}, and its factory.
 */
package io.keepsake.storage.localfile;
