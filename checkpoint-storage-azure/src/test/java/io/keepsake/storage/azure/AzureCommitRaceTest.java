package io.keepsake.storage.azure;

import io.keepsake.fixtures.tck.CommitRaceContractTest;
import io.keepsake.fixtures.tck.StorageTarget;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Racing commits of one savepoint id on Azurite, published by a conditional Put Blob or Put Block
 * List of {@code _metadata.ser}: every race has exactly one winner, and the savepoint that reads back
 * is the winner's.
 */
class AzureCommitRaceTest extends CommitRaceContractTest {

    /** Races per test: 25 unless {@code keepsake.azure.races} says otherwise. */
    private static final int RACES = Integer.getInteger("keepsake.azure.races", 25);

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    @Override
    protected StorageTarget target(String name) {
        return azurite.target(name);
    }

    @Override
    protected int races() {
        return RACES;
    }
}
