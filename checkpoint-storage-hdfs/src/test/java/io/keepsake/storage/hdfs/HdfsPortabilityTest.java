package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.Fixtures;
import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointContent;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.internal.LegacyCheckpointFiles;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.keepsake.fixtures.tck.PayloadBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data that moves: a savepoint directory copied between a local disk and HDFS (either way)
 * reads and verifies where it lands, and the legacy checkpoint files SeaTunnel 2.3.8 wrote read
 * from HDFS exactly as they read from a local disk.
 */
class HdfsPortabilityTest {

    @RegisterExtension
    static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();

    @RegisterExtension
    static final RawLocalPerClass local = new RawLocalPerClass();

    @TempDir
    java.nio.file.Path temp;

    private KeepsakeStorage onHdfs;
    private String hdfsNamespace;

    @BeforeEach
    void openStorageOnHdfs() {
        hdfsNamespace = hdfs.fs().normalizeRoot(hdfs.freshDirectory("/portability"));
        onHdfs = KeepsakeStorage.open(new ForwardingFileSystem(hdfs.fs()), hdfsNamespace, null, 0);
    }

    @AfterEach
    void closeStorageOnHdfs() {
        onHdfs.close();
    }

    private static Map<Integer, byte[]> payloads() {
        Map<Integer, byte[]> m = new LinkedHashMap<>();
        m.put(1, bytes(1, 1_000));
        m.put(2, new byte[0]);
        m.put(3, bytes(3, 200_000));
        return m;
    }

    private static SavepointHandle commit(KeepsakeStorage s, String jobId, String savepointId) {
        try (SavepointWriter w = s.beginSavepoint(new SavepointRequest(jobId, savepointId, SavepointKind.MANUAL, "test",
                "test-payload", 1_000L, Map.of("written-on", s.savepointRoot())))) {
            for (Map.Entry<Integer, byte[]> p : payloads().entrySet()) {
                try (OutputStream out = w.openPayload(p.getKey(), 40L + p.getKey())) {
                    out.write(p.getValue());
                }
            }
            return w.commit(2_000L);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertSameSavepoint(SavepointContent read, SavepointContent original) {
        assertThat(read.handle().meta()).isEqualTo(original.handle().meta());
        assertThat(read.payloads().keySet()).containsExactlyElementsOf(original.payloads().keySet());
        original.payloads().forEach((file, b) -> assertThat(read.payloads().get(file)).as(file).isEqualTo(b));
        payloads().forEach((pid, b) -> assertThat(read.payloadOfPipeline(pid)).as("pipeline " + pid).isEqualTo(b));
    }

    @Test
    void aSavepointWrittenOnALocalDiskReadsOnHdfsAfterCopyingItsDirectory() throws Exception {
        SavepointContent original;
        java.nio.file.Path localDir;
        try (KeepsakeStorage local = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), temp.resolve("ns").toString(), null)) {
            SavepointHandle h = commit(local, "1001", "sp-local");
            original = local.readSavepoint("1001", "sp-local");
            localDir = java.nio.file.Path.of(h.location());
        }
        FileSystem su = hdfs.superuser();
        Path hdfsJobDir = new Path((onHdfs.savepointRoot() + "/" + "1001"));
        su.mkdirs(hdfsJobDir);
        su.copyFromLocalFile(new Path(localDir.toUri()), hdfsJobDir);

        assertThat(onHdfs.listSavepoints("1001")).extracting(SavepointHandle::savepointId).containsExactly("sp-local");
        SavepointContent read = onHdfs.readSavepoint("1001", "sp-local");
        assertThat(read.handle().location()).isEqualTo((onHdfs.savepointRoot() + "/" + "1001" + "/" + "sp-local")).startsWith("hdfs://");
        assertSameSavepoint(read, original);
    }

