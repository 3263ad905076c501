package io.keepsake.bench;

import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

/**
 * The child side of {@link SeaTunnelS3aPeer}: SeaTunnel 2.3.8's {@code hdfs} checkpoint storage with
 * {@code storage.type: s3} (Hadoop's S3A), in a JVM whose class path holds only SeaTunnel's storage jars,
 * Hadoop 3.1.4, hadoop-aws and the AWS SDK v1, and this class.
 *
 * <p>The storage is found as SeaTunnel's engine finds it (a {@link ServiceLoader} over
 * {@link CheckpointStorageFactory}, the one whose identifier is {@code hdfs}) and configured with the keys of
 * SeaTunnel's S3 checkpoint storage documentation: {@code storage.type}, {@code s3.bucket} (an {@code s3a://}
 * URI), {@code fs.s3a.endpoint}, {@code fs.s3a.access.key}, {@code fs.s3a.secret.key},
 * {@code fs.s3a.aws.credentials.provider} ({@code SimpleAWSCredentialsProvider}), and {@code namespace}; plus
 * {@code fs.s3a.path.style.access}, so that an endpoint named by a host name rather than an IP address is
 * addressed as S3Proxy and MinIO expect (for an IP address the AWS SDK uses path-style requests anyway).
 *
 * <p>Arguments: endpoint, bucket, namespace; the keys come in the environment variables
 * {@value #ACCESS_KEY_ENV} and {@value #SECRET_KEY_ENV}. After the storage opens it prints
 * {@code READY hadoop=VERSION aws-sdk=VERSION} (the libraries the child runs); then it reads one command per
 * line on stdin and answers each with one line on stdout:
 * <ul>
 *   <li>{@code STORE job pipeline checkpointId bytes seed}: one {@code storeCheckPoint};</li>
 *   <li>{@code STOREALL job pipelines checkpointId bytesEach seed}: pipelines 1..n stored at once, each
 *       from its own thread, as each pipeline's checkpoint coordinator does;</li>
 *   <li>{@code DELETE job pipeline id,id,...}: one {@code deleteCheckpoint(job, pipeline, ids)};</li>
 *   <li>{@code RESTORE job pipeline}: {@code getLatestCheckpointByJobIdAndPipelineId} and a pass over every
 *       byte of its state, answered {@code OK nanos checkpointId length};</li>
 *   <li>{@code RESTOREALL job pipelines}: the same for pipelines 1..n from a parallel stream, as the engine's
 *       {@code CheckpointManager} restores them, answered {@code OK nanos totalLength};</li>
 *   <li>{@code QUIT}.</li>
 * </ul>
 * An answer is {@code OK nanos ...} (the time of the SeaTunnel call alone) or {@code ERR message}. The state
 * bytes are generated here from their size and seed ({@link #state}), so large states never cross the pipe;
 * their first 12 bytes say their length and seed, which lets a restore check its bytes after the timed call.
 * Anything else the libraries print goes to stderr.
 */
public final class SeaTunnelS3aPeerMain {

    /** The environment variable holding the access key. */
    static final String ACCESS_KEY_ENV = "KEEPSAKE_PEER_ACCESS_KEY";
    /** The environment variable holding the secret key. */
    static final String SECRET_KEY_ENV = "KEEPSAKE_PEER_SECRET_KEY";
    /** The bytes at the start of every state: its length (int) and seed (long). */
    static final int HEADER = Integer.BYTES + Long.BYTES;

    private static final String FACTORY_IDENTIFIER = "hdfs";
    private static final int MAX_MESSAGE = 4000;

    private SeaTunnelS3aPeerMain() {
    }

