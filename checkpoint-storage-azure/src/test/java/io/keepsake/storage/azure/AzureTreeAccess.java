package io.keepsake.storage.azure;

import io.keepsake.fixtures.tck.LocalTreeAccess;
import io.keepsake.fixtures.tck.TreeAccess;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/** {@link TreeAccess} on Azurite through a file system of its own, behind the storage's back. */
final class AzureTreeAccess implements TreeAccess {

    private final AzureFileSystem fs;

    AzureTreeAccess(AzureFileSystem fs) {
        this.fs = fs;
    }

    @Override
    public void write(String path, byte[] content) throws IOException {
        try (SyncableOutputStream out = fs.create(path, false)) {
            out.write(content);
            out.sync();
        }
    }

    @Override
    public void mkdirs(String path) throws IOException {
        fs.mkdirs(path);
    }

    @Override
    public boolean exists(String path) throws IOException {
        return fs.stat(path).isPresent();
    }

    @Override
    public List<String> list(String dir) throws IOException {
        return fs.listNames(dir);
    }

    @Override
    public boolean delete(String path) throws IOException {
        return fs.delete(path, false);
    }

    @Override
    public SortedMap<String, String> snapshot(String dir) throws IOException {
        SortedMap<String, String> out = new TreeMap<>();
        walk(dir, "", out);
        return out;
    }

    private void walk(String dir, String prefix, SortedMap<String, String> out) throws IOException {
        for (FileStatus s : fs.list(dir)) {
            String rel = prefix + s.name();
            if (s.directory()) {
                out.put(rel, "dir");
                walk(s.path(), rel + "/", out);
            } else {
                byte[] bytes;
                try (InputStream in = fs.open(s.path())) {
                    bytes = in.readAllBytes();
                } catch (NoSuchFileException e) {
                    continue;
                }
                out.put(rel, bytes.length + " " + LocalTreeAccess.sha256(bytes));
            }
        }
    }
}
