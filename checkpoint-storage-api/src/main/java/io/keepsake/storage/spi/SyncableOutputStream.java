package io.keepsake.storage.spi;

import java.io.IOException;
import java.io.OutputStream;

/** An output stream whose bytes can be forced to durable storage (fsync, hsync) before close. */
public abstract class SyncableOutputStream extends OutputStream {

    /** Makes every byte written so far durable. */
    public abstract void sync() throws IOException;
}
