package io.keepsake.storage.s3;

import io.keepsake.fixtures.tck.CommitRaceContractTest;
import io.keepsake.fixtures.tck.StorageTarget;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Racing commits of one savepoint id on the in-process S3 server, published by a conditional
 * create of {@code _metadata.ser}: every race has exactly one winner, and the savepoint that reads
 * back is the winner's.
 */
class S3CommitRaceTest extends CommitRaceContractTest {

    /** Races per test: 25 in the default run, 200 under {@code -Preliability} ({@code keepsake.s3.races}). */
    private static final int RACES = Integer.getInteger("keepsake.s3.races", 100);

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    @Override
    protected StorageTarget target(String name) {
        return server.target(name);
    }

    @Override
    protected int races() {
        return RACES;
    }
}
