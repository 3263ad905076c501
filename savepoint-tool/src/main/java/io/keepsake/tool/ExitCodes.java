package io.keepsake.tool;

import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.StorageRootNotFoundException;

/**
 * The exit codes of {@code keepsake}, chosen by the type of the error so that scripts can react:
 * 0 success, 1 any other failure, 2 usage or invalid argument, 3 not found, 4 corrupted,
 * 5 incompatible format version, 6 resources exhausted (the tool's JVM ran out of heap or stack
 * reading a savepoint, which says nothing about its bytes). When a command finds several problems,
 * corrupted wins over incompatible, incompatible over resources exhausted, that over not found,
 * not found over other failures ({@link #worst}).
 * docs/tool.md has the table and what each command returns.
 */
public final class ExitCodes {

    /** Everything asked for was done and every check passed. */
    public static final int OK = 0;
    /** A failure without a more specific code (I/O, commit, a failed demo check). */
    public static final int FAILURE = 1;
    /** Bad command line, bad configuration or a refused request; nothing was changed. */
    public static final int USAGE = 2;
    /** The job, savepoint or checkpoint asked for does not exist. */
    public static final int NOT_FOUND = 3;
    /** Bytes read back did not verify. */
    public static final int CORRUPTED = 4;
    /** Intact bytes in a format version this build does not read. */
    public static final int INCOMPATIBLE = 5;
    /** The tool's JVM ran out of heap or stack reading a savepoint; its bytes may well be sound. */
    public static final int RESOURCES_EXHAUSTED = 6;

    private ExitCodes() {
    }

    /** The exit code for an error, by its type. */
    public static int of(Throwable error) {
        if (error instanceof ToolUsageException || error instanceof InvalidStorageArgumentException) {
            return USAGE;
        }
        if (error instanceof SavepointNotFoundException || error instanceof StorageRootNotFoundException) {
            return NOT_FOUND;
        }
        if (error instanceof SavepointCorruptedException || error instanceof CheckpointCorruptedException) {
            return CORRUPTED;
        }
        if (error instanceof SavepointIncompatibleException) {
            return INCOMPATIBLE;
        }
        if (error instanceof SavepointResourcesExhaustedException) {
            return RESOURCES_EXHAUSTED;
        }
        if (error instanceof CheckpointStorageException && error.getCause() instanceof InvalidStorageArgumentException) {
            return USAGE;
        }
        return FAILURE;
    }

    /** The code that wins when a command met several outcomes: 4, then 5, then 6, then 3, then 1, else 0. */
    public static int worst(java.util.Collection<Integer> codes) {
        for (int code : new int[] {CORRUPTED, INCOMPATIBLE, RESOURCES_EXHAUSTED, NOT_FOUND, FAILURE, USAGE}) {
            if (codes.contains(code)) {
                return code;
            }
        }
        return OK;
    }

    /** A short word for the kind of error, printed before its message. */
    public static String label(Throwable error) {
        if (error instanceof SavepointAlreadyExistsException) {
            return "already exists";
        }
        if (error instanceof ToolUsageException) {
            return "usage error";
        }
        return switch (of(error)) {
            case USAGE -> "invalid argument";
            case NOT_FOUND -> "not found";
            case CORRUPTED -> "corrupted";
            case INCOMPATIBLE -> "incompatible";
            case RESOURCES_EXHAUSTED -> "resources exhausted";
            default -> "error";
        };
    }
}
