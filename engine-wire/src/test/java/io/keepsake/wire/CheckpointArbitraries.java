package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** jqwik generators of runtime checkpoints of many shapes, shared by the property tests. */
final class CheckpointArbitraries {

    private CheckpointArbitraries() {
    }

    /** Any long, with the extremes and small values as frequent edge cases. */
    static Arbitrary<Long> longs() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs()),
                Tuple.of(1, Arbitraries.of(0L, -1L, 1L, Long.MAX_VALUE, Long.MIN_VALUE)),
                Tuple.of(1, Arbitraries.longs().between(0, 1000)));
    }

    static Arbitrary<Integer> ints() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers()),
                Tuple.of(1, Arbitraries.of(0, -1, 1, Integer.MAX_VALUE, Integer.MIN_VALUE)));
    }

    /** Action names: ASCII, accented and CJK letters, emoji (surrogate pairs) and the empty name. */
    static Arbitrary<String> names() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(24),
                Arbitraries.strings().withChars("aÜñé☃汉字ß-[]0").ofMaxLength(10),
                Arbitraries.of("", "Source[0]-FakeSource", "Sink[1]-Console ☃", "🚀 rocket 🚀", "\u0000nul"));
    }

    /** Byte arrays: mostly small, sometimes empty, rarely 4 to 40 KB. */
    static Arbitrary<byte[]> bytes(boolean allowLarge) {
        Arbitrary<byte[]> small = Arbitraries.bytes().array(byte[].class).ofMaxSize(48);
        Arbitrary<byte[]> empty = Arbitraries.just(new byte[0]);
        if (!allowLarge) {
            return Arbitraries.frequencyOf(Tuple.of(1, empty), Tuple.of(6, small));
        }
        Arbitrary<byte[]> large = Arbitraries.integers().between(4_000, 40_000).map(CheckpointArbitraries::pattern);
        return Arbitraries.frequencyOf(Tuple.of(3, empty), Tuple.of(20, small), Tuple.of(1, large));
    }

    private static byte[] pattern(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + (i >>> 8));
        }
        return b;
    }

    static Arbitrary<ActionSubtaskState> subtask(ActionStateKey key, Arbitrary<Integer> index, boolean allowLarge) {
        Arbitrary<List<byte[]>> state = bytes(allowLarge).injectNull(0.15).list().ofMaxSize(4);
        return Combinators.combine(index, state).as((i, s) -> new ActionSubtaskState(key, i, s));
    }

    static Arbitrary<ActionState> actionState(boolean allowLarge) {
        return names().flatMap(name -> {
            ActionStateKey key = new ActionStateKey(name);
            Arbitrary<ActionSubtaskState> coordinator =
                    subtask(key, Arbitraries.just(ActionSubtaskState.COORDINATOR_INDEX), allowLarge).injectNull(0.5);
            return Arbitraries.integers().between(0, 6).flatMap(parallelism -> {
                Arbitrary<Integer> index = Arbitraries.integers().between(-1, Math.max(0, parallelism * 2));
                Arbitrary<List<ActionSubtaskState>> slots =
                        subtask(key, index, allowLarge).injectNull(0.35).list().ofSize(parallelism);
                return Combinators.combine(slots, coordinator)
                        .as((s, c) -> new ActionState(key, s, c, parallelism));
            });
        });
    }

    static Arbitrary<SubtaskStatistics> subtaskStatistics() {
        return Combinators.combine(ints(), longs(), longs(), Arbitraries.of(SubtaskStatus.class))
                .as(SubtaskStatistics::new);
    }

    static Arbitrary<TaskStatistics> taskStatistics() {
        return longs().flatMap(vertex -> Arbitraries.integers().between(0, 6).flatMap(parallelism ->
                Combinators.combine(
                        subtaskStatistics().injectNull(0.4).list().ofSize(parallelism),
                        Arbitraries.of(true, false).list().ofSize(parallelism),
                        Arbitraries.integers().between(0, Integer.MAX_VALUE),
                        subtaskStatistics().injectNull(0.5))
                        .as((stats, completed, acked, latest) -> {
                            boolean[] flags = new boolean[completed.size()];
                            for (int i = 0; i < flags.length; i++) {
                                flags[i] = completed.get(i);
                            }
                            return new TaskStatistics(vertex, stats, flags, acked, latest);
                        })));
    }

    /** Checkpoints with up to 5 actions and 4 statistics, empty maps included, large arrays rarely. */
    static Arbitrary<CompletedCheckpoint> checkpoints() {
        return checkpoints(true);
    }

    /** Checkpoints whose byte arrays stay small, for tests that decode many variants of one encoding. */
    static Arbitrary<CompletedCheckpoint> smallCheckpoints() {
        return checkpoints(false);
    }

    private static Arbitrary<CompletedCheckpoint> checkpoints(boolean allowLarge) {
        Arbitrary<List<ActionState>> actions = actionState(allowLarge).list().ofMaxSize(5)
                .withSizeDistribution(RandomDistribution.uniform()).uniqueElements(a -> a.stateKey().name());
        Arbitrary<List<TaskStatistics>> stats = taskStatistics().list().ofMaxSize(4)
                .withSizeDistribution(RandomDistribution.uniform()).uniqueElements(TaskStatistics::jobVertexId);
        Arbitrary<Header> header = Combinators.combine(longs(), ints(), longs(), longs(),
                Arbitraries.of(CheckpointType.class), longs(), Arbitraries.of(true, false)).as(Header::new);
        return Combinators.combine(header, actions, stats).as((h, a, s) -> {
            Map<ActionStateKey, ActionState> taskStates = new LinkedHashMap<>();
            a.forEach(action -> taskStates.put(action.stateKey(), action));
            Map<Long, TaskStatistics> taskStatistics = new LinkedHashMap<>();
            s.forEach(stat -> taskStatistics.put(stat.jobVertexId(), stat));
            return new CompletedCheckpoint(h.jobId, h.pipelineId, h.checkpointId, h.trigger, h.type, h.completed,
                    taskStates, taskStatistics, h.restored);
        });
    }

    private record Header(long jobId, int pipelineId, long checkpointId, long trigger, CheckpointType type,
                          long completed, boolean restored) {
    }
}
