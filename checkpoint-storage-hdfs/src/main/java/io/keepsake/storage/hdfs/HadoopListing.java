package io.keepsake.storage.hdfs;

import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static io.keepsake.storage.hdfs.HdfsErrors.translate;

/**
 * Listings and stats through Hadoop, as the storage's {@link FileStatus}: a link is reported as a
 * link, a missing path or directory as nothing. Thread-safe.
 */
final class HadoopListing {

    private final FileSystem fs;
    private final AsUser asUser;

    HadoopListing(FileSystem fs, AsUser asUser) {
        this.fs = fs;
        this.asUser = asUser;
    }

    /** The entries of a directory; empty when it is missing or is a file (which Hadoop would list as itself). */
    List<FileStatus> list(String directory, StorageFileSystem names) throws IOException {
        Path p = new Path(Objects.requireNonNull(directory, "path"));
        org.apache.hadoop.fs.FileStatus[] statuses;
        try {
            statuses = asUser.call(() -> fs.listStatus(p));
        } catch (FileNotFoundException e) {
            return List.of();
        } catch (IOException e) {
            throw translate(e, directory, null);
        }
        // Hadoop lists a file as itself; a file is not a directory with entries.
        if (statuses.length == 1 && !statuses[0].isDirectory() && statuses[0].getPath().equals(fs.makeQualified(p))) {
            return List.of();
        }
        List<FileStatus> out = new ArrayList<>(statuses.length);
        for (org.apache.hadoop.fs.FileStatus s : statuses) {
            String name = s.getPath().getName();
            out.add(toStatus(names.child(directory, name), name, s));
        }
        return out;
    }

    /** What Hadoop says about one path, or empty when nothing is there. */
    Optional<FileStatus> stat(String path) throws IOException {
        Path p = new Path(Objects.requireNonNull(path, "path"));
        try {
            org.apache.hadoop.fs.FileStatus s = asUser.call(() -> fs.getFileStatus(p));
            return Optional.of(toStatus(path, s.getPath().getName(), s));
        } catch (FileNotFoundException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw translate(e, path, null);
        }
    }

    private static FileStatus toStatus(String path, String name, org.apache.hadoop.fs.FileStatus s) {
        FileStatus.Type type = s.isSymlink() ? FileStatus.Type.SYMBOLIC_LINK
                : s.isDirectory() ? FileStatus.Type.DIRECTORY
                : s.isFile() ? FileStatus.Type.REGULAR_FILE : FileStatus.Type.OTHER;
        return new FileStatus(path, name, type, type == FileStatus.Type.REGULAR_FILE ? s.getLen() : 0,
                s.getModificationTime());
    }
}
