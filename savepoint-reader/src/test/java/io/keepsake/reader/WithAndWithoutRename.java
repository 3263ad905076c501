package io.keepsake.reader;

import io.keepsake.fixtures.fs.InMemoryFileSystem;
import io.keepsake.storage.spi.FsCapability;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.EnumSet;
import java.util.function.LongSupplier;

/**
 * Runs a test twice with a {@code boolean rename} argument: on a file system with atomic directory
 * rename ({@code true}) and on one without ({@link Memory#of} builds it), the two ways a savepoint
 * is published.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "rename={0}")
@ValueSource(booleans = {true, false})
@interface WithAndWithoutRename {

    /** The in-memory file system of one run. */
    final class Memory {
        private Memory() {
        }

        /** An in-memory file system that syncs directories, with atomic directory rename or without. */
        static InMemoryFileSystem of(boolean rename, LongSupplier clock) {
            return new InMemoryFileSystem(rename ? EnumSet.of(FsCapability.ATOMIC_DIRECTORY_RENAME,
                    FsCapability.DIRECTORY_SYNC) : EnumSet.of(FsCapability.DIRECTORY_SYNC), clock);
        }
    }
}
