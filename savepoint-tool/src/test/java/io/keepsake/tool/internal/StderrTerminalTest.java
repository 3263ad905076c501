package io.keepsake.tool.internal;

import io.keepsake.tool.ToolCommand.ProgressMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The progress line's {@code auto}: stderr is a terminal, told by what descriptor 2 points at. */
class StderrTerminalTest {

    @TempDir
    Path temp;

    @Test
    void terminalDevicesAreTerminalsAndFilesPipesSocketsAndNullAreNot() {
        for (String tty : new String[] {"/dev/pts/0", "/dev/pts/17", "/dev/tty", "/dev/tty1", "/dev/ttyS0", "/dev/console"}) {
            assertThat(StderrTerminal.isTerminalDevice(tty)).as(tty).isTrue();
        }
        for (String other : new String[] {"pipe:[90210]", "socket:[4242]", "/tmp/verify.log", "/dev/null", "",
                "/dev/pts", "/dev/pts/3 (deleted)", "anon_inode:[eventfd]", "/home/me/dev/pts/1"}) {
            assertThat(StderrTerminal.isTerminalDevice(other)).as(other).isFalse();
        }
    }

    @Test
    void whatDescriptorTwoPointsAtWinsOverTheConsole() {
        // verify ... 2>verify.log on a terminal: stdin and stdout are the terminal (console present), stderr a file
        assertThat(StderrTerminal.decide(Optional.of("/work/verify.log"), true)).isFalse();
        // verify ... | cat on a terminal: stdout is a pipe (no console), stderr the terminal
        assertThat(StderrTerminal.decide(Optional.of("/dev/pts/4"), false)).isTrue();
        // a system without /proc: the console is all there is to go by
        assertThat(StderrTerminal.decide(Optional.empty(), true)).isTrue();
        assertThat(StderrTerminal.decide(Optional.empty(), false)).isFalse();
    }

    @Test
    void theLinkIsReadWhereTheFolderExists() throws Exception {
        Path fd = Files.createDirectories(temp.resolve("fd"));
        Files.createSymbolicLink(fd.resolve("2"), Path.of("/dev/pts/7"));

        assertThat(StderrTerminal.linkTarget(fd.resolve("2"))).contains("/dev/pts/7");
        assertThat(StderrTerminal.linkTarget(fd.resolve("9"))).as("a closed descriptor").contains("");
        assertThat(StderrTerminal.linkTarget(temp.resolve("no-proc").resolve("2"))).as("no /proc").isEmpty();
    }

    @Test
    void autoAsksTheTerminalOnlyWithoutJson() {
        BooleanSupplier mustNotAsk = () -> {
            throw new AssertionError("the terminal was probed although --json decides");
        };
        assertThat(ProgressMode.auto.shown(true, mustNotAsk)).isFalse();
        assertThat(ProgressMode.auto.shown(false, () -> true)).isTrue();
        assertThat(ProgressMode.auto.shown(false, () -> false)).isFalse();
        assertThat(ProgressMode.always.shown(true, mustNotAsk)).isTrue();
        assertThat(ProgressMode.never.shown(false, () -> true)).isFalse();
    }

    @Test
    void thisTestJvmsStderrIsNotATerminal() {
        // surefire gives the forked JVM a pipe or a file as stderr; on Linux that is read from /proc
        assertThat(StderrTerminal.detect()).isFalse();
    }
}
