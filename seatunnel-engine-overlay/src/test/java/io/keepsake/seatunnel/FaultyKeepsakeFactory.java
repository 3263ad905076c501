package io.keepsake.seatunnel;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
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
 * names. Keys: {@code namespace}, {@code savepoint.lease-timeout-ms}, {@code test.fault}:
 * <ul>
 *   <li>{@code none};</li>
 *   <li>{@code fail-payload-2}: creating pipeline 2's payload in a savepoint's staging fails (an I/O error);</li>
 *   <li>{@code hang-commit-2}: creating {@code _metadata.ser} in a staged attempt that holds pipeline 2's
 *   payload never returns; it prints {@code HANG <path>} first, so that a parent can kill the JVM there;</li>
 *   <li>{@code fail-commit}: creating {@code _metadata.ser} in any staged attempt fails: every payload is
 *   written, the publication fails.</li>
 * </ul>
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
        StorageFileSystem fs = new Faulty(new LocalFileSystem(), fault);
        KeepsakeStorage storage = KeepsakeStorage.open(fs, new StorageOptions(config.get("namespace"), null, null, 0,
                Map.of(), lease));
        return new KeepsakeCheckpointStorage(storage, storage);
    }

    /** The local file system with one fault. */
    static final class Faulty extends ForwardingFileSystem {
        private final String fault;

        Faulty(StorageFileSystem delegate, String fault) {
            super(delegate);
            if (!java.util.Set.of("none", "fail-payload-2", "hang-commit-2", "fail-commit").contains(fault)) {
                throw new IllegalArgumentException("Cannot open keepsake-test storage: unknown test.fault (" + fault + ")");
            }
            this.fault = fault;
        }

        @Override
        public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
            check(path);
            return super.create(path, mustCreate);
        }

        @Override
        public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
            check(path);
            return super.createInExistingDirectory(path, mustCreate);
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
                System.out.println("HANG " + path);
                System.out.flush();
                while (true) {
                    LockSupport.park(this); // the parent SIGKILLs this JVM here
                }
            }
        }

        private boolean holdsPipeline2(String path) throws IOException {
            String dir = path.substring(0, path.lastIndexOf('/'));
            return delegate.listNames(dir).stream().anyMatch(n -> PIPELINE_2.matcher(n).matches());
        }
    }
}
