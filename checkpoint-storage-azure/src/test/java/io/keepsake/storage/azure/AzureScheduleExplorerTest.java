package io.keepsake.storage.azure;

import io.keepsake.fixtures.explore.Backend;
import io.keepsake.fixtures.explore.Explorer;
import io.keepsake.fixtures.explore.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.function.Function;

/**
 * The schedule explorer on Azurite: scenarios of writers, collections, deletes and readers
 * interleaved step by step over {@link AzureFileSystem} (through {@link ClockStampedFileSystem}, so
 * that times are the run's clock), with at most one preemption and a small run budget per scenario
 * ({@code keepsake.azure.explore.runs}, 8 by default); no schedule may break an invariant.
 */
class AzureScheduleExplorerTest {

    private static final int RUNS = Integer.getInteger("keepsake.azure.explore.runs", 8);

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    private static Backend azure() {
        return new Backend("azurite", clock -> new ClockStampedFileSystem(azurite.fs(), clock),
                () -> azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory("explore")), false);
    }

    @Test
    void scenariosOnAzuriteKeepTheInvariants() {
        List<Function<Backend, Scenario>> scenarios = List.of(Scenario::s1, Scenario::s3, Scenario::s8);
        for (Function<Backend, Scenario> make : scenarios) {
            Explorer.Stats stats = Explorer.exhaustive(make.apply(azure()), 1, RUNS);
            System.out.println(stats.line());
            stats.assertNoFindings();
        }
    }
}
