package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * One payload on its way into a staged savepoint: gathered into large writes, hashed (SHA-256)
 * and counted as it passes, synced and closed on {@link #close}, which hands its manifest entry
 * (or null, when a write failed) to the writer. A write after close or after a failed write
 * fails. Not thread-safe: one thread writes one payload.
 */
final class PayloadOutputStream extends FilterOutputStream {

    /** Payload writes are gathered into chunks of this size before they reach the file system. */
    static final int BUFFER_BYTES = 64 * 1024;

    private final SyncableOutputStream raw;
    private final HashingOutputStream hashing;
    private final int pipelineId;
    private final long checkpointId;
    private final String file;
    private final String path;
    private final Consumer<ManifestEntry> onClose;
    private boolean closed;
    private boolean failed;

    PayloadOutputStream(SyncableOutputStream raw, int pipelineId, long checkpointId, String file, String path,
                        Consumer<ManifestEntry> onClose) {
        super(new HashingOutputStream(new BufferedOutputStream(raw, BUFFER_BYTES)));
        this.raw = raw;
        this.hashing = (HashingOutputStream) out;
        this.pipelineId = pipelineId;
        this.checkpointId = checkpointId;
        this.file = file;
        this.path = path;
        this.onClose = onClose;
    }

    @Override
    public void write(int b) throws IOException {
        requireWritable();
        failed = true;
        hashing.write(b);
        failed = false;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        requireWritable();
        failed = true;
        hashing.write(b, off, len);
        failed = false;
    }

    @Override
    public void flush() throws IOException {
        requireWritable();
        failed = true;
        hashing.flush();
        failed = false;
    }

    private void requireWritable() throws IOException {
        if (closed) {
            throw new IOException("Payload stream is closed (" + path + ")");
        }
        if (failed) {
            throw new IOException("An earlier write of this payload failed (" + path + ")");
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        ManifestEntry entry = null;
        try {
            if (!failed) {
                hashing.flush();
                raw.sync();
            }
            raw.close();
            if (!failed) {
                entry = new ManifestEntry(pipelineId, checkpointId, file, hashing.length(), hashing.sha256Hex());
            }
        } catch (IOException | RuntimeException e) {
            try {
                raw.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            onClose.accept(entry);
        }
    }
}
