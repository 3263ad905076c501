package io.keepsake.storage.hdfs;

import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.StreamCapabilities;

import java.io.IOException;

import static io.keepsake.storage.hdfs.HdfsErrors.naming;

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
        naming(path, () -> out.write(b));
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        naming(path, () -> out.write(b, off, len));
    }

    @Override
    public void flush() throws IOException {
        naming(path, out::flush);
    }

    @Override
    public void sync() throws IOException {
        naming(path, hsync ? out::hsync : out::flush);
    }

    @Override
    public void close() throws IOException {
        naming(path, out::close);
    }
}
