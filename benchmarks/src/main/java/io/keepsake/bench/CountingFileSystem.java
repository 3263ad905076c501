package io.keepsake.bench;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.faults.ForwardingOutputStream;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file system that counts the files opened for reading whose name is {@code _metadata.ser},
 * and the directory listings; with {@code durable} false it also skips every fsync (files and
 * directories), which is only for building large fixtures quickly, never for a timed save.
 *
 * <p>Thread-safe when the delegate is.
 */
public final class CountingFileSystem extends ForwardingFileSystem {

    private final boolean durable;
    private final AtomicLong metadataReads = new AtomicLong();
    private final AtomicLong listings = new AtomicLong();

    /** Wraps {@code delegate}; {@code durable} false turns every fsync into a no-op. */
    public CountingFileSystem(StorageFileSystem delegate, boolean durable) {
        super(delegate);
        this.durable = durable;
    }

    @Override
    public InputStream open(String path) throws IOException {
        if (path.endsWith("/_metadata.ser")) {
            metadataReads.incrementAndGet();
        }
        return super.open(path);
    }

    @Override
    public List<FileStatus> list(String directory) throws IOException {
        listings.incrementAndGet();
        return super.list(directory);
    }

    @Override
    public List<String> listNames(String directory) throws IOException {
        listings.incrementAndGet();
        return super.listNames(directory);
    }

    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        SyncableOutputStream out = super.create(path, mustCreate);
        return durable ? out : new Unsynced(out);
    }

    @Override
    public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        SyncableOutputStream out = super.createInExistingDirectory(path, mustCreate);
        return durable ? out : new Unsynced(out);
    }

    @Override
    public void syncDirectory(String directory) throws IOException {
        if (durable) {
            super.syncDirectory(directory);
        }
    }

    /** {@code _metadata.ser} files opened so far. */
    public long metadataReads() {
        return metadataReads.get();
    }

    /** Directory listings so far. */
    public long listings() {
        return listings.get();
    }

    /** A stream whose sync does nothing. */
    private static final class Unsynced extends ForwardingOutputStream {

        Unsynced(SyncableOutputStream out) {
            super(out);
        }

        @Override
        public void sync() {
        }
    }
}
