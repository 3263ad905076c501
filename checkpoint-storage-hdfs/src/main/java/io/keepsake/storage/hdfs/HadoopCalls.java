package io.keepsake.storage.hdfs;

import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.ipc.RemoteException;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

import static io.keepsake.storage.hdfs.HdfsErrors.isBeingWritten;
import static io.keepsake.storage.hdfs.HdfsErrors.isParentMissing;
import static io.keepsake.storage.hdfs.HdfsErrors.translate;
import static io.keepsake.storage.hdfs.HdfsErrors.withCause;

/**
 * The primitives that change or read files through Hadoop's own client, each run as the
 * file system's user, with Hadoop's answers and errors turned into the storage's: a refused
 * must-create, a missing source or parent, a non-empty directory, a {@code false} while the path
 * is still there. Thread-safe, as Hadoop's {@link FileSystem} is.
 */
final class HadoopCalls {

    private final FileSystem fs;
    private final FileContext fileContext;
    private final Configuration configuration;
    private final AsUser asUser;
    /** The local disk under Hadoop's raw local file system, where a must-create first claims the name; else null. */
    private final RawLocalDisk local;

    HadoopCalls(FileSystem fs, FileContext fileContext, Configuration configuration, AsUser asUser,
                RawLocalDisk local) {
        this.fs = fs;
        this.fileContext = fileContext;
        this.configuration = configuration;
        this.asUser = asUser;
        this.local = local;
    }

    /**
     * Creates a file, with its missing parents when {@code parents}; a must-create on the local
     * disk first claims the name, since Hadoop's local create is check-then-act.
     */
    SyncableOutputStream create(Path p, String path, boolean mustCreate, boolean parents) throws IOException {
        try {
            FSDataOutputStream out = asUser.call(() -> {
                if (mustCreate && local != null) {
                    claimLocal(path, p, parents);
                    return parents ? fs.create(p, true) : createNonRecursive(p, true);
                }
                return parents ? fs.create(p, !mustCreate) : createNonRecursive(p, !mustCreate);
            });
            return new HadoopOutput(out, path);
        } catch (RemoteException e) {
            if (isParentMissing(e)) {
                throw withCause(new NoSuchFileException(path, null, "the parent directory is missing"), e);
            }
            if (mustCreate && isBeingWritten(e)) {
                throw withCause(new FileAlreadyExistsException(path, null, "it exists and is still being written"), e);
            }
            throw translate(e, path, null);
        } catch (IOException e) {
            throw translate(e, path, null);
        }
    }

    private FSDataOutputStream createNonRecursive(Path p, boolean overwrite) throws IOException {
        return fs.createNonRecursive(p, overwrite, configuration.getInt("io.file.buffer.size", 4096),
                fs.getDefaultReplication(p), fs.getDefaultBlockSize(p), null);
    }

    /** Creates the empty file with O_EXCL, which Hadoop's local create does not do, after its parents. */
    private void claimLocal(String path, Path p, boolean parents) throws IOException {
        Path parent = p.getParent();
        if (parents && parent != null && !fs.mkdirs(parent)) {
            throw new FileSystemException(path, null, "cannot create the parent directory");
        }
        local.claim(path);
    }

    /** Opens a file for reading; read errors name the file. */
    InputStream open(Path p, String path) throws IOException {
        try {
            return new HadoopInput(asUser.call(() -> fs.open(p)), path);
        } catch (IOException e) {
            throw translate(e, path, null);
        }
    }

    /** Renames with {@link Options.Rename#NONE}: never replaces the target, never moves into a directory. */
    void rename(Path src, Path dst, String source, String target) throws IOException {
        try {
            asUser.call(() -> {
                fileContext.rename(src, dst, Options.Rename.NONE);
                return null;
            });
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw withCause(new FileAlreadyExistsException(target, source, "rename target exists"), e);
        } catch (FileNotFoundException e) {
            if (!exists(src)) {
                throw withCause(new NoSuchFileException(source, target, "rename source is missing"), e);
            }
            throw withCause(new FileSystemException(source, target, "rename target's parent directory is missing"), e);
        } catch (IOException e) {
            throw translate(e, source, target);
        }
    }

    private boolean exists(Path p) {
        try {
            return asUser.call(() -> fs.exists(p));
        } catch (IOException e) {
            return true;
        }
    }

    /** Deletes a file or directory; a {@code false} from Hadoop while the path is still there is an error. */
    boolean delete(Path p, String path, boolean recursive) throws IOException {
        boolean deleted;
        try {
            deleted = asUser.call(() -> fs.delete(p, recursive));
        } catch (PathIsNotEmptyDirectoryException e) {
            throw withCause(new DirectoryNotEmptyException(path), e);
        } catch (IOException e) {
            if (!recursive && isNonEmptyDirectory(p)) {
                throw withCause(new DirectoryNotEmptyException(path), e);
            }
            throw translate(e, path, null);
        }
        if (!deleted && exists(p)) {
            throw new FileSystemException(path, null, "the file system refused to delete it");
        }
        return deleted;
    }

    private boolean isNonEmptyDirectory(Path p) {
        try {
            return asUser.call(() -> fs.getFileStatus(p).isDirectory() && fs.listStatus(p).length > 0);
        } catch (IOException e) {
            return false;
        }
    }

    /** Creates a directory and its parents; fine when it exists. */
    void mkdirs(Path p, String path) throws IOException {
        boolean made;
        try {
            made = asUser.call(() -> fs.mkdirs(p));
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw withCause(new FileAlreadyExistsException(path, null, "a file is in the way of the directory"), e);
        } catch (IOException e) {
            throw translate(e, path, null);
        }
        if (!made) {
            throw new FileSystemException(path, null, "the file system refused to create the directory");
        }
    }
}
