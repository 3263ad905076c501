package io.keepsake.storage.spi;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream whose bytes can be forced to durable storage (fsync, hsync) before close. The
 * protocol calls {@link #sync()} after the last write of every file that must survive a crash; on
 * a file system with {@link FsCapability#ATOMIC_FILE_CREATE} that call publishes the file whole, a
 * stream closed without it is discarded, and the protocol calls it for every file it keeps.
 */
public abstract class SyncableOutputStream extends OutputStream {

    /** Makes every byte written so far durable. */
    public abstract void sync() throws IOException;
}
