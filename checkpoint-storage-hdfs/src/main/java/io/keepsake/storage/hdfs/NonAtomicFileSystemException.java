package io.keepsake.storage.hdfs;

import io.keepsake.storage.InvalidStorageArgumentException;

/**
 * The {@code hdfs} storage was configured on a file system whose scheme does not give the two
 * primitives the commit protocol rests on: a rename that is one atomic step and a
 * create-if-absent that only one of two racing creators wins. Thrown before any Hadoop file system
 * is instantiated, so nothing was contacted, read or written. Setting
 * {@value io.keepsake.storage.hdfs.internal.HdfsSettings#ALLOW_NON_ATOMIC_SCHEME}{@code =true}
 * accepts such a file system; the message says what that risks.
 */
public class NonAtomicFileSystemException extends InvalidStorageArgumentException {
    private static final long serialVersionUID = 1L;

    private final String scheme;

    /** An exception for {@code scheme}, with a message naming it, the path, why and what to do. */
    public NonAtomicFileSystemException(String scheme, String message) {
        super(message);
        this.scheme = scheme;
    }

    /** The refused scheme, lower case, such as {@code s3a} or {@code abfs}. */
    public String scheme() {
        return scheme;
    }
}