    /**
     * Opens the storage and serves commands until {@code QUIT} or the end of stdin.
     *
     * @param args endpoint, bucket, namespace
     */
    public static void main(String[] args) throws Exception {
        PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 3) {
            answers.println("ERR usage: SeaTunnelS3aPeerMain ENDPOINT BUCKET NAMESPACE (" + args.length + " arguments)");
            System.exit(2);
        }
        CheckpointStorage storage;
        try {
            storage = open(args[0], args[1], args[2]);
        } catch (Exception | LinkageError e) {
            answers.println("ERR " + describe(e));
            e.printStackTrace();
            System.exit(2);
            return;
        }
        ExecutorService coordinators = Executors.newCachedThreadPool();
        answers.println("READY hadoop=" + version("org.apache.hadoop.util.VersionInfo", "getVersion")
                + " aws-sdk=" + version("com.amazonaws.util.VersionInfoUtils", "getVersion"));
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = commands.readLine()) != null) {
            String[] words = line.strip().split(" ");
            if (words[0].equals("QUIT")) {
                break;
            }
            String answer;
            try {
                answer = "OK " + run(storage, coordinators, words);
            } catch (Exception | OutOfMemoryError | LinkageError e) {
                e.printStackTrace();
                answer = "ERR " + describe(e);
            }
            answers.println(answer);
        }
        coordinators.shutdownNow();
        System.exit(0);
    }

    /** Finds SeaTunnel's {@code hdfs} storage factory the way its engine does and opens the S3 storage. */
    private static CheckpointStorage open(String endpoint, String bucket, String namespace) throws Exception {
        List<CheckpointStorageFactory> found = new ArrayList<>();
        for (CheckpointStorageFactory factory : ServiceLoader.load(CheckpointStorageFactory.class,
                Thread.currentThread().getContextClassLoader())) {
            if (FACTORY_IDENTIFIER.equals(factory.factoryIdentifier())) {
                found.add(factory);
            }
        }
        if (found.size() != 1) {
            throw new IllegalStateException("Cannot open SeaTunnel's checkpoint storage: expected one factory '"
                    + FACTORY_IDENTIFIER + "' on the class path, found " + found.size());
        }
        Map<String, String> config = new HashMap<>();
        config.put("namespace", namespace);
        config.put("storage.type", "s3");
        config.put("s3.bucket", "s3a://" + bucket);
        config.put("fs.s3a.endpoint", endpoint);
        config.put("fs.s3a.access.key", required(ACCESS_KEY_ENV));
        config.put("fs.s3a.secret.key", required(SECRET_KEY_ENV));
        config.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        config.put("fs.s3a.path.style.access", "true");
        return found.get(0).create(config);
    }

    /** A library's version, read through reflection: this class is compiled against SeaTunnel's storage API only. */
    private static String version(String className, String method) {
        try {
            return String.valueOf(Class.forName(className).getMethod(method).invoke(null));
        } catch (ReflectiveOperationException | LinkageError e) {
            return "unknown";
        }
    }

    private static String required(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("Cannot open SeaTunnel's checkpoint storage: " + variable + " is not set");
        }
        return value;
    }

    // About 77 lines: one case per command of the peer's line protocol, each a few lines.
    private static String run(CheckpointStorage storage, ExecutorService coordinators, String[] words)
            throws Exception {
        switch (words[0]) {
            case "STORE": {
                arity(words, 6);
                PipelineState state = wrap(words[1], Integer.parseInt(words[2]), Long.parseLong(words[3]),
                        state(Integer.parseInt(words[4]), Long.parseLong(words[5])));
                long start = System.nanoTime();
                storage.storeCheckPoint(state);
                return Long.toString(System.nanoTime() - start);
            }
            case "STOREALL": {
                arity(words, 6);
                int pipelines = Integer.parseInt(words[2]);
                List<Callable<String>> stores = new ArrayList<>();
                for (int p = 1; p <= pipelines; p++) {
                    PipelineState state = wrap(words[1], p, Long.parseLong(words[3]),
                            state(Integer.parseInt(words[4]), Long.parseLong(words[5]) + p - 1));
                    stores.add(() -> storage.storeCheckPoint(state));
                }
                long start = System.nanoTime();
                List<Future<String>> done = coordinators.invokeAll(stores);
                long nanos = System.nanoTime() - start;
                for (Future<String> store : done) {
                    try {
                        store.get();
                    } catch (ExecutionException e) {
                        throw e.getCause() instanceof Exception cause ? cause : e;
                    }
                }
                return Long.toString(nanos);
            }
            case "DELETE": {
                arity(words, 4);
                List<String> ids = Arrays.asList(words[3].split(","));
                long start = System.nanoTime();
                storage.deleteCheckpoint(words[1], words[2], ids);
                return Long.toString(System.nanoTime() - start);
            }
            case "RESTORE": {
                arity(words, 3);
                long start = System.nanoTime();
                PipelineState state = latest(storage, words[1], words[2]);
                long nanos = System.nanoTime() - start;
                check(state);
                return nanos + " " + state.getCheckpointId() + " " + state.getStates().length;
            }
            case "RESTOREALL": {
                arity(words, 3);
                List<String> pipelines = IntStream.rangeClosed(1, Integer.parseInt(words[2])).mapToObj(String::valueOf)
                        .toList();
                long start = System.nanoTime();
                List<PipelineState> states;
                try {
                    // as CheckpointManager restores its pipelines: a parallel stream over them
                    states = pipelines.parallelStream().map(p -> {
                        try {
                            return latest(storage, words[1], p);
                        } catch (CheckpointStorageException e) {
                            throw new CompletionException(e);
                        }
                    }).toList();
                } catch (CompletionException e) {
                    throw e.getCause() instanceof CheckpointStorageException cause ? cause : e;
                }
                long nanos = System.nanoTime() - start;
                long bytes = 0;
                for (PipelineState state : states) {
                    check(state);
                    bytes += state.getStates().length;
                }
                return nanos + " " + bytes;
            }
            default:
                throw new IllegalArgumentException("unknown command " + words[0]);
        }
    }

    /**
     * The newest checkpoint of a pipeline, and a pass over every byte of its state (its length checked against
     * its header): what a restore costs before the engine deserializes the state.
     */
    private static PipelineState latest(CheckpointStorage storage, String jobId, String pipeline)
            throws CheckpointStorageException {
        PipelineState state = storage.getLatestCheckpointByJobIdAndPipelineId(jobId, pipeline);
        if (state == null) {
            throw new IllegalStateException("no checkpoint of job " + jobId + " pipeline " + pipeline);
        }
        byte[] bytes = state.getStates();
        long fold = 0;
        for (byte b : bytes) {
            fold = fold * 31 + b;
        }
        int declared = bytes.length < HEADER ? -1 : ByteBuffer.wrap(bytes).getInt();
        if (declared != bytes.length) {
            throw new IllegalStateException("restored " + bytes.length + " bytes of checkpoint "
                    + state.getCheckpointId() + " of job " + jobId + " pipeline " + pipeline + ", whose header says "
                    + declared + " (fold " + fold + ")");
        }
        return state;
    }

    /** Checks, after the timed restore, that a state's bytes are those its header's size and seed draw. */
    private static void check(PipelineState state) {
        byte[] bytes = state.getStates();
        if (!Arrays.equals(bytes, state(bytes.length, ByteBuffer.wrap(bytes).getLong(Integer.BYTES)))) {
            throw new IllegalStateException("restored bytes of checkpoint " + state.getCheckpointId() + " of job "
                    + state.getJobId() + " pipeline " + state.getPipelineId() + " differ from the bytes stored");
        }
    }

    private static void arity(String[] words, int expected) {
        if (words.length != expected) {
            throw new IllegalArgumentException(words[0] + " takes " + (expected - 1) + " arguments, got "
                    + (words.length - 1));
        }
    }

    /** The engine's wrapper, as {@code CheckpointCoordinator.completePendingCheckpoint} builds it. */
    private static PipelineState wrap(String jobId, int pipeline, long checkpointId, byte[] states) {
        return PipelineState.builder().checkpointId(checkpointId).jobId(jobId).pipelineId(pipeline).states(states)
                .build();
    }

    /** {@code size} bytes: the size and the seed, then bytes drawn from the seed. */
    static byte[] state(int size, long seed) {
        if (size < HEADER) {
            throw new IllegalArgumentException("a state holds at least " + HEADER + " bytes (" + size + ")");
        }
        byte[] bytes = new byte[size];
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        buffer.putInt(size).putLong(seed);
        SplittableRandom random = new SplittableRandom(seed);
        while (buffer.remaining() >= Long.BYTES) {
            buffer.putLong(random.nextLong());
        }
        while (buffer.hasRemaining()) {
            buffer.put((byte) random.nextInt());
        }
        return bytes;
    }

    /** One line: the exception's class and message, with its causes', at most 4,000 characters. */
    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null && text.length() < MAX_MESSAGE; t = t.getCause()) {
            if (text.length() > 0) {
                text.append(" <- ");
            }
            text.append(t.getClass().getName());
            if (t.getMessage() != null) {
                text.append(": ").append(t.getMessage());
            }
        }
        String flat = text.toString().replace('\r', ' ').replace('\n', ' ');
        return flat.length() <= MAX_MESSAGE ? flat : flat.substring(0, MAX_MESSAGE) + "...";
    }
}
