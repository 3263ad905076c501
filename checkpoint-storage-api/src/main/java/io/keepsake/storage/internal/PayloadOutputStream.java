package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.util.function.BiConsumer;

/**
 * One payload on its way into a staged savepoint: hashed (as its format version records it: the
 * file's SHA-256, or its chunk digests) and counted as it passes.
 * {@link #close} flushes it, hands its manifest entry (or null, when a write failed) to the
 * writer and hands "sync, then close" of the file to the attempt's {@link PayloadSyncs}, so the
 * payloads of a savepoint are synced in parallel off the writer's thread; the commit waits for
 * every one of those syncs before it publishes, and a failed one fails the commit. It adds no
 * buffer of its own: the encoder's one buffer (see {@code CheckpointWireCodec}) hands it large
 * writes, so bytes are copied once before the file system. A write after close or after a failed
 * write fails. {@link #abandon} closes the file at once, without a sync or a manifest entry.
 * Not thread-safe: one thread writes one payload.
 */
final class PayloadOutputStream extends FilterOutputStream {

    private final SyncableOutputStream raw;
    private final HashingOutputStream hashing;
    private final int pipelineId;
    private final long checkpointId;
    private final String file;
    private final String path;
    private final BiConsumer<PayloadOutputStream, ManifestEntry> onClose;
    private final PayloadSyncs syncs;
    private boolean closed;
    private boolean failed;

    PayloadOutputStream(SyncableOutputStream raw, PayloadDigest digest, int pipelineId, long checkpointId, String file,
                        String path, PayloadSyncs syncs, BiConsumer<PayloadOutputStream, ManifestEntry> onClose) {
        super(new HashingOutputStream(raw, digest));
        this.raw = raw;
        this.hashing = (HashingOutputStream) out;
        this.pipelineId = pipelineId;
        this.checkpointId = checkpointId;
        this.file = file;
        this.path = path;
        this.onClose = onClose;
        this.syncs = syncs;
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

    /** Closes the file at once, without syncing it or recording an entry, when the attempt is aborted under it. */
    void abandon() {
        failed = true;
        try {
            close();
        } catch (IOException | RuntimeException e) {
            // the attempt is being thrown away; the file goes with it
        }
    }

    /**
     * Flushes the payload, records its manifest entry and queues its sync and close (a failed
     * payload is closed at once, without an entry); a sync that fails later fails the commit.
     *
     * @throws IOException when the last bytes cannot be flushed (the file is closed, no entry is recorded)
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        ManifestEntry entry = null;
        try {
            if (failed) {
                raw.close();
            } else {
                hashing.flush();
                String digest = hashing.sha256Hex();
                ManifestEntry finished = new ManifestEntry(pipelineId, checkpointId, file, hashing.length(), digest,
                        hashing.chunks());
                syncs.submit(path, raw);
                entry = finished;
            }
        } catch (IOException | RuntimeException e) {
            try {
                raw.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            onClose.accept(this, entry);
        }
    }
}
