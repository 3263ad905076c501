package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.PipelineState;

import java.util.List;
import java.util.Map;

/** A test backend (id {@code legacyonly}) whose storage has only the legacy checkpoint SPI. */
public final class LegacyOnlyStorageFactory implements CheckpointStorageFactory {

    @Override
    public String factoryIdentifier() {
        return "legacyonly";
    }

    @Override
    public CheckpointStorage create(Map<String, String> configuration) {
        return new CheckpointStorage() {
            @Override
            public String storeCheckPoint(PipelineState state) {
                return "unused";
            }

            @Override
            public void asyncStoreCheckPoint(PipelineState state) {
            }

            @Override
            public List<PipelineState> getAllCheckpoints(String jobId) {
                return List.of();
            }

            @Override
            public List<PipelineState> getLatestCheckpoint(String jobId) {
                return List.of();
            }

            @Override
            public PipelineState getLatestCheckpointByJobIdAndPipelineId(String jobId, String pipelineId) {
                return null;
            }

            @Override
            public List<PipelineState> getCheckpointsByJobIdAndPipelineId(String jobId, String pipelineId) {
                return List.of();
            }

            @Override
            public PipelineState getCheckpoint(String jobId, String pipelineId, String checkpointId) {
                return null;
            }

            @Override
            public void deleteCheckpoint(String jobId) {
            }

            @Override
            public void deleteCheckpoint(String jobId, String pipelineId, String checkpointId) {
            }

            @Override
            public void deleteCheckpoint(String jobId, String pipelineId, List<String> checkpointIdList) {
            }
        };
    }
}