    @Test
    void aSavepointWrittenOnHdfsReadsOnALocalDiskAfterCopyingItsDirectory() throws Exception {
        SavepointHandle h = commit(onHdfs, "1001", "sp-hdfs");
        SavepointContent original = onHdfs.readSavepoint("1001", "sp-hdfs");
        java.nio.file.Path localJobDir = temp.resolve("ns").resolve("savepoint").resolve("1001");
        java.nio.file.Files.createDirectories(localJobDir);
        hdfs.superuser().copyToLocalFile(false, new Path(h.location()), new Path(localJobDir.toUri()), true);

        try (KeepsakeStorage local = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), temp.resolve("ns").toString(), null)) {
            assertThat(local.listSavepoints("1001")).extracting(SavepointHandle::savepointId).containsExactly("sp-hdfs");
            assertSameSavepoint(local.readSavepoint("1001", "sp-hdfs"), original);
        }
    }

    @Test
    void legacyCheckpointsOfSeaTunnel238ReadFromHdfsAsFromALocalDisk() throws Exception {
        List<String> jobs = Fixtures.legacyV0Jobs();
        assertThat(jobs).isNotEmpty();
        java.nio.file.Path localNamespace = temp.resolve("legacy");
        FileSystem su = hdfs.superuser();
        su.mkdirs(new Path(hdfsNamespace));
        try (KeepsakeStorage onDisk = KeepsakeStorage.open(new ForwardingFileSystem(local.fs()), local.fs().normalizeRoot(localNamespace.toString()), null, 0)) {
            for (String job : jobs) {
                java.nio.file.Path localJob = Fixtures.copyLegacyJob(job, localNamespace);
                su.copyFromLocalFile(new Path(localJob.toUri()), new Path(hdfsNamespace));
                List<LegacyCheckpointFiles.Name> files = Fixtures.legacyV0Files(job).stream()
                        .map(f -> LegacyCheckpointFiles.parse(f).orElseThrow())
                        .sorted(Comparator.comparingInt(LegacyCheckpointFiles.Name::pipelineId)
                                .thenComparingLong(LegacyCheckpointFiles.Name::checkpointId))
                        .toList();
                Map<Integer, Long> latest = new TreeMap<>();
                files.forEach(n -> latest.merge(n.pipelineId(), n.checkpointId(), Math::max));

                List<PipelineState> all = onHdfs.getAllCheckpoints(job);
                assertThat(all).as("job " + job).hasSize(files.size());
                assertThat(all).extracting(PipelineState::pipelineId, PipelineState::checkpointId).as("job " + job)
                        .containsExactlyElementsOf(files.stream()
                                .map(n -> org.assertj.core.groups.Tuple.tuple(n.pipelineId(), n.checkpointId())).toList());
                assertThat(all).extracting(PipelineState::jobId).containsOnly(job);
                assertThat(all).allSatisfy(s -> assertThat(s.states()).isNotEmpty());
                assertThat(all).as("job " + job + ", HDFS vs local disk").isEqualTo(onDisk.getAllCheckpoints(job));
                assertThat(all.stream().map(s -> s.states().length).toList())
                        .isEqualTo(onDisk.getAllCheckpoints(job).stream().map(s -> s.states().length).toList());

                List<PipelineState> newest = onHdfs.getLatestCheckpoint(job);
                Map<Integer, Long> newestIds = new TreeMap<>();
                newest.forEach(s -> newestIds.put(s.pipelineId(), s.checkpointId()));
                assertThat(newest).as("job " + job).hasSize(latest.size());
                assertThat(newestIds).as("job " + job).isEqualTo(latest);
                assertThat(newest).containsExactlyInAnyOrderElementsOf(onDisk.getLatestCheckpoint(job));
                for (LegacyCheckpointFiles.Name n : files) {
                    assertThat(onHdfs.getCheckpoint(job, String.valueOf(n.pipelineId()), String.valueOf(n.checkpointId())))
                            .isEqualTo(onDisk.getCheckpoint(job, String.valueOf(n.pipelineId()),
                                    String.valueOf(n.checkpointId())));
                }
            }
        }
    }
}
