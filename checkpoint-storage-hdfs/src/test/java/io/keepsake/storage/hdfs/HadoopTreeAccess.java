package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.LocalTreeAccess;
import io.keepsake.fixtures.tck.TreeAccess;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@link TreeAccess} on a cluster through a Hadoop client of its own (the superuser's), behind the
 * storage's back. Deletion is prevented with an HDFS snapshot: a snapshottable directory that has
 * a snapshot cannot be deleted.
 */
final class HadoopTreeAccess implements TreeAccess {

    private final FileSystem fs;

    HadoopTreeAccess(FileSystem fs) {
        this.fs = fs;
    }

    @Override
    public void write(String path, byte[] content) throws IOException {
        try (FSDataOutputStream out = fs.create(new Path(path), true)) {
            out.write(content);
        }
    }

    @Override
    public void mkdirs(String path) throws IOException {
        fs.mkdirs(new Path(path));
    }

    @Override
    public boolean exists(String path) throws IOException {
        return fs.exists(new Path(path));
    }

    @Override
    public java.util.List<String> list(String dir) throws IOException {
        java.util.List<String> out = new java.util.ArrayList<>();
        try {
            for (FileStatus s : fs.listStatus(new Path(dir))) {
                out.add(s.getPath().getName());
            }
        } catch (FileNotFoundException e) {
            return java.util.List.of();
        }
        return out;
    }

    @Override
    public boolean delete(String path) throws IOException {
        return fs.delete(new Path(path), false);
    }

    @Override
    public boolean setModificationTime(String path, java.time.Instant time) throws IOException {
        try {
            fs.setTimes(new Path(path), time.toEpochMilli(), -1);
            return true;
        } catch (FileNotFoundException e) {
            return false;
        }
    }

    @Override
    public SortedMap<String, String> snapshot(String dir) throws IOException {
        SortedMap<String, String> out = new TreeMap<>();
        walk(new Path(dir), "", out);
        return out;
    }

    private void walk(Path dir, String prefix, SortedMap<String, String> out) throws IOException {
        FileStatus[] children;
        try {
            children = fs.listStatus(dir);
        } catch (FileNotFoundException e) {
            return;
        }
        for (FileStatus s : children) {
            String rel = prefix + s.getPath().getName();
            if (s.isDirectory()) {
                out.put(rel, "dir");
                walk(s.getPath(), rel + "/", out);
            } else {
                byte[] bytes;
                try (FSDataInputStream in = fs.open(s.getPath())) {
                    bytes = in.readAllBytes();
                } catch (FileNotFoundException e) {
                    continue;
                }
                out.put(rel, bytes.length + " " + LocalTreeAccess.sha256(bytes));
            }
        }
    }

    @Override
    public AutoCloseable preventDeletion(String dir) throws IOException {
        if (!(fs instanceof DistributedFileSystem dfs)) {
            throw new UnsupportedOperationException("Cannot prevent deletion without HDFS snapshots (" + dir + ")");
        }
        Path p = new Path(dir);
        dfs.allowSnapshot(p);
        dfs.createSnapshot(p, "keep");
        return () -> {
            dfs.deleteSnapshot(p, "keep");
            dfs.disallowSnapshot(p);
        };
    }
}
