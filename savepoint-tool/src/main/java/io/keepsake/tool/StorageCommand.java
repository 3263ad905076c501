package io.keepsake.tool;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * Base of the commands that work on a configured storage: it carries the {@link BackendOptions}
 * mixin, checks its arguments with {@link #validate}, opens the storage before {@link #run} and closes it afterwards, whatever happens.
 * Typed storage errors propagate to {@link KeepsakeCli}, which prints them and picks the exit code.
 */
public abstract class StorageCommand implements Callable<Integer> {

    @Mixin
    BackendOptions storageOptions = new BackendOptions();

    @Spec
    CommandSpec spec;

    /** Opens the storage, runs the command on it and closes it; returns the exit code. */
    @Override
    public final Integer call() throws Exception {
        validate();
        try (OpenedStorage storage = storageOptions.open()) {
            return run(storage);
        }
    }

    /**
     * Checks the arguments before the storage is opened (opening may create the roots); the default accepts all.
     *
     * @throws ToolUsageException when the arguments are refused
     */
    protected void validate() {
    }

    /** Runs the command on an open storage and returns the exit code. */
    protected abstract int run(OpenedStorage storage) throws Exception;

    /** Where the command's own output goes (stdout, or what a test set). */
    protected PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** Where warnings for the operator go (stderr, or what a test set). */
    protected PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
