package io.keepsake.storage.hdfs;

import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.security.AccessControlException;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * Hadoop's errors as {@link IOException}s that name the path, with a {@code java.nio.file} type
 * where one fits, so the storage above sees the same errors from every backend. Stateless.
 */
final class HdfsErrors {

    private HdfsErrors() {
    }

    /** {@code e} with {@code cause} set, to throw. */
    static <E extends IOException> E withCause(E e, Throwable cause) {
        e.initCause(cause);
        return e;
    }

    /** Translates a Hadoop error into a java.nio.file type where one fits, always naming the path. */
    static IOException translate(IOException e, String path, String other) {
        if (e instanceof FileSystemException) {
            return e;
        }
        if (e instanceof RemoteException remote) {
            IOException unwrapped = remote.unwrapRemoteException();
            if (unwrapped != remote) {
                return translate(unwrapped, path, other);
            }
        }
        String reason = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        if (e instanceof org.apache.hadoop.fs.FileAlreadyExistsException) {
            return withCause(new FileAlreadyExistsException(path, other, reason), e);
        }
        if (e instanceof FileNotFoundException) {
            return withCause(new NoSuchFileException(path, other, reason), e);
        }
        if (e instanceof PathIsNotEmptyDirectoryException) {
            return withCause(new DirectoryNotEmptyException(path), e);
        }
        if (e instanceof AccessControlException) {
            return withCause(new AccessDeniedException(path, other, reason), e);
        }
        if (e instanceof InterruptedIOException) {
            return e;
        }
        return withCause(new FileSystemException(path, other, e.getClass().getSimpleName() + ": " + reason), e);
    }

    /** Names the path in a stream error unless the message already does. */
    static IOException named(IOException e, String path) {
        String message = e.getMessage();
        if (e instanceof FileSystemException || e instanceof InterruptedIOException
                || (message != null && message.contains(path))) {
            return e;
        }
        return translate(e, path, null);
    }

    /** A call on a stream that returns nothing. */
    @FunctionalInterface
    interface StreamCall {
        void run() throws IOException;
    }

    /** A call on a stream that returns a byte, a count or a position. */
    @FunctionalInterface
    interface StreamCount {
        long run() throws IOException;
    }

    /** Runs a stream call; its error names the path ({@link #named}). */
    static void naming(String path, StreamCall call) throws IOException {
        try {
            call.run();
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    /** Runs a stream call and returns its answer; its error names the path ({@link #named}). */
    static long namingCount(String path, StreamCount call) throws IOException {
        try {
            return call.run();
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    /** True when the NameNode refused a create because the parent is missing or is a file. */
    static boolean isParentMissing(RemoteException e) {
        String name = e.getClassName();
        return name != null && (name.endsWith(".FileNotFoundException")
                || name.endsWith(".ParentNotDirectoryException"));
    }

    /** True when the NameNode refused a create because another client is still writing the file. */
    static boolean isBeingWritten(RemoteException e) {
        String name = e.getClassName();
        return name != null && (name.endsWith(".AlreadyBeingCreatedException")
                || name.endsWith(".RecoveryInProgressException"));
    }
}
