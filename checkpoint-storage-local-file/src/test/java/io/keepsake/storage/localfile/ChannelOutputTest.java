package io.keepsake.storage.localfile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Early writeback of a large file: forces start while the writer goes on, every byte arrives,
 * and an early force's error is thrown by the final sync even when the final force succeeds.
 */
class ChannelOutputTest {

    @TempDir
    Path temp;

    /** A real channel whose forces are counted, and whose first force can fail or be held. */
    private static final class Forces extends FileChannel {
        final FileChannel real;
        final AtomicInteger dataForces = new AtomicInteger();
        final AtomicInteger fullForces = new AtomicInteger();
        volatile boolean failFirst;
        volatile CountDownLatch holdFirst;
        final CountDownLatch firstStarted = new CountDownLatch(1);

        Forces(FileChannel real) {
            this.real = real;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            int n = (metaData ? fullForces : dataForces).incrementAndGet();
            if (!metaData && n == 1) {
                firstStarted.countDown();
                if (holdFirst != null) {
                    try {
                        holdFirst.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (failFirst) {
                    throw new IOException("Input/output error (injected)");
                }
            }
            real.force(metaData);
        }

        @Override public int read(ByteBuffer dst) throws IOException { return real.read(dst); }
        @Override public long read(ByteBuffer[] dsts, int offset, int length) throws IOException { return real.read(dsts, offset, length); }
        @Override public int write(ByteBuffer src) throws IOException { return real.write(src); }
        @Override public long write(ByteBuffer[] srcs, int offset, int length) throws IOException { return real.write(srcs, offset, length); }
        @Override public long position() throws IOException { return real.position(); }
        @Override public FileChannel position(long newPosition) throws IOException { real.position(newPosition); return this; }
        @Override public long size() throws IOException { return real.size(); }
        @Override public FileChannel truncate(long size) throws IOException { real.truncate(size); return this; }
        @Override public long transferTo(long position, long count, WritableByteChannel target) throws IOException { return real.transferTo(position, count, target); }
        @Override public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException { return real.transferFrom(src, position, count); }
        @Override public int read(ByteBuffer dst, long position) throws IOException { return real.read(dst, position); }
        @Override public int write(ByteBuffer src, long position) throws IOException { return real.write(src, position); }
        @Override public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException { return real.map(mode, position, size); }
        @Override public FileLock lock(long position, long size, boolean shared) throws IOException { return real.lock(position, size, shared); }
        @Override public FileLock tryLock(long position, long size, boolean shared) throws IOException { return real.tryLock(position, size, shared); }
        @Override protected void implCloseChannel() throws IOException { real.close(); }
    }

    private Forces open(Path file) throws IOException {
        return new Forces(FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @Test
    void aLargeFileIsForcedEarlyWhileWrittenAndArrivesWhole() throws IOException {
        Path file = temp.resolve("large");
        Forces channel = open(file);
        byte[] chunk = bytes(64 * 1024);
        ChannelOutput out = new ChannelOutput(channel, file.toString(), 256 * 1024);
        for (int i = 0; i < 64; i++) {
            out.write(chunk);
        }
        out.sync();
        out.close();
        assertThat(channel.dataForces.get()).as("early forces").isPositive();
        assertThat(channel.fullForces.get()).as("final forces").isEqualTo(1);
        byte[] read = Files.readAllBytes(file);
        assertThat(read).hasSize(64 * chunk.length);
        for (int i = 0; i < 64; i++) {
            assertThat(java.util.Arrays.copyOfRange(read, i * chunk.length, (i + 1) * chunk.length)).isEqualTo(chunk);
        }
    }

    @Test
    void aSmallFileIsForcedOnceAtSync() throws IOException {
        Path file = temp.resolve("small");
        Forces channel = open(file);
        try (ChannelOutput out = new ChannelOutput(channel, file.toString())) {
            out.write(bytes(1 << 20));
            out.sync();
        }
        assertThat(channel.dataForces.get()).isZero();
        assertThat(channel.fullForces.get()).isEqualTo(1);
    }

    @Test
    void anEarlyForceErrorFailsTheFinalSyncThoughTheFinalForceSucceeds() throws Exception {
        Path file = temp.resolve("failing");
        Forces channel = open(file);
        channel.failFirst = true;
        ChannelOutput out = new ChannelOutput(channel, file.toString(), 128 * 1024);
        out.write(bytes(256 * 1024));
        assertThat(channel.firstStarted.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        out.write(bytes(1024));
        assertThatThrownBy(out::sync).isInstanceOf(IOException.class)
                .hasMessageContaining("early fsync").hasMessageContaining(file.toString())
                .hasRootCauseMessage("Input/output error (injected)");
        assertThat(channel.fullForces.get()).isEqualTo(1);
        out.close();
    }

    @Test
    void closeWaitsForARunningEarlyForce() throws Exception {
        Path file = temp.resolve("held");
        Forces channel = open(file);
        channel.holdFirst = new CountDownLatch(1);
        ChannelOutput out = new ChannelOutput(channel, file.toString(), 128 * 1024);
        out.write(bytes(256 * 1024));
        assertThat(channel.firstStarted.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(() -> {
            try {
                out.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        closer.start();
        while (closer.getState() != Thread.State.WAITING && closer.getState() != Thread.State.TERMINATED) {
            Thread.onSpinWait();
        }
        assertThat(closer.getState()).as("close waits for the held force").isEqualTo(Thread.State.WAITING);
        assertThat(channel.isOpen()).isTrue();
        channel.holdFirst.countDown();
        closer.join();
        assertThat(channel.isOpen()).isFalse();
    }
}
