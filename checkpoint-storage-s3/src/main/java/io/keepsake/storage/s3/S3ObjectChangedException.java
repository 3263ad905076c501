package io.keepsake.storage.s3;

import java.nio.file.FileSystemException;

/**
 * An object read in several ranges changed between them: a later range was refused by its
 * {@code If-Match} on the first range's ETag, or came back with another ETag or another length.
 * The bytes already read and those still to come belong to two different objects, so the read
 * stops; it is an I/O failure (reading again reads one object), not damage to the object.
 */
public final class S3ObjectChangedException extends FileSystemException {

    private static final long serialVersionUID = 1L;

    private final String expectedETag;

    /**
     * @param path         the object, as the file system names it
     * @param expectedETag the ETag of the first range
     * @param reason       what differed, for the message
     */
    public S3ObjectChangedException(String path, String expectedETag, String reason) {
        super(path, null, "the object changed while it was read in ranges (first ETag " + expectedETag + "): "
                + reason);
        this.expectedETag = expectedETag;
    }

    /** The ETag of the object when its first range was read. */
    public String expectedETag() {
        return expectedETag;
    }
}
