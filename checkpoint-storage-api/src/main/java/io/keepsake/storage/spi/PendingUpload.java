package io.keepsake.storage.spi;

/**
 * An upload begun and neither completed nor aborted (an object store's multipart upload): invisible
 * to every listing, but held (and billed) by the store until someone aborts it.
 *
 * @param path      the path it would create, in the file system's syntax
 * @param uploadId  the store's id of the upload
 * @param initiated when it was begun, epoch millis
 */
public record PendingUpload(String path, String uploadId, long initiated) {
}
