package io.keepsake.storage.hdfs;

import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** A local file channel as a syncable stream: {@code sync()} is an fsync. */
final class LocalChannelOutput extends SyncableOutputStream {
    private final FileChannel channel;

    LocalChannelOutput(FileChannel channel) {
        this.channel = channel;
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

    @Override
    public void sync() throws IOException {
        channel.force(true);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
