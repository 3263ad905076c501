package io.keepsake.seatunnel;

import io.keepsake.fixtures.faults.ForwardingOutputStream;
import io.keepsake.fixtures.faults.ObservedFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

/**
 * A test-only SeaTunnel checkpoint storage ({@code checkpoint.storage.type: keepsake-test}): Keepsake's
 * plugin storage on the local disk, through a file system that injects the fault {@code test.fault}
 * names. Keys: {@code namespace}, {@code savepoint.lease-timeout-ms}, {@code test.fault},
 * {@code test.fault.once}. The faults:
 * <ul>
 *   <li>{@code none};</li>
 *   <li>{@code fail-payload-2}: creating pipeline 2's payload in a savepoint's staging fails (an I/O error);</li>
 *   <li>{@code hang-commit-2}: creating {@code _metadata.ser} in a staged attempt that holds pipeline 2's
 *   payload never returns; it prints {@code HANG <path>} first, so that a parent can kill the JVM there;</li>
 *   <li>{@code fail-commit}: creating {@code _metadata.ser} in any staged attempt fails: every payload is
 *   written, the publication fails;</li>
 *   <li>{@code hang-payload-2}: the first write (or sync) of pipeline 2's payload in a savepoint's staging
 *   never returns (it prints {@code HANG <path>} first): the payload file is created, so the attempt's
 *   writer is free for pipeline 1's payload, and the savepoint is stuck between its pipelines' reports;</li>
 *   <li>{@code hang-rename-2}: renaming a staged attempt that holds pipeline 2's payload onto its
 *   savepoint's name never returns (it prints {@code HANG <path>} first): every file of the bundle is
 *   written and synced, the publishing step itself is under way.</li>
 * </ul>
 * {@code test.fault.once}, a path on the local disk: a hang fires only in the first call, over every
 * JVM sharing that path, that creates the file there; later calls pass (the members of a cluster
 * share one configuration, and the member that takes over must save normally).
 * One storage per distinct configuration and JVM, as the plugin's own factory does.
 */
public final class FaultyKeepsakeFactory implements CheckpointStorageFactory {

    static final String IDENTIFIER = "keepsake-test";
    private static final Pattern PIPELINE_2 = Pattern.compile("pipeline-2(\\.[^/]*)?\\.wire");
    private static final Map<Map<String, String>, KeepsakeCheckpointStorage> OPEN = new HashMap<>();

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public CheckpointStorage create(Map<String, String> config) {
        synchronized (OPEN) {
            return OPEN.computeIfAbsent(Map.copyOf(config), FaultyKeepsakeFactory::open);
        }
    }

    private static KeepsakeCheckpointStorage open(Map<String, String> config) {
        String fault = config.getOrDefault("test.fault", "none");
        long lease = Long.parseLong(config.getOrDefault(StorageOptions.LEASE_TIMEOUT,
                Long.toString(StorageOptions.DEFAULT_LEASE_TIMEOUT_MILLIS)));
        String once = config.get("test.fault.once");
        StorageFileSystem fs = new Faulty(new LocalFileSystem(), fault, once == null ? null : java.nio.file.Path.of(once));
        KeepsakeStorage storage = KeepsakeStorage.open(fs, new StorageOptions(config.get("namespace"), null, null, 0,
                Map.of(), lease));
        return new KeepsakeCheckpointStorage(storage, storage);
    }

    /** The local file system with one fault. */
    static final class Faulty extends ObservedFileSystem {
        private final String fault;
        private final java.nio.file.Path once;
        /** Set once another call, in this JVM or another, claimed the one hang. */
        private volatile boolean claimedElsewhere;

        Faulty(StorageFileSystem delegate, String fault, java.nio.file.Path once) {
            super(delegate);
            if (!java.util.Set.of("none", "fail-payload-2", "hang-commit-2", "fail-commit", "hang-payload-2",
                    "hang-rename-2").contains(fault)) {
                throw new IllegalArgumentException("Cannot open keepsake-test storage: unknown test.fault (" + fault + ")");
            }
            this.fault = fault;
            this.once = once;
        }

        @Override
        public void rename(String source, String target) throws IOException {
            if (fault.equals("hang-rename-2") && source.contains("/.staging/") && !target.contains("/.staging/")
                    && delegate.listNames(source).stream().anyMatch(n -> PIPELINE_2.matcher(n).matches())) {
                hang(source);
            }
            super.rename(source, target);
        }

        @Override
        protected void observe(String op) throws IOException {
            if (op.startsWith("create ")) {
                check(op.substring("create ".length()));
            }
        }

        /** Pipeline 2's staged payload under {@code hang-payload-2}: its first write or sync hangs. */
        @Override
        protected SyncableOutputStream observed(String path, SyncableOutputStream stream) {
            String name = path.substring(path.lastIndexOf('/') + 1);
            if (!fault.equals("hang-payload-2") || !path.contains("/.staging/") || !PIPELINE_2.matcher(name).matches()) {
                return stream;
            }
            return new ForwardingOutputStream(stream) {
                @Override
                public void write(int b) throws IOException {
                    hang(path);
                    super.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    hang(path);
                    super.write(b, off, len);
                }

                @Override
                public void sync() throws IOException {
                    hang(path);
                    super.sync();
                }
            };
        }

        private void check(String path) throws IOException {
            if (!path.contains("/.staging/")) {
                return;
            }
            String name = path.substring(path.lastIndexOf('/') + 1);
            if (fault.equals("fail-payload-2") && PIPELINE_2.matcher(name).matches()) {
                throw new IOException("injected fault: cannot create " + path);
            }
            if (fault.equals("fail-commit") && name.equals("_metadata.ser")) {
                throw new IOException("injected fault: cannot create " + path);
            }
            if (fault.equals("hang-commit-2") && name.equals("_metadata.ser") && holdsPipeline2(path)) {
                hang(path);
            }
        }

        /** Prints {@code HANG <path>} and never returns, unless another call already claimed the one hang. */
        private void hang(String path) throws IOException {
            if (once != null) {
                if (claimedElsewhere) {
                    return;
                }
                try {
                    java.nio.file.Files.createFile(once);
                } catch (java.nio.file.FileAlreadyExistsException claimed) {
                    claimedElsewhere = true;
                    return;
                }
            }
            System.out.println("HANG " + path);
            System.out.flush();
            while (true) {
                LockSupport.park(this); // the parent SIGKILLs this JVM here
            }
        }

        private boolean holdsPipeline2(String path) throws IOException {
            String dir = path.substring(0, path.lastIndexOf('/'));
            return delegate.listNames(dir).stream().anyMatch(n -> PIPELINE_2.matcher(n).matches());
        }
    }
}
