package io.keepsake.tool.internal;

/**
 * The exit code and output of one in-process run of the tool.
 *
 * @param exitCode the exit code
 * @param stdout   what it printed to stdout
 * @param stderr   what it printed to stderr
 */
public record CapturedRun(int exitCode, String stdout, String stderr) {
}
