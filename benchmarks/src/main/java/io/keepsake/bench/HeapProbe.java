package io.keepsake.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child JVM of {@link HeapSection}: runs one save or restore of a one-pipeline savepoint in
 * a heap that the parent sizes, and prints the heap it saw on one line starting with
 * {@value #PREFIX}: the live heap before the operation, the highest live heap after any
 * collection during it, the live heap after it (with its result still held) and the number of
 * collections, and the bytes the JVM's threads allocated during it. "Live" is heap used right after a full {@code System.gc()} or after a collection,
 * so it excludes garbage not yet collected. Exits 3 on OutOfMemoryError.
 *
 * <p>Usage: {@code HeapProbe save|restore NAMESPACE SAVEPOINT_ROOT JOB SAVEPOINT_ID BYTES}.
 */
public final class HeapProbe {

    /** The first word of the line the parent parses. */
    public static final String PREFIX = "HEAP-PROBE";

    /** The exit code on OutOfMemoryError. */
    public static final int OUT_OF_MEMORY = 3;

    private static final AtomicLong PEAK_AFTER_GC = new AtomicLong();
    private static final AtomicInteger COLLECTIONS = new AtomicInteger();

    private HeapProbe() {
    }

    /**
     * Runs the probe.
     *
     * @param args the mode, the storage roots, the job and savepoint ids and the state size
     */
    public static void main(String[] args) {
        if (args.length != 6) {
            System.err.println("Usage: HeapProbe save|restore NAMESPACE SAVEPOINT_ROOT JOB SAVEPOINT_ID BYTES");
            System.exit(2);
        }
        String mode = args[0];
        String job = args[3];
        String savepointId = args[4];
        long bytes = Long.parseLong(args[5]);
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), args[1], args[2])) {
            CompletedCheckpoint state = mode.equals("save")
                    ? BenchStates.reportState(bytes, Long.parseLong(job), 1, 1, 7L) : null;
            Object result;
            watchCollections();
            long base = liveHeap();
            PEAK_AFTER_GC.set(base);
            COLLECTIONS.set(0);
            long allocatedBefore = allocatedBytes();
            if (mode.equals("save")) {
                result = DiskSection.save(storage, job, savepointId, state);
            } else {
                result = new SavepointRestorer(storage).restoreSavepoint(job, savepointId).checkpoints();
            }
            long allocated = allocatedBytes() - allocatedBefore;
            int collections = COLLECTIONS.get();
            long peak = PEAK_AFTER_GC.get();
            long after = liveHeap();
            System.out.println(PREFIX + " base=" + base + " peak=" + peak + " after=" + after + " gcs=" + collections
                    + " allocated=" + allocated
                    + " held=" + (result != null) + (state != null ? " state=" + state.pipelineId() : ""));
        } catch (OutOfMemoryError e) {
            System.out.println(PREFIX + " oom");
            System.exit(OUT_OF_MEMORY);
        }
    }

    /** Bytes allocated so far by the threads alive now (threads that ended are not counted). */
    private static long allocatedBytes() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads) {
            long total = 0;
            for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
                total += Math.max(0, bytes);
            }
            return total;
        }
        return -1;
    }

    /** Heap used after a full collection. */
    private static long liveHeap() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Records the heap used after every collection from now on. */
    private static void watchCollections() {
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((notification, handback) -> {
                    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                        return;
                    }
                    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo
                            .from((CompositeData) notification.getUserData());
                    long used = 0;
                    for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                        if (heapPools.contains(e.getKey())) {
                            used += e.getValue().getUsed();
                        }
                    }
                    COLLECTIONS.incrementAndGet();
                    PEAK_AFTER_GC.accumulateAndGet(used, Math::max);
                }, null, null);
            }
        }
    }
}
