package io.keepsake.storage.hdfs;

import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.StreamCapabilities;

import java.io.IOException;

import static io.keepsake.storage.hdfs.HdfsErrors.named;

/** A Hadoop output stream as a syncable stream: hsync where the stream has it, else flush. */
final class HadoopOutput extends SyncableOutputStream {
    private final FSDataOutputStream out;
    private final String path;
    private final boolean hsync;

    HadoopOutput(FSDataOutputStream out, String path) {
        this.out = out;
        this.path = path;
        this.hsync = out.hasCapability(StreamCapabilities.HSYNC);
    }

    @Override
    public void write(int b) throws IOException {
        try {
            out.write(b);
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public void flush() throws IOException {
        try {
            out.flush();
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public void sync() throws IOException {
        try {
            if (hsync) {
                out.hsync();
            } else {
                out.flush();
            }
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            out.close();
        } catch (IOException e) {
            throw named(e, path);
        }
    }
}
