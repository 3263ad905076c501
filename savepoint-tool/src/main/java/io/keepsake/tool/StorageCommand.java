package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.tool.internal.SavepointPath;
import picocli.CommandLine.Mixin;

/**
 * Base of the commands that work on a configured storage: it carries the {@link BackendOptions}
 * mixin, checks its arguments with {@link #validate}, opens the storage ({@link #openStorage}) before
 * {@link #run} and closes it afterwards, whatever happens. Unless a command must create its roots
 * ({@link #createRoots}), the storage is opened with {@code create-roots=false}: opening creates
 * nothing, and a missing root is "not found" (exit 3); {@code migrate} reads checkpoints that way
 * and opens its savepoint side itself once they decoded. A path to a file inside a savepoint
 * folder is noted on stderr before the storage is opened. Typed storage errors propagate to
 * {@link KeepsakeCli}, which prints them and picks the exit code.
 */
public abstract class StorageCommand extends ToolCommand {

    @Mixin
    BackendOptions storageOptions = new BackendOptions();

    /** Opens the storage, runs the command on it and closes it; returns the exit code. */
    @Override
    public final Integer call() throws Exception {
        validate();
        SavepointPath path = savepointPath();
        if (path != null && path.givenFile() != null) {
            err().println(spec.qualifiedName() + ": " + path.givenFile() + " is a file in savepoint " + path.savepointId()
                    + "; using the savepoint folder " + path.location());
            err().flush();
        }
        try (OpenedStorage storage = openStorage(path)) {
            return run(storage);
        }
    }

    /**
     * Opens the storage {@link #run} works on: with its roots created when {@link #createRoots} says
     * so, else creating nothing.
     *
     * @param path the savepoint directory the command was given, or null
     */
    protected OpenedStorage openStorage(SavepointPath path) throws CheckpointStorageException {
        return storageOptions.open(!createRoots(), path);
    }

    /** True when opening the storage may create missing roots; false (the default) opens it creating nothing. */
    protected boolean createRoots() {
        return false;
    }

    /**
     * The savepoint directory the command was given instead of ids, or null; its roots are used for
     * this call. By default, the path of {@link #target()}.
     */
    protected SavepointPath savepointPath() {
        SavepointTarget target = target();
        return target == null ? null : target.path();
    }

    /**
     * The savepoint or job the positional arguments name, read and checked as this command requires
     * them, or null for a command that takes no savepoint; called before the storage is opened, so a
     * refused argument is a usage error with nothing opened.
     *
     * @throws ToolUsageException when the arguments are refused
     */
    SavepointTarget target() {
        return null;
    }

    /**
     * Checks the arguments before the storage is opened; the default accepts all.
     *
     * @throws ToolUsageException when the arguments are refused
     */
    protected void validate() {
    }

    /** Runs the command on an open storage and returns the exit code. */
    protected abstract int run(OpenedStorage storage) throws Exception;
}
