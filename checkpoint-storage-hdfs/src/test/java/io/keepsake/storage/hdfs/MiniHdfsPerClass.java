package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.PerClassResource;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;

/**
 * One in-process {@link MiniHdfs} cluster for a test class, its data in a folder named after the
 * class: {@code @RegisterExtension static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();}
 * starts it before the class and shuts it down after, with the shared file system it handed out.
 */
final class MiniHdfsPerClass extends PerClassResource<MiniHdfs> {

    @Override
    protected MiniHdfs start(Class<?> testClass) throws IOException {
        return MiniHdfs.start(testClass);
    }

    /** One file system on the cluster for the whole class; storages opened on it never close it. */
    HdfsFileSystem fs() {
        return shared("file system", () -> {
            try {
                return running().newFileSystem();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot open a file system on " + running().uri(), e);
            }
        });
    }

    /** See {@link MiniHdfs#uri()}. */
    URI uri() {
        return running().uri();
    }

    /** See {@link MiniHdfs#clientConfiguration()}. */
    Configuration clientConfiguration() {
        return running().clientConfiguration();
    }

    /** A new file system on the cluster, which the caller closes. */
    HdfsFileSystem newFileSystem() throws IOException {
        return running().newFileSystem();
    }

    /** See {@link MiniHdfs#superuser()}. */
    FileSystem superuser() throws IOException {
        return running().superuser();
    }

    /** See {@link MiniHdfs#freshDirectory(String)}. */
    String freshDirectory(String prefix) {
        return running().freshDirectory(prefix);
    }

    /** See {@link MiniHdfs#factoryKeys(String)}. */
    Map<String, String> factoryKeys(String namespace) {
        return running().factoryKeys(namespace);
    }
}
