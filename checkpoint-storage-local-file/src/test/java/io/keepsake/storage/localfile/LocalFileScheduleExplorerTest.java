package io.keepsake.storage.localfile;

import io.keepsake.fixtures.explore.Backend;
import io.keepsake.fixtures.explore.Explorer;
import io.keepsake.fixtures.explore.Scenario;
import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sample of the schedule explorer on the real local disk (random schedules only: modification
 * times come from the disk's clock), with directory rename and without it (create-if-absent
 * publication, whose file renames the local disk does as link then unlink).
 */
class LocalFileScheduleExplorerTest {

    /** Random schedules per scenario: {@code keepsake.explore.local.runs}. */
    private static final int RUNS = Integer.getInteger("keepsake.explore.local.runs", 50);

    /** Kinds of violation known on main for link-then-unlink renames (see ProtocolRegressionTest in the kit). */
    private static final List<String> KNOWN_WITHOUT_RENAME = List.of("is visible, but every commit of it failed",
            "is visible but does not read whole", "the collection reports failures");

    @TempDir
    Path dir;

    private Backend backend(String name, StorageFileSystem fs) {
        AtomicInteger runs = new AtomicInteger();
        return new Backend(name, clock -> fs, () -> dir.resolve(name + "-" + runs.incrementAndGet()).toString(), false);
    }

    @Test
    void randomSchedulesWithDirectoryRename() {
        Backend local = backend("local", new LocalFileSystem());
        for (Function<Backend, Scenario> s : List.<Function<Backend, Scenario>>of(Scenario::s1, Scenario::s4)) {
            Explorer.Stats stats = Explorer.random(s.apply(local), 7, RUNS);
            System.out.println(stats.line());
            stats.assertNoFindings();
        }
    }

    @Test
    void randomSchedulesWithoutDirectoryRename() {
        StorageFileSystem withoutRename = new ForwardingFileSystem(new LocalFileSystem()) {
            @Override
            public Set<FsCapability> capabilities() {
                return EnumSet.of(FsCapability.DIRECTORY_SYNC);
            }
        };
        Backend local = backend("local-create-if-absent", withoutRename);
        for (Function<Backend, Scenario> s : List.<Function<Backend, Scenario>>of(Scenario::s1, Scenario::s2)) {
            Explorer.Stats stats = Explorer.random(s.apply(local), 7, RUNS);
            System.out.println(stats.line());
            if (!stats.findings().isEmpty()) {
                System.out.println(stats.findingsReport());
            }
            assertThat(stats.findings().keySet()).allMatch(k -> KNOWN_WITHOUT_RENAME.stream().anyMatch(k::contains));
        }
    }
}
