package io.keepsake.seatunnel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One job of an engine scenario: its job file, the engine it runs on and the namespace its
 * checkpoint files land in, with the steps the scenarios repeat (submit, checkpoint, save, restore,
 * cancel), each waiting up to {@code timeout} for what the namespace shows.
 *
 * @param engine the engine the job runs on
 * @param ns     where the engine's checkpoint storage writes the job's checkpoint files
 * @param conf   the job file
 * @param jobId  the engine's id of the job
 * @param timeout how long each step waits at most
 */
record RunningJob(EmbeddedEngine engine, Namespace ns, Path conf, long jobId, Duration timeout) {

    /** Submits {@code conf} and waits until the job is RUNNING. */
    static RunningJob submit(EmbeddedEngine engine, Namespace ns, Path conf, Duration timeout) throws Exception {
        return new RunningJob(engine, ns, conf, engine.submitRunning(conf, timeout), timeout);
    }

    /** The same job seen through another engine (a fresh one that restores it). */
    RunningJob on(EmbeddedEngine other) {
        return new RunningJob(other, ns, conf, jobId, timeout);
    }

    /** Waits for {@code checkpoints} checkpoint files of the job, saves it and returns the savepoint's checkpoint id. */
    long savepointAfter(int checkpoints) {
        awaitCheckpoints(checkpoints);
        engine.savepoint(jobId);
        return ns.savepointFiles(jobId).get(0).checkpointId();
    }

    /** Waits until the job has at least {@code checkpoints} checkpoint files. */
    void awaitCheckpoints(int checkpoints) {
        EmbeddedEngine.await(checkpoints == 1 ? "a checkpoint" : checkpoints + " checkpoints", timeout,
                () -> ns.checkpoints(jobId).size() >= checkpoints);
    }

    /** Restores the job from its latest state and waits until it is RUNNING again. */
    void restore() throws Exception {
        engine.restoreRunning(conf, jobId, timeout);
    }

    /** Restores the job from its latest state and waits for a checkpoint of pipeline 1 above {@code checkpointId}. */
    void restoreAbove(long checkpointId, String what) throws Exception {
        restore();
        awaitAbove(what, 1, checkpointId);
    }

    /** Waits until each of pipelines 1 to {@code pipelines} has a checkpoint above {@code checkpointId}. */
    void awaitAbove(String what, int pipelines, long checkpointId) {
        EmbeddedEngine.await(what, timeout, () -> IntStream.rangeClosed(1, pipelines)
                .allMatch(p -> ns.maxCheckpointId(jobId, p) > checkpointId));
    }

    /** Cancels the job; the {@code kept} savepoints it has must stay. */
    void cancelKeeping(Savepoints savepoints, int kept) throws Exception {
        engine.cancel(jobId);
        assertThat(savepoints.list(jobId)).as("the savepoints of job %s after the cancel", jobId).hasSize(kept);
    }

    /** Cancels the job and waits until the storage's terminal cleanup removed its checkpoint folder. */
    void cancelAndAwaitCleanup(String what) {
        engine.cancel(jobId);
        EmbeddedEngine.await(what, timeout, () -> !Files.exists(ns.jobDir(jobId)));
    }
}
