package io.keepsake.storage.spi.objectstore;

import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * One object on its way to an object store: bytes gather in one buffer of at most a block (it
 * starts small and doubles); a full buffer is handed to {@link #stageBlock}, and {@link #sync()}
 * publishes the object: {@link #putWhole} when no block was staged, else the last block and
 * {@link #commitBlocks}. Nothing can be written after that, nor after a failed request. A stream
 * closed without a successful {@code sync()} calls {@link #abandon()}. The object carries a random
 * {@link #writeId} as metadata, so that a publishing request whose response was lost, retried or
 * not, can tell its own object from another writer's ({@link #isOurs()}). The subclass supplies the
 * store's requests; a request that fails and is not success after all calls {@link #markFailed()}
 * or throws. Not thread-safe: one thread writes one object.
 */
public abstract class BlockBufferingOutputStream extends SyncableOutputStream {

    private static final Logger LOG = LoggerFactory.getLogger(BlockBufferingOutputStream.class);

    private static final int FIRST_BUFFER = 64 << 10;

    /** The file's path, as messages name it. */
    protected final String path;
    /** True when the publishing request must create the object ({@code If-None-Match: *}). */
    protected final boolean conditional;
    /** The random id this stream's object carries as metadata. */
    protected final String writeId = UUID.randomUUID().toString();
    private final int blockSize;
    private final String publishedNote;
    private final String failedNote;
    private byte[] buffer;
    private int count;
    private int blocks;
    private boolean published;
    private boolean failed;
    private boolean closed;

    /**
     * A stream of blocks of {@code blockSize} bytes.
     *
     * @param path          the file's path, as messages name it
     * @param conditional   true when the publishing request must create the object
     * @param blockSize     the bytes of every staged block but the last
     * @param publishedNote why a write after {@code sync()} is refused, for its message
     * @param failedNote    why a write after a failed request is refused, for its message
     */
    protected BlockBufferingOutputStream(String path, boolean conditional, int blockSize, String publishedNote,
                                         String failedNote) {
        this.path = path;
        this.conditional = conditional;
        this.blockSize = blockSize;
        this.publishedNote = publishedNote;
        this.failedNote = failedNote;
        this.buffer = new byte[Math.min(FIRST_BUFFER, blockSize)];
    }

    /**
     * Sends the first {@code length} bytes of {@code bytes} as block number {@code index} (from 0).
     * The array is reused once this returns.
     */
    protected abstract void stageBlock(byte[] bytes, int length, int index) throws IOException;

    /** Publishes the first {@code length} bytes of {@code bytes} as the whole object in one request. */
    protected abstract void putWhole(byte[] bytes, int length) throws IOException;

    /** Publishes the object from the blocks staged so far. */
    protected abstract void commitBlocks() throws IOException;

    /** Called once when the stream closes unpublished; does nothing unless the store keeps something to undo. */
    protected void abandon() {
    }

    /** True when the object at the path carries this stream's {@link #writeId}: a publishing request took effect. */
    protected abstract boolean isOurs() throws IOException;

    /**
     * After a publishing request failed with {@code error}: returns when the object is ours after
     * all (the request took effect), else refuses every later write and throws {@code failure}.
     */
    protected final void failUnlessOurs(IOException failure, Throwable error) throws IOException {
        try {
            if (isOurs()) {
                LOG.debug("Create of {} reported an error but took effect", path, error);
                return;
            }
        } catch (IOException unreadable) {
            failure.addSuppressed(unreadable);
        }
        markFailed();
        throw failure;
    }

    /** Refuses every later write: a request of this stream failed. */
    protected final void markFailed() {
        failed = true;
    }

    @Override
    public final void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public final void write(byte[] b, int off, int len) throws IOException {
        requireWritable();
        Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            if (count == buffer.length && buffer.length < blockSize) {
                buffer = Arrays.copyOf(buffer, (int) Math.min(blockSize, (long) buffer.length * 2));
            }
            int n = Math.min(len, buffer.length - count);
            System.arraycopy(b, off, buffer, count, n);
            count += n;
            off += n;
            len -= n;
            if (count == blockSize) {
                stage();
            }
        }
    }

    /**
     * Publishes the object with every byte written so far; a second call does nothing.
     *
     * @throws java.nio.file.FileAlreadyExistsException when the file must be created and another writer
     *                                                  created it first
     */
    @Override
    public final void sync() throws IOException {
        if (published) {
            return;
        }
        requireWritable();
        try {
            if (blocks == 0) {
                putWhole(buffer, count);
            } else {
                if (count > 0) {
                    stage();
                }
                commitBlocks();
            }
            published = true;
        } catch (IOException | RuntimeException e) {
            failed = true;
            throw e;
        } finally {
            buffer = null;
        }
    }

    @Override
    public final void flush() throws IOException {
        requireWritable();
    }

    /** Releases the stream; an object not published by {@link #sync()} is {@linkplain #abandon() abandoned}. */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!published) {
            abandon();
        }
        buffer = null;
    }

    private void stage() throws IOException {
        try {
            stageBlock(buffer, count, blocks);
        } catch (IOException | RuntimeException e) {
            failed = true;
            throw e;
        }
        blocks++;
        count = 0;
    }

    private void requireWritable() throws IOException {
        if (published) {
            throw new IOException("Cannot write " + path + ": " + publishedNote);
        }
        if (closed) {
            throw new IOException("Cannot write " + path + ": the stream is closed");
        }
        if (failed) {
            throw new IOException("Cannot write " + path + ": " + failedNote);
        }
    }
}
