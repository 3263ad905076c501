package io.keepsake.seatunnel;

import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Counts the calls a storage makes on a file system, by kind (file fsyncs, directory fsyncs,
 * creates, renames, ...), to tell where the time of one store goes. Not thread-safe: count one
 * store at a time.
 */
final class CountingFileSystem implements StorageFileSystem {

    private final StorageFileSystem delegate;
    private final Map<String, Integer> counts = new TreeMap<>();

    CountingFileSystem(StorageFileSystem delegate) {
        this.delegate = delegate;
    }

    /** The counts since the last call, by kind, and starts again from zero. */
    Map<String, Integer> takeCounts() {
        Map<String, Integer> copy = new TreeMap<>(counts);
        counts.clear();
        return copy;
    }

    private void count(String kind) {
        counts.merge(kind, 1, Integer::sum);
    }

    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        count("create");
        return counted(delegate.create(path, mustCreate));
    }

    @Override
    public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        count("create");
        return counted(delegate.createInExistingDirectory(path, mustCreate));
    }

    private SyncableOutputStream counted(SyncableOutputStream out) {
        return new SyncableOutputStream() {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void sync() throws IOException {
                count("file fsync");
                out.sync();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }

    @Override
    public InputStream open(String path) throws IOException {
        count("open for read");
        return delegate.open(path);
    }

    @Override
    public List<FileStatus> list(String directory) throws IOException {
        count("list");
        return delegate.list(directory);
    }

    @Override
    public List<String> listNames(String directory) throws IOException {
        count("list");
        return delegate.listNames(directory);
    }

    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        count("stat");
        return delegate.stat(path);
    }

    @Override
    public void rename(String source, String target) throws IOException {
        count("rename");
        delegate.rename(source, target);
    }

    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        count("delete");
        return delegate.delete(path, recursive);
    }

    @Override
    public void mkdirs(String path) throws IOException {
        count("mkdirs");
        delegate.mkdirs(path);
    }

    @Override
    public void syncDirectory(String directory) throws IOException {
        count("directory fsync");
        delegate.syncDirectory(directory);
    }

    @Override
    public Set<FsCapability> capabilities() {
        return delegate.capabilities();
    }

    @Override
    public String child(String directory, String name) {
        return delegate.child(directory, name);
    }

    @Override
    public String normalizeRoot(String root) {
        return delegate.normalizeRoot(root);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
