package io.keepsake.storage.spi;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream whose bytes can be forced to durable storage (fsync, hsync) before close. The
 * protocol calls {@link #sync()} after the last write of every file it means to keep; on a file
 * system with {@link FsCapability#ATOMIC_FILE_CREATE} that call publishes the file whole, and a
 * stream closed without it is discarded.
 */
public abstract class SyncableOutputStream extends OutputStream {

    /** Makes every byte written so far durable. */
    public abstract void sync() throws IOException;
}
