package io.keepsake.storage.internal;

import io.keepsake.storage.GcReport;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.StorageListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The listeners registered on one storage (shared with its savepoint-root views), called in
 * registration order; a listener that throws is logged and skipped. Thread-safe.
 */
public final class Listeners implements StorageListener {

    private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

    private final List<StorageListener> listeners = new CopyOnWriteArrayList<>();

    /** Registers a listener; registering the same one twice calls it twice. */
    public void add(StorageListener listener) {
        listeners.add(listener);
    }

    @Override
    public void onCommit(String jobId, String savepointId, long bytes, Duration duration) {
        each(l -> l.onCommit(jobId, savepointId, bytes, duration), "commit of savepoint " + savepointId);
    }

    @Override
    public void onAbort(String jobId, String savepointId, Duration duration) {
        each(l -> l.onAbort(jobId, savepointId, duration), "abort of savepoint " + savepointId);
    }

    @Override
    public void onRestore(String jobId, String savepointId, long bytes, Duration duration) {
        each(l -> l.onRestore(jobId, savepointId, bytes, duration), "restore of job " + jobId);
    }

    @Override
    public void onVerifyFailure(String jobId, String savepointId, SavepointCorruptedException failure) {
        each(l -> l.onVerifyFailure(jobId, savepointId, failure), "verify failure of savepoint " + savepointId);
    }

    @Override
    public void onGc(GcReport report, Duration duration) {
        each(l -> l.onGc(report, duration), "garbage collection");
    }

    private void each(Consumer<StorageListener> call, String event) {
        for (StorageListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                LOG.warn("Storage listener {} failed on {}; ignored", l.getClass().getName(), event, e);
            }
        }
    }
}
