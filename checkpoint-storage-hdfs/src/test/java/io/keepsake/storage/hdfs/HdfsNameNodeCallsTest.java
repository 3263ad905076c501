package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.faults.CallCountingFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.internal.ComposedStorage;
import io.keepsake.storage.internal.InFlightAttempts;
import io.keepsake.storage.internal.NewestMarkers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

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

    @Test
    void aSavepointCostsAConstantPlusAConstantPerFile() throws IOException {
        int[] pipelines = {1, 2, 4, 8};
        int[] totals = new int[pipelines.length];
        String root = hdfs.freshDirectory("calls");
        try (HdfsFileSystem raw = hdfs.newFileSystem()) {
            // every thread counts (a payload's sync and close run on the sync pool or, when still
            // queued at commit, on the committing thread) but the lease renewer's and the tidying's,
            // which run on their own schedule, not the commit's
            CallCountingFileSystem fs = new CallCountingFileSystem(raw, CallCountingFileSystem.exceptThreads(
                    InFlightAttempts.RENEWER_THREAD_NAME, InFlightAttempts.TIDYING_THREAD_NAME,
                    NewestMarkers.TIDY_THREAD_NAME));
            try (KeepsakeStorage storage = KeepsakeStorage.open(fs, root + "/ns", null)) {
                commit(storage, "warm-up", 1);
                for (int i = 0; i < pipelines.length; i++) {
                    ((ComposedStorage) storage).awaitTidying();
                    fs.reset();
                    commit(storage, "sp-" + pipelines[i], pipelines[i]);
                    totals[i] = (int) fs.total();
                    System.out.println("HDFS savepoint of " + pipelines[i] + " file(s): " + totals[i]
                            + " file-system calls " + fs.counts());
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
