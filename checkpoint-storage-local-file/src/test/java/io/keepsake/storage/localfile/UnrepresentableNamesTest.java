package io.keepsake.storage.localfile;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.spi.FileStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * A directory entry whose name the JVM's file-name encoding cannot represent is
 * skipped by listings with a warning; it never fails the whole listing.
 */
class UnrepresentableNamesTest {

    @TempDir
    Path temp;

    /** Makes a directory whose name is given as raw bytes in printf's octal escapes, whatever the locale. */
    private static void mkdirRaw(Path parent, String octalName) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", "mkdir -p \"$1/$(printf '" + octalName + "')\"", "sh",
                parent.toString()).inheritIO().start();
        assertThat(p.waitFor()).isZero();
    }

    private Path populate() throws Exception {
        Path ns = temp.resolve("ns");
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), ns.toString(), null)) {
            try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest("ok-job", "sp-1", SavepointKind.MANUAL,
                    "t", "engine-wire-v1", 1L, Map.of()))) {
                try (OutputStream out = w.openPayload(1, 1)) {
                    out.write(1);
                }
                w.commit(2L);
            }
            storage.storeCheckPoint(new PipelineState("ok-job", 1, 1, new byte[] {1}));
        }
        Path spRoot = ns.resolve("savepoint");
        mkdirRaw(spRoot, "caf\\303\\251");          // "café" in UTF-8
        mkdirRaw(spRoot.resolve("ok-job"), "sp-caf\\303\\251");
        mkdirRaw(spRoot, "latin\\351");             // not valid UTF-8 at all
        return ns;
    }

    @Test
    void aUtf8NameUnderTheCLocaleIsSkippedAndTheRestIsListed() throws Exception {
        Path ns = populate();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ListJobsMain.class.getName(), ns.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("LC_") || k.equals("LANG") || k.equals("LANGUAGE"));
        builder.environment().put("LANG", "C");
        builder.environment().put("LC_ALL", "C");
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(out).doesNotContain("sun.jnu.encoding=UTF-8");
        assertThat(process.exitValue()).as(out).isZero();
        assertThat(out).contains("savepoint ok-job/sp-1").contains("checkpoints 1").contains("listed");
    }

    @Test
    void aNameThatIsNotValidInTheEncodingIsSkippedInProcess() throws Exception {
        assumeThat(System.getProperty("sun.jnu.encoding")).isNotEqualToIgnoringCase("ISO-8859-1");
        Path ns = populate();
        LocalFileSystem fs = new LocalFileSystem();
        String root = fs.normalizeRoot(ns.resolve("savepoint").toString());
        List<String> names = fs.list(root).stream().map(FileStatus::name).toList();
        assertThat(names).contains("ok-job").noneMatch(n -> n.startsWith("latin"));
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), ns.toString(), null)) {
            assertThat(storage.listJobs()).contains("ok-job");
            assertThat(storage.listSavepoints("ok-job")).hasSize(1);
        }
    }
}
