package io.keepsake.storage.spi.localdisk;

import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A file on the local disk written through its channel: every write goes to the channel whole,
 * {@link #sync()} is an {@code fsync} of the file, data and metadata, and {@link #close()} closes
 * the channel. A subclass may add to a write or a sync (such as starting writeback early) and
 * calls up for the channel's part. One thread at a time.
 */
public class ChannelOutputStream extends SyncableOutputStream {

    private final FileChannel channel;

    /** A stream writing through {@code channel}, which it closes. */
    public ChannelOutputStream(FileChannel channel) {
        this.channel = channel;
    }

    /** The channel the file is written through; this stream owns it and closes it. */
    protected final FileChannel channel() {
        return channel;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(b, off, len);
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
    }

    /** Forces every byte written so far, and the file's metadata, to the disk. */
    @Override
    public void sync() throws IOException {
        channel.force(true);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
