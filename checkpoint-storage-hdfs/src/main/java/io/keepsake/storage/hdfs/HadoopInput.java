package io.keepsake.storage.hdfs;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import static io.keepsake.storage.hdfs.HdfsErrors.named;

/** A Hadoop input stream whose errors name the file. */
final class HadoopInput extends FilterInputStream {
    private final String path;

    HadoopInput(InputStream in, String path) {
        super(in);
        this.path = path;
    }

    @Override
    public int read() throws IOException {
        try {
            return in.read();
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        try {
            return in.read(b, off, len);
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public long skip(long n) throws IOException {
        try {
            return in.skip(n);
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public int available() throws IOException {
        try {
            return in.available();
        } catch (IOException e) {
            throw named(e, path);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            in.close();
        } catch (IOException e) {
            throw named(e, path);
        }
    }
}
