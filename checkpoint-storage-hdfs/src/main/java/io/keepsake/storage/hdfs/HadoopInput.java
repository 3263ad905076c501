package io.keepsake.storage.hdfs;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import static io.keepsake.storage.hdfs.HdfsErrors.naming;
import static io.keepsake.storage.hdfs.HdfsErrors.namingCount;

/** A Hadoop input stream whose errors name the file. */
final class HadoopInput extends FilterInputStream {
    private final String path;

    HadoopInput(InputStream in, String path) {
        super(in);
        this.path = path;
    }

    @Override
    public int read() throws IOException {
        return (int) namingCount(path, in::read);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return (int) namingCount(path, () -> in.read(b, off, len));
    }

    @Override
    public long skip(long n) throws IOException {
        return namingCount(path, () -> in.skip(n));
    }

    @Override
    public int available() throws IOException {
        return (int) namingCount(path, in::available);
    }

    @Override
    public void close() throws IOException {
        naming(path, in::close);
    }
}
