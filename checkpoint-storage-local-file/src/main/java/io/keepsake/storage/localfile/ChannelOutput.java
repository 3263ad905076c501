package io.keepsake.storage.localfile;

import io.keepsake.storage.spi.localdisk.ChannelOutputStream;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file being written through its channel, synced with {@code fsync}.
 *
 * <p>Early writeback: a large file does not leave all its bytes to the final {@link #sync}. Each
 * time {@link #EARLY_SYNC_BYTES} more have been written and no earlier one is still running, a
 * data-only {@code force} (fdatasync) of what is written so far starts on a shared daemon thread,
 * so the disk writes the first part while the writer goes on (encoding, hashing) with the rest;
 * the final {@code sync} then waits for that force and forces the whole file, metadata included.
 * The kernel would otherwise start writing back only at its dirty thresholds, so one large file
 * cost its whole write and then its whole writeback, one after the other.
 *
 * <p>An error of an early force is kept and thrown by {@link #sync}, even when the final force
 * succeeds: Linux reports a writeback error to one {@code fsync} of the open file only, so the
 * early one may have been the only call told of lost bytes. {@link #close} waits for a running
 * early force before it closes the channel. One thread at a time writes, syncs and closes.
 */
final class ChannelOutput extends ChannelOutputStream {

    /** Written bytes between two early forces: 32 MiB; smaller files are forced once, at sync. */
    static final long EARLY_SYNC_BYTES = 32L << 20;

    private static final Executor FORCERS = forcers();

    private final String path;
    private final long earlySyncBytes;
    private long sinceEarlySync;
    private CompletableFuture<Void> earlySync;
    private IOException earlySyncError;

    ChannelOutput(FileChannel channel, String path) {
        this(channel, path, EARLY_SYNC_BYTES);
    }

    /** With another early-force interval (tests). */
    ChannelOutput(FileChannel channel, String path, long earlySyncBytes) {
        super(channel);
        this.path = path;
        this.earlySyncBytes = earlySyncBytes;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        super.write(b, off, len);
        sinceEarlySync += len;
        if (sinceEarlySync >= earlySyncBytes && (earlySync == null || earlySync.isDone())) {
            collectEarlySync();
            sinceEarlySync = 0;
            startEarlySync();
        }
    }

    private void startEarlySync() {
        CompletableFuture<Void> started = new CompletableFuture<>();
        earlySync = started;
        Runnable force = () -> {
            try {
                channel().force(false);
                started.complete(null);
            } catch (Throwable e) {
                started.completeExceptionally(e);
            }
        };
        try {
            FORCERS.execute(force);
        } catch (RejectedExecutionException e) {
            force.run();
        }
    }

    /** Waits for the running early force, if any, and keeps its error. */
    private void collectEarlySync() throws InterruptedIOException {
        if (earlySync == null) {
            return;
        }
        try {
            earlySync.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while an early fsync of " + path + " runs");
        } catch (ExecutionException e) {
            if (earlySyncError == null) {
                Throwable cause = e.getCause();
                earlySyncError = cause instanceof IOException io ? io
                        : new IOException("An early fsync of " + path + " failed: " + cause, cause);
            }
        }
        earlySync = null;
    }

    @Override
    public void sync() throws IOException {
        collectEarlySync();
        super.sync();
        if (earlySyncError != null) {
            throw new IOException("An early fsync of " + path + " failed, so bytes written before it may be lost: "
                    + earlySyncError.getMessage(), earlySyncError);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            collectEarlySync();
        } finally {
            super.close();
        }
    }

    private static Executor forcers() {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "keepsake-early-fsync-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }
}
