package io.keepsake.tool;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.fs.InMemoryFileSystem;
import io.keepsake.storage.DeletionReport;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deleting a savepoint whose metadata was damaged on a file system without directory rename
 * (create-if-absent publication, as on an object store): one delete removes the metadata and the
 * payloads of the attempt that wrote it, and the report names each path and the file it kept.
 */
class DeletionReportObjectStoreTest {

    @Test
    void aDamagedSavepointGoesWholeInOneDeleteAndTheReportNamesEveryPath() throws Exception {
        InMemoryFileSystem fs = InMemoryFileSystem.withoutDirectoryRename();
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, "/ns", null)) {
            SavepointHandle sp = commit(storage);
            List<String> written = fs.list(sp.location()).stream().map(FileStatus::path).sorted().toList();
            assertThat(written).hasSize(3);
            String metadata = sp.location() + "/_metadata.ser";
            byte[] bytes;
            try (InputStream in = fs.open(metadata)) {
                bytes = in.readAllBytes();
            }
            bytes[bytes.length / 2] ^= 1;
            fs.delete(metadata, false);
            try (SyncableOutputStream out = fs.create(metadata, true)) {
                out.write(bytes);
                out.sync();
            }
            try (SyncableOutputStream out = fs.create(sp.location() + "/notes.txt", true)) {
                out.write(1);
                out.sync();
            }

            DeletionReport report = storage.deleteSavepointReporting(ToolRun.JOB, sp.savepointId());

            assertThat(report.deleted()).containsAll(written);
            assertThat(report.deleted()).allMatch(p -> written.contains(p) || p.contains("/.index/"));
            assertThat(report.kept()).containsExactlyInAnyOrder(
                    sp.location() + "/notes.txt: Keepsake did not write it",
                    sp.location() + ": it still holds the entries kept in it");
            assertThat(report.failed()).isEmpty();
            assertThat(fs.list(sp.location())).extracting(FileStatus::name).containsExactly("notes.txt");
        }
    }

    private static SavepointHandle commit(KeepsakeStorage storage) throws Exception {
        List<Integer> pipelines = List.of(1, 2);
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, ToolRun.JOB, pipelines).open()) {
            for (CompletedCheckpoint cp : ToolRun.state(6, pipelines).values()) {
                session.report(cp);
                session.pipelineSuspended(cp.pipelineId());
            }
            return session.commit();
        }
    }
}
