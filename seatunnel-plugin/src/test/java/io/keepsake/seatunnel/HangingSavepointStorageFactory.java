package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public CheckpointStorage create(Map<String, String> config) throws CheckpointStorageException {
        Map<String, String> keepsake = new HashMap<>(config);
        Path marker = Path.of(keepsake.remove(MARKER));
        CheckpointStorage delegate = new KeepsakeCheckpointStorageFactory().create(keepsake);
        return new Hanging(delegate, marker);
    }

    /** Forwards every call; hangs the first savepoint store. */
    private record Hanging(CheckpointStorage delegate, Path marker) implements CheckpointStorage {

        @Override
        public String storeCheckPoint(PipelineState state) throws CheckpointStorageException {
            if (LegacyCheckpointCodec.decodeCheckpoint(state.getStates(), "test").checkpointType()
                    == CheckpointType.SAVEPOINT_TYPE && claimMarker(state)) {
                while (true) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // until the parent kills this JVM
                }
            }
            return delegate.storeCheckPoint(state);
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

        @Override
        public void asyncStoreCheckPoint(PipelineState state) throws CheckpointStorageException {
            storeCheckPoint(state);
        }

        @Override
        public List<PipelineState> getAllCheckpoints(String jobId) throws CheckpointStorageException {
            return delegate.getAllCheckpoints(jobId);
        }

        @Override
        public List<PipelineState> getLatestCheckpoint(String jobId) throws CheckpointStorageException {
            return delegate.getLatestCheckpoint(jobId);
        }

        @Override
        public PipelineState getLatestCheckpointByJobIdAndPipelineId(String jobId, String pipelineId)
                throws CheckpointStorageException {
            return delegate.getLatestCheckpointByJobIdAndPipelineId(jobId, pipelineId);
        }

        @Override
        public List<PipelineState> getCheckpointsByJobIdAndPipelineId(String jobId, String pipelineId)
                throws CheckpointStorageException {
            return delegate.getCheckpointsByJobIdAndPipelineId(jobId, pipelineId);
        }

        @Override
        public PipelineState getCheckpoint(String jobId, String pipelineId, String checkpointId)
                throws CheckpointStorageException {
            return delegate.getCheckpoint(jobId, pipelineId, checkpointId);
        }

        @Override
        public void deleteCheckpoint(String jobId) {
            delegate.deleteCheckpoint(jobId);
        }

        @Override
        public void deleteCheckpoint(String jobId, String pipelineId, String checkpointId)
                throws CheckpointStorageException {
            delegate.deleteCheckpoint(jobId, pipelineId, checkpointId);
        }

        @Override
        public void deleteCheckpoint(String jobId, String pipelineId, List<String> checkpointIdList)
                throws CheckpointStorageException {
            delegate.deleteCheckpoint(jobId, pipelineId, checkpointIdList);
        }
    }
}
