package io.keepsake.storage.spi.objectstore;

import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The listing of one directory of an object store, where directories are name prefixes, built
 * from a flat listing of every object below the directory's prefix: an object right below it is
 * a file, a deeper one makes the first segment after the prefix a directory whose modification
 * time is that of the newest object below it. Names that cannot be a path segment ({@code .},
 * {@code ..}, empty) are left out. Files come first, in the order given, then directories in the
 * order first met. Not thread-safe: one listing is built by one thread.
 */
public final class PrefixListing {

    private final StorageFileSystem fs;
    private final String directory;
    private final List<FileStatus> files = new ArrayList<>();
    private final Map<String, long[]> directories = new LinkedHashMap<>();

    /** An empty listing of {@code directory} of {@code fs}. */
    public PrefixListing(StorageFileSystem fs, String directory) {
        this.fs = fs;
        this.directory = directory;
    }

    /**
     * Adds one object below the directory.
     *
     * @param rest     its name after the directory's prefix
     * @param size     its size in bytes
     * @param modified its modification time in milliseconds since the epoch
     */
    public void add(String rest, long size, long modified) {
        int slash = rest.indexOf('/');
        if (slash < 0) {
            if (representable(rest)) {
                files.add(new FileStatus(fs.child(directory, rest), rest, false, size, modified));
            }
        } else if (slash > 0) {
            String name = rest.substring(0, slash);
            if (representable(name)) {
                long[] newest = directories.computeIfAbsent(name, k -> new long[] {Long.MIN_VALUE});
                newest[0] = Math.max(newest[0], modified);
            }
        }
    }

    /** The files and directories right below the directory. */
    public List<FileStatus> statuses() {
        List<FileStatus> out = new ArrayList<>(files);
        directories.forEach((name, time) -> out.add(new FileStatus(fs.child(directory, name), name, true, 0, time[0])));
        return out;
    }

    private static boolean representable(String name) {
        return !name.isEmpty() && !name.equals(".") && !name.equals("..");
    }
}
