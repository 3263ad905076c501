package io.keepsake.tool.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.KeptArrayInput;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointContent;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointWriter;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link SavepointStorage} that forwards every call and counts the payload bytes read through
 * {@link #openPayload} into a {@link Progress}, so that a reader streaming a savepoint reports as it
 * goes without reading anything twice. Closing the streams is the caller's; this decorator owns
 * nothing and is not closed. As thread-safe as the {@link Progress} it feeds (one reader thread).
 */
public final class MeteredSavepointStorage implements SavepointStorage {

    private final SavepointStorage delegate;
    private final Progress progress;

    /** Counts the payload bytes read from {@code delegate} into {@code progress}. */
    public MeteredSavepointStorage(SavepointStorage delegate, Progress progress) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.progress = Objects.requireNonNull(progress, "progress");
    }

    @Override
    public InputStream openPayload(SavepointHandle handle, ManifestEntry entry) {
        return new Metered(delegate.openPayload(handle, entry), progress);
    }

    /** Counts what passes; forwards kept reads and discards, so the stream under it still hashes in parallel. */
    private static final class Metered extends FilterInputStream implements KeptArrayInput {
        private final Progress progress;

        Metered(InputStream in, Progress progress) {
            super(in);
            this.progress = progress;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                progress.advance(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            return counted(super.read(buffer, offset, length));
        }

        @Override
        public int readKept(byte[] buffer, int offset, int length) throws IOException {
            return counted(in instanceof KeptArrayInput kept ? kept.readKept(buffer, offset, length)
                    : in.read(buffer, offset, length));
        }

        @Override
        public long discard(long n) throws IOException {
            long discarded = in instanceof KeptArrayInput kept ? kept.discard(n) : in.skip(n);
            progress.advance(discarded);
            return discarded;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            progress.advance(skipped);
            return skipped;
        }

        private int counted(int n) {
            if (n > 0) {
                progress.advance(n);
            }
            return n;
        }
    }

    @Override
    public int periodicMaxRetained() {
        return delegate.periodicMaxRetained();
    }

    @Override
    public String savepointRoot() {
        return delegate.savepointRoot();
    }

    @Override
    public SavepointStorage withSavepointRoot(String root) {
        return new MeteredSavepointStorage(delegate.withSavepointRoot(root), progress);
    }

    @Override
    public SavepointWriter beginSavepoint(SavepointRequest request) {
        return delegate.beginSavepoint(request);
    }

    @Override
    public List<SavepointHandle> listSavepoints(String jobId) {
        return delegate.listSavepoints(jobId);
    }

    @Override
    public List<SavepointEntry> scanSavepoints(String jobId) {
        return delegate.scanSavepoints(jobId);
    }

    @Override
    public List<SavepointHint> hintSavepoints(String jobId) {
        return delegate.hintSavepoints(jobId);
    }

    @Override
    public List<String> listJobs() {
        return delegate.listJobs();
    }

    @Override
    public SavepointHandle readMetadata(String jobId, String savepointId) {
        return delegate.readMetadata(jobId, savepointId);
    }

    @Override
    public SavepointContent readSavepoint(String jobId, String savepointId) {
        return delegate.readSavepoint(jobId, savepointId);
    }

    @Override
    public void deleteSavepoint(String jobId, String savepointId) {
        delegate.deleteSavepoint(jobId, savepointId);
    }

    @Override
    public int deleteSavepoints(String jobId) {
        return delegate.deleteSavepoints(jobId);
    }

    @Override
    public List<GcCandidate> planGarbage(Duration olderThan) {
        return delegate.planGarbage(olderThan);
    }

    @Override
    public GcReport collectGarbage(Duration olderThan) {
        return delegate.collectGarbage(olderThan);
    }
}
