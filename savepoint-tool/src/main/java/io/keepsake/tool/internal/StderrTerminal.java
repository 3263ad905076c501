package io.keepsake.tool.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether this process's stderr (file descriptor 2) is a terminal, which Java 17 cannot ask
 * directly ({@code System.console()} looks at stdin and stdout). On Linux, {@code /proc/self/fd/2}
 * is a link to what descriptor 2 is open on: a terminal is a {@code /dev/pts/N}, {@code /dev/tty*}
 * or {@code /dev/console} device; a file, a pipe ({@code pipe:[...]}), a socket or {@code /dev/null}
 * is not. Where there is no {@code /proc/self/fd} (macOS, Windows) the answer falls back to
 * {@code System.console() != null}, which is only an approximation there: a redirected stderr
 * still counts as a terminal when stdin and stdout are one, and a piped stdout makes it not.
 * Stateless; the decision is separate from the probing so that tests can give it any inputs.
 */
public final class StderrTerminal {

    /** Where Linux shows what descriptor 2 is open on. */
    static final Path FD2 = Path.of("/proc/self/fd/2");

    /** Device names that are terminals: pseudo-terminals, virtual and serial consoles. */
    private static final Pattern TERMINAL_DEVICE = Pattern.compile("/dev/(pts/\\d+|tty[A-Za-z0-9]*|console)");

    private StderrTerminal() {
    }

    /** True when this process's stderr is a terminal, by the rule in the class comment. */
    public static boolean detect() {
        return decide(linkTarget(FD2), System.console() != null);
    }

    /**
     * The decision: by what descriptor 2 points at when that is known, else by the console fallback.
     *
     * @param fd2Target       what {@code /proc/self/fd/2} points at; empty when the system does not say
     * @param consoleFallback {@code System.console() != null}, used only when {@code fd2Target} is empty
     */
    static boolean decide(Optional<String> fd2Target, boolean consoleFallback) {
        return fd2Target.map(StderrTerminal::isTerminalDevice).orElse(consoleFallback);
    }

    /** True for the name of a terminal device, such as {@code /dev/pts/3} or {@code /dev/tty1}. */
    static boolean isTerminalDevice(String target) {
        return TERMINAL_DEVICE.matcher(target).matches();
    }

    /**
     * What {@code link} points at; empty when its folder does not exist (no {@code /proc}), and
     * {@code ""} (not a terminal) when the folder exists but the link cannot be read (descriptor closed).
     */
    static Optional<String> linkTarget(Path link) {
        Path folder = link.getParent();
        if (folder == null || !Files.isDirectory(folder)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readSymbolicLink(link).toString());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.of("");
        }
    }
}
