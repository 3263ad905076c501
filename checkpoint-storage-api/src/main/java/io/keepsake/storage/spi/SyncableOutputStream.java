package io.keepsake.storage.spi;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream whose bytes can be forced to durable storage (fsync, hsync) before close. The
 * protocol calls {@link #sync()} after the last write of every file that must survive a crash; on
 * a file system with {@link FsCapability#ATOMIC_FILE_CREATE} that call publishes the file whole, a
 * stream closed without it is discarded, and the protocol calls it for every file it keeps.
 *
 * <p>Threads: one thread at a time uses a stream, but not always the same one. The protocol
 * writes a savepoint payload on the caller's thread and then calls {@link #sync()} and
 * {@link #close()} on a thread of its sync pool, after the last write returned (the hand-over
 * orders the writes before the sync); a stream must not be bound to the thread that opened it.
 */
public abstract class SyncableOutputStream extends OutputStream {

    /** Makes every byte written so far durable. */
    public abstract void sync() throws IOException;
}
