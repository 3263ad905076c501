package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A test-only SeaTunnel checkpoint storage ({@code checkpoint.storage.type: keepsake-hang-savepoint}):
 * Keepsake's plugin, except that the first store of a savepoint state across every JVM sharing
 * {@code test.hang-marker} (a file path) creates that file, writes {@code <jobId> <pipelineId> <checkpointId>}
 * into it and never returns, before anything of the savepoint is written. A parent that waits for
 * the file knows the engine is inside that store and can kill the member there. The other keys go
 * to Keepsake's plugin.
 */
public final class HangingSavepointStorageFactory implements CheckpointStorageFactory {

    static final String IDENTIFIER = "keepsake-hang-savepoint";
    static final String MARKER = "test.hang-marker";
    /** The calls that store a state; every other call is forwarded as it is. */
    private static final Set<String> STORES = Set.of("storeCheckPoint", "asyncStoreCheckPoint");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public CheckpointStorage create(Map<String, String> config) throws CheckpointStorageException {
        Map<String, String> keepsake = new HashMap<>(config);
        Path marker = Path.of(keepsake.remove(MARKER));
        CheckpointStorage delegate = new KeepsakeCheckpointStorageFactory().create(keepsake);
        Hanging hanging = new Hanging(delegate, marker);
        return (CheckpointStorage) Proxy.newProxyInstance(CheckpointStorage.class.getClassLoader(),
                new Class<?>[] {CheckpointStorage.class}, hanging);
    }

    /** Forwards every call of the storage; hangs the first savepoint store. */
    private record Hanging(CheckpointStorage delegate, Path marker) implements InvocationHandler {

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (STORES.contains(method.getName()) && args[0] instanceof PipelineState state
                    && LegacyCheckpointCodec.decodeCheckpoint(state.getStates(), "test").checkpointType()
                    == CheckpointType.SAVEPOINT_TYPE && claimMarker(state)) {
                while (true) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // until the parent kills this JVM
                }
            }
            try {
                return method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        private boolean claimMarker(PipelineState state) {
            try {
                Files.createFile(marker);
                Files.writeString(marker, state.getJobId() + " " + state.getPipelineId() + " " + state.getCheckpointId());
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
