package io.keepsake.storage.hdfs;

import java.io.InputStream;

/**
 * {@link MiniHdfs} as a process of its own, for tests in other modules whose class path must not hold
 * Hadoop 3.4's server side (the SeaTunnel plugin's holds the engine's Hadoop 3.1.4 client): prints
 * {@code NAMENODE <uri>} on one line once the NameNode and its DataNode are up, then serves until its
 * standard input ends. The class path to start it with is in this module's
 * {@code target/minihdfs-classpath.txt} (written by the build) plus its test and main classes; its
 * files go below {@code target/minidfs/} of the working directory.
 */
public final class MiniHdfsMain {

    private MiniHdfsMain() {
    }

    public static void main(String[] args) throws Exception {
        try (MiniHdfs hdfs = MiniHdfs.start(MiniHdfsMain.class)) {
            System.out.println("NAMENODE " + hdfs.uri());
            System.out.flush();
            InputStream in = System.in;
            while (in.read() >= 0) {
                // Serve until the parent closes our standard input (or dies, which closes it too).
            }
        }
    }
}
