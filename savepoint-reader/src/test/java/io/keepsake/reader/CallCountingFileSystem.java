package io.keepsake.reader;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what a lookup asks of the file system SPI: listings, the entries they returned, files
 * opened for reading and status calls. Thread-safe when the delegate is.
 */
final class CallCountingFileSystem extends ForwardingFileSystem {

    /** What was asked between two snapshots. */
    record Calls(long listings, long listed, long opens, long stats) {
        Calls minus(Calls before) {
            return new Calls(listings - before.listings, listed - before.listed, opens - before.opens,
                    stats - before.stats);
        }

        boolean atMostTwiceOf(Calls small) {
            return listings <= 2 * small.listings && listed <= 2 * small.listed && opens <= 2 * small.opens
                    && stats <= 2 * small.stats;
        }
    }

    private final AtomicLong listings = new AtomicLong();
    private final AtomicLong listed = new AtomicLong();
    private final AtomicLong opens = new AtomicLong();
    private final AtomicLong stats = new AtomicLong();

    CallCountingFileSystem(StorageFileSystem delegate) {
        super(delegate);
    }

    Calls calls() {
        return new Calls(listings.get(), listed.get(), opens.get(), stats.get());
    }

    @Override
    public InputStream open(String path) throws IOException {
        opens.incrementAndGet();
        return super.open(path);
    }

    @Override
    public List<FileStatus> list(String directory) throws IOException {
        listings.incrementAndGet();
        List<FileStatus> out = super.list(directory);
        listed.addAndGet(out.size());
        return out;
    }

    @Override
    public List<String> listNames(String directory) throws IOException {
        listings.incrementAndGet();
        List<String> out = super.listNames(directory);
        listed.addAndGet(out.size());
        return out;
    }

    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        stats.incrementAndGet();
        return super.stat(path);
    }
}
