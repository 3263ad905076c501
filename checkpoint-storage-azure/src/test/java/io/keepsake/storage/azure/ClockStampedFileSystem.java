package io.keepsake.storage.azure;

import io.keepsake.fixtures.faults.ForwardingOutputStream;
import io.keepsake.fixtures.faults.RestampedFileSystem;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A file system that reports the modification times of a clock instead of the server's: a file's
 * time is the clock's when its stream's {@code sync()} returned, a directory's the newest of what
 * was written below it (or when it was made). The schedule explorer runs every actor on one fixed
 * clock, and Azurite stamps blobs with the wall clock, so leases and ages are judged on the run's
 * clock only through this wrapper. Thread-safe.
 */
final class ClockStampedFileSystem extends RestampedFileSystem {

    private final LongSupplier clock;
    private final Map<String, Long> times = new ConcurrentHashMap<>();

    ClockStampedFileSystem(StorageFileSystem delegate, LongSupplier clock) {
        super(delegate);
        this.clock = clock;
    }

    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        return stamped(path, super.create(path, mustCreate));
    }

    @Override
    public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        return stamped(path, super.createInExistingDirectory(path, mustCreate));
    }

    private SyncableOutputStream stamped(String path, SyncableOutputStream out) {
        return new ForwardingOutputStream(out) {
            @Override
            public void sync() throws IOException {
                super.sync();
                times.put(path, clock.getAsLong());
            }
        };
    }

    @Override
    public void mkdirs(String path) throws IOException {
        super.mkdirs(path);
        times.putIfAbsent(path, clock.getAsLong());
    }

    @Override
    protected long modificationTime(FileStatus s) {
        if (s.directory()) {
            String below = s.path().endsWith("/") ? s.path() : s.path() + "/";
            return times.entrySet().stream().filter(e -> e.getKey().equals(s.path()) || e.getKey().startsWith(below))
                    .mapToLong(Map.Entry::getValue).max().orElse(clock.getAsLong());
        }
        return times.getOrDefault(s.path(), clock.getAsLong());
    }
}
