package io.keepsake.tool.internal;

import io.keepsake.tool.ToolUsageException;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which legacy checkpoint of each pipeline {@code keepsake migrate} migrates: the newest, unless
 * {@code --checkpoint} chose one for a pipeline ({@code 1:2}, checkpoint 2 of pipeline 1) or for
 * every pipeline not named ({@code 2}). Immutable value.
 *
 * @param byPipeline    the checkpoint chosen per pipeline
 * @param everyPipeline the checkpoint chosen for the pipelines not in {@code byPipeline}, or null for their newest
 */
public record CheckpointChoice(Map<Integer, Long> byPipeline, Long everyPipeline) {

    /** The newest checkpoint of every pipeline. */
    public static final CheckpointChoice NEWEST = new CheckpointChoice(Map.of(), null);

    /** Copies the map. */
    public CheckpointChoice {
        byPipeline = Map.copyOf(byPipeline);
    }

    /**
     * Reads {@code --checkpoint} values: {@code PIPELINE:CHECKPOINT}, or one {@code CHECKPOINT} for every other pipeline.
     *
     * @throws ToolUsageException when a value is not of that shape, or a pipeline is chosen twice
     */
    public static CheckpointChoice parse(List<String> values) {
        Map<Integer, Long> byPipeline = new TreeMap<>();
        Long every = null;
        for (String value : values) {
            String v = value.trim();
            int colon = v.indexOf(':');
            try {
                if (colon < 0) {
                    if (every != null) {
                        throw new ToolUsageException("Cannot migrate: --checkpoint without a pipeline may be given once,"
                                + " for every pipeline; name the others as PIPELINE:CHECKPOINT (" + value + ")");
                    }
                    every = Long.parseLong(v);
                } else {
                    int pipeline = Integer.parseInt(v.substring(0, colon).trim());
                    long checkpoint = Long.parseLong(v.substring(colon + 1).trim());
                    if (byPipeline.put(pipeline, checkpoint) != null) {
                        throw new ToolUsageException("Cannot migrate: --checkpoint names pipeline " + pipeline
                                + " twice (" + value + ")");
                    }
                }
            } catch (NumberFormatException e) {
                throw new ToolUsageException("Cannot migrate: --checkpoint takes CHECKPOINT or PIPELINE:CHECKPOINT,"
                        + " numbers such as 2 or 1:2 (" + value + ")", e);
            }
        }
        return new CheckpointChoice(byPipeline, every);
    }

    /** True when nothing was chosen: the newest of every pipeline. */
    public boolean newest() {
        return byPipeline.isEmpty() && everyPipeline == null;
    }

    /** The checkpoint chosen for {@code pipeline}, or null for its newest. */
    public Long forPipeline(int pipeline) {
        return byPipeline.getOrDefault(pipeline, everyPipeline);
    }
}
