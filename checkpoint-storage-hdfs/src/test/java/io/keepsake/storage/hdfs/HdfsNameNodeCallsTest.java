package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.faults.ForwardingOutputStream;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.internal.InFlightAttempts;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The file-system calls (each one or a few NameNode RPCs) a savepoint costs on the mini cluster
 * are a constant plus a constant per payload file: counted through a wrapper around the HDFS
 * primitive file system, for savepoints of 1, 2, 4 and 8 pipelines, on every thread but the lease
 * renewer's and the storage's tidying after a commit.
 */
class HdfsNameNodeCallsTest {

    @RegisterExtension
    static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();

    /**
     * Counts the primitive calls (stream syncs and closes included) the protocol makes, on whatever
     * thread: a payload's sync and close run on the sync pool or, when still queued at commit, on
     * the committing thread, so counting one thread only would count what a busy machine moves
     * between them. The lease renewer's calls are left out: how often it runs during a save is time.
     */
    private static final class Counting extends ForwardingFileSystem {
        final Map<String, Integer> calls = java.util.Collections.synchronizedMap(new LinkedHashMap<>());

        Counting(StorageFileSystem delegate) {
            super(delegate);
        }

        private void count(String what) {
            String thread = Thread.currentThread().getName();
            // the lease renewer and the tidying after a commit run on their own schedule, not the commit's
            if (!thread.equals(InFlightAttempts.RENEWER_THREAD_NAME) && !thread.equals(InFlightAttempts.TIDYING_THREAD_NAME)
                    && !thread.equals(io.keepsake.storage.internal.NewestMarkers.TIDY_THREAD_NAME)) {
                calls.merge(what, 1, Integer::sum);
            }
        }

        int total() {
            synchronized (calls) {
                return calls.values().stream().mapToInt(Integer::intValue).sum();
            }
        }

        private SyncableOutputStream counting(SyncableOutputStream out) {
            return new ForwardingOutputStream(out) {
                @Override
                public void sync() throws IOException {
                    count("sync");
                    super.sync();
                }

                @Override
                public void close() throws IOException {
                    count("close");
                    super.close();
                }
            };
        }

        @Override
        public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
            count("create");
            return counting(super.create(path, mustCreate));
        }

        @Override
        public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
            count("create");
            return counting(super.createInExistingDirectory(path, mustCreate));
        }

        @Override
        public InputStream open(String path) throws IOException {
            count("open");
            return super.open(path);
        }

        @Override
        public List<FileStatus> list(String directory) throws IOException {
            count("list");
            return super.list(directory);
        }

        @Override
        public List<String> listNames(String directory) throws IOException {
            count("list");
            return super.listNames(directory);
        }

        @Override
        public Optional<FileStatus> stat(String path) throws IOException {
            count("stat");
            return super.stat(path);
        }

        @Override
        public void rename(String source, String target) throws IOException {
            count("rename");
            super.rename(source, target);
        }

        @Override
        public boolean delete(String path, boolean recursive) throws IOException {
            count("delete");
            return super.delete(path, recursive);
        }

        @Override
        public void mkdirs(String path) throws IOException {
            count("mkdirs");
            super.mkdirs(path);
        }

        @Override
        public void syncDirectory(String directory) throws IOException {
            count("syncDirectory");
            super.syncDirectory(directory);
        }
    }

    @Test
    void aSavepointCostsAConstantPlusAConstantPerFile() throws IOException {
        int[] pipelines = {1, 2, 4, 8};
        int[] totals = new int[pipelines.length];
        String root = hdfs.freshDirectory("calls");
        try (HdfsFileSystem raw = hdfs.newFileSystem()) {
            Counting fs = new Counting(raw);
            try (KeepsakeStorage storage = KeepsakeStorage.open(fs, root + "/ns", null)) {
                commit(storage, "warm-up", 1);
                for (int i = 0; i < pipelines.length; i++) {
                    ((io.keepsake.storage.internal.ComposedStorage) storage).awaitTidying();
                    fs.calls.clear();
                    commit(storage, "sp-" + pipelines[i], pipelines[i]);
                    totals[i] = fs.total();
                    System.out.println("HDFS savepoint of " + pipelines[i] + " file(s): " + totals[i]
                            + " file-system calls " + fs.calls);
                }
            }
        }
        int perFile = totals[1] - totals[0];
        int constant = totals[0] - perFile;
        System.out.println("HDFS savepoint file-system calls = " + constant + " + " + perFile + " per payload file");
        for (int i = 0; i < pipelines.length; i++) {
            assertThat(totals[i]).as("calls for %d payload files", pipelines[i])
                    .isEqualTo(constant + perFile * pipelines[i]);
        }
        assertThat(perFile).as("calls per payload file").isBetween(1, 4);
    }

    private static void commit(KeepsakeStorage storage, String savepointId, int pipelines) throws IOException {
        try (SavepointWriter writer = storage.beginSavepoint(new SavepointRequest("job", savepointId,
                SavepointKind.MANUAL, "test", "engine-wire-v1", 1_700_000_000_000L, Map.of()))) {
            for (int p = 1; p <= pipelines; p++) {
                try (OutputStream out = writer.openPayload(p, 7)) {
                    out.write(new byte[1000 + p]);
                }
            }
            writer.commit(1_700_000_000_100L);
        }
    }
}
