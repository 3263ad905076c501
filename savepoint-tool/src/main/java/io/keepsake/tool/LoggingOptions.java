package io.keepsake.tool;

import picocli.CommandLine.Option;

/**
 * The {@code --verbose} flag every command has. The tool reports outcomes itself (status rows,
 * kept and failed lines, error documents), so its slf4j binding (slf4j-simple) logs only library
 * errors to stderr by default (see {@code simplelogger.properties}); the flag raises the level to
 * info, which shows the library's warnings and info lines as well. slf4j-simple reads its level once, when the first logger is created, so the
 * flag takes effect only if no library class has logged yet: {@link KeepsakeCli#main} therefore
 * applies it before anything else runs, and picocli applies it again while parsing.
 */
public final class LoggingOptions {

    /** The slf4j-simple system property that sets the default level. */
    public static final String LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";

    private boolean verbose;

    /** Sets the flag and, when set, raises library logging to info. */
    @Option(names = {"-v", "--verbose"}, description = "Also log the library's warnings and info messages to stderr"
            + " (by default only its errors), and print stack traces of errors.")
    public void setVerbose(boolean verbose) {
        this.verbose = verbose;
        if (verbose) {
            enableInfoLogging();
        }
    }

    /** True when {@code --verbose} was given. */
    public boolean verbose() {
        return verbose;
    }

    /** The slf4j-simple property of Hadoop's native-library warning, silenced unless {@code --verbose}. */
    public static final String NATIVE_CODE_LOADER_PROPERTY = "org.slf4j.simpleLogger.log.org.apache.hadoop.util.NativeCodeLoader";

    /**
     * Raises slf4j-simple's default level to info and shows Hadoop's native-library warning again,
     * unless the user already chose levels with {@code -D}.
     */
    static void enableInfoLogging() {
        if (System.getProperty(LEVEL_PROPERTY) == null) {
            System.setProperty(LEVEL_PROPERTY, "info");
        }
        if (System.getProperty(NATIVE_CODE_LOADER_PROPERTY) == null) {
            System.setProperty(NATIVE_CODE_LOADER_PROPERTY, "info");
        }
    }
}
