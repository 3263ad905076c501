package io.keepsake.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * SeaTunnel 2.3.8's own S3 checkpoint storage ({@code checkpoint-storage-hdfs} with {@code storage.type: s3},
 * Hadoop 3.1.4's S3A, hadoop-aws 3.1.4, AWS SDK 1.11.271), driven as its engine drives it, in a child JVM.
 *
 * <p>The child's class path is the jars the build copies to {@code target/seatunnel-s3a} (none of them is a
 * dependency of this module: its Hadoop 3.4.1 would clash with the plugin's 3.1.4) and a temporary directory
 * holding only {@link SeaTunnelS3aPeerMain}'s class. {@code -Dkeepsake.bench.seatunnelS3aDir=DIR} names
 * another directory of those jars.
 *
 * <p>Each call sends one command and waits for its answer; the nanos returned are measured in the child around
 * the SeaTunnel call alone (no JVM start, no pipe). State bytes are generated in the child from their size and
 * seed. Failures are {@link IOException}s naming the operation, the job and the child's message; a child that
 * died is reported with its exit code and the tail of its stderr. Calls are serialised, one command at a time;
 * {@link #storeAll} and {@link #restoreAll} run the pipelines of one checkpoint in parallel inside the child.
 */
final class SeaTunnelS3aPeer implements AutoCloseable {

    /** The system property naming the directory of the peer's jars. */
    static final String JARS_PROPERTY = "keepsake.bench.seatunnelS3aDir";
    private static final String MAIN = SeaTunnelS3aPeerMain.class.getName();
    /** SeaTunnel's server runs with 2 GiB (config/jvm_options); 4 GiB leaves room for four 256 MiB states stored at once. */
    private static final List<String> FLAGS = List.of("-Xmx4g");
    private static final int TAIL_LINES = 40;
    private static final long EXIT_SECONDS = 30;

    private final Process process;
    private final BufferedReader answers;
    private final Writer commands;
    private final Path mainDirectory;
    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final Thread stderrDrain;
    private String libraries;

    private SeaTunnelS3aPeer(Process process, Path mainDirectory) {
        this.process = process;
        this.mainDirectory = mainDirectory;
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.stderrDrain = new Thread(() -> drain(process.getErrorStream()), "seatunnel-s3a-peer-stderr");
        this.stderrDrain.setDaemon(true);
        this.stderrDrain.start();
    }

    /**
     * Starts the child JVM and opens SeaTunnel's S3 checkpoint storage on {@code bucket} at {@code endpoint}.
     *
     * @param endpoint  the S3 endpoint, e.g. {@code http://127.0.0.1:9000}
     * @param bucket    an existing bucket
     * @param namespace SeaTunnel's {@code namespace}: the checkpoint root inside the bucket, e.g.
     *                  {@code /seatunnel/checkpoint/}
     * @throws IOException when the jars are missing or the child cannot open the storage
     */
    static SeaTunnelS3aPeer start(URI endpoint, String bucket, String accessKey, String secretKey, String namespace)
            throws IOException {
        return start(jarDirectory(), endpoint, bucket, accessKey, secretKey, namespace);
    }

    // About 57 lines: argument checks, the child JVM's command line and its handshake, in order.
    /** Like {@link #start(URI, String, String, String, String)}, with the peer's jars taken from {@code jarDirectory}. */
    static SeaTunnelS3aPeer start(Path jarDirectory, URI endpoint, String bucket, String accessKey, String secretKey,
                                  String namespace) throws IOException {
        if (endpoint == null || endpoint.getScheme() == null || endpoint.getHost() == null) {
            throw new IllegalArgumentException("Cannot start SeaTunnel's S3A peer: the endpoint needs a scheme and a"
                    + " host (" + endpoint + ")");
        }
        for (String[] argument : new String[][] {{"bucket", bucket}, {"accessKey", accessKey},
                {"secretKey", secretKey}, {"namespace", namespace}}) {
            if (argument[1] == null || argument[1].isBlank() || argument[1].chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("Cannot start SeaTunnel's S3A peer: " + argument[0]
                        + " must be non-empty without white space");
            }
        }
        List<Path> jars = jars(jarDirectory);
        Path mainDirectory = mainClassDirectory();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FLAGS);
        command.add("-cp");
        command.add(Stream.concat(jars.stream(), Stream.of(mainDirectory)).map(Path::toString)
                .collect(Collectors.joining(File.pathSeparator)));
        command.add(MAIN);
        command.add(endpoint.toString());
        command.add(bucket);
        command.add(namespace);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put(SeaTunnelS3aPeerMain.ACCESS_KEY_ENV, accessKey);
        builder.environment().put(SeaTunnelS3aPeerMain.SECRET_KEY_ENV, secretKey);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            deleteTree(mainDirectory);
            throw new IOException("Cannot start SeaTunnel's S3A peer: " + command.get(0) + " did not start", e);
        }
        SeaTunnelS3aPeer peer = new SeaTunnelS3aPeer(process, mainDirectory);
        String opening = "open the storage on bucket " + bucket + " at " + endpoint;
        try {
            String ready;
            try {
                ready = peer.answers.readLine();
            } catch (IOException e) {
                throw peer.died(opening);
            }
            if (ready == null) {
                throw peer.died(opening);
            }
            if (!ready.startsWith("READY ")) {
                throw new IOException("SeaTunnel's S3 checkpoint storage failed to " + opening + ": " + message(ready));
            }
            peer.libraries = ready.substring("READY ".length());
            return peer;
        } catch (IOException | RuntimeException e) {
            peer.close();
            throw e;
        }
    }

    /** The versions of Hadoop and the AWS SDK the child runs, as {@code hadoop=3.1.4 aws-sdk=1.11.271}. */
    String libraries() {
        return libraries;
    }

    /** The child's process id. */
    long pid() {
        return process.pid();
    }

    /**
     * Stores checkpoint {@code checkpointId} of one pipeline: one {@code storeCheckPoint} of a
     * {@code PipelineState} holding {@code stateBytes} bytes drawn from {@code seed}.
     *
     * @return the nanos of the {@code storeCheckPoint} call
     */
    long store(String jobId, int pipeline, long checkpointId, int stateBytes, long seed) throws IOException {
        return Long.parseLong(call("store checkpoint " + checkpointId + " of job " + jobId + " pipeline " + pipeline,
                "STORE " + word(jobId) + " " + pipeline + " " + checkpointId + " " + stateBytes + " " + seed)[0]);
    }

    /**
     * Stores checkpoint {@code checkpointId} of pipelines 1..{@code pipelines} at once, each from its own thread as
     * each pipeline's checkpoint coordinator does; pipeline p's state is drawn from {@code seed + p - 1}.
     *
     * @return the nanos from the first store's start to the last one's end
     */
    long storeAll(String jobId, int pipelines, long checkpointId, int stateBytesEach, long seed) throws IOException {
        return Long.parseLong(call("store checkpoint " + checkpointId + " of job " + jobId + ", " + pipelines
                + " pipelines", "STOREALL " + word(jobId) + " " + pipelines + " " + checkpointId + " " + stateBytesEach
                + " " + seed)[0]);
    }

    /**
     * Deletes checkpoints of one pipeline as the engine's rotation past {@code max-retained} does.
     *
     * @return the nanos of the {@code deleteCheckpoint(job, pipeline, ids)} call
     */
    long delete(String jobId, int pipeline, List<Long> checkpointIds) throws IOException {
        if (checkpointIds.isEmpty()) {
            throw new IllegalArgumentException("Cannot delete checkpoints of job " + jobId + ": no checkpoint ids");
        }
        String ids = checkpointIds.stream().map(String::valueOf).collect(Collectors.joining(","));
        return Long.parseLong(call("delete checkpoints " + ids + " of job " + jobId + " pipeline " + pipeline,
                "DELETE " + word(jobId) + " " + pipeline + " " + ids)[0]);
    }

    /**
     * Restores the newest checkpoint of one pipeline and reads every byte of its state.
     *
     * @return the nanos of {@code getLatestCheckpointByJobIdAndPipelineId} and the pass over the bytes
     */
    long restoreLatest(String jobId, int pipeline) throws IOException {
        return restore(jobId, pipeline).nanos();
    }

    /**
     * Restores the newest checkpoint of pipelines 1..{@code pipelines} from a parallel stream, as the engine's
     * {@code CheckpointManager} does when a job starts from a savepoint, and reads every byte of their states.
     *
     * @return the nanos from the first restore's start to the last one's end
     */
    long restoreAll(String jobId, int pipelines) throws IOException {
        return Long.parseLong(call("restore the latest checkpoints of job " + jobId + ", " + pipelines + " pipelines",
                "RESTOREALL " + word(jobId) + " " + pipelines)[0]);
    }

    /** Like {@link #restoreLatest}, with the checkpoint id and state length the child restored. */
    Restored restore(String jobId, int pipeline) throws IOException {
        String[] answer = call("restore the latest checkpoint of job " + jobId + " pipeline " + pipeline,
                "RESTORE " + word(jobId) + " " + pipeline);
        return new Restored(Long.parseLong(answer[0]), Long.parseLong(answer[1]), Integer.parseInt(answer[2]));
    }

    /** What one restore read: its time, the checkpoint id and the length of the state bytes. */
    record Restored(long nanos, long checkpointId, int stateBytes) {
    }

    /** Asks the child to quit, waits for it briefly, and kills it if it does not. */
    @Override
    public synchronized void close() {
        try {
            if (process.isAlive()) {
                try {
                    commands.write("QUIT\n");
                    commands.flush();
                } catch (IOException ignored) {
                    // the child is already gone; destroyed below if not
                }
                if (!process.waitFor(EXIT_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(EXIT_SECONDS, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            deleteTree(mainDirectory);
        }
    }

    private synchronized String[] call(String operation, String command) throws IOException {
        String answer;
        try {
            commands.write(command);
            commands.write('\n');
            commands.flush();
            answer = answers.readLine();
        } catch (IOException e) {
            throw died(operation);
        }
        if (answer == null) {
            throw died(operation);
        }
        if (answer.startsWith("OK ")) {
            return answer.substring(3).split(" ");
        }
        throw new IOException("SeaTunnel's S3 checkpoint storage failed to " + operation + ": " + message(answer));
    }

    private IOException died(String operation) {
        int exit;
        try {
            if (!process.waitFor(EXIT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new IOException("SeaTunnel's S3A peer stopped answering while trying to " + operation
                        + "; stderr: " + tail());
            }
            exit = process.exitValue();
            stderrDrain.join(TimeUnit.SECONDS.toMillis(EXIT_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new IOException("Interrupted while waiting for SeaTunnel's S3A peer, which failed to " + operation);
        }
        return new IOException("SeaTunnel's S3A peer exited with code " + exit + " while trying to " + operation
                + "; stderr: " + tail());
    }

    private static String message(String answer) {
        return answer.startsWith("ERR ") ? answer.substring(4) : "unexpected answer '" + answer + "'";
    }

    private static String word(String jobId) {
        if (jobId == null || jobId.isEmpty() || jobId.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("Cannot call SeaTunnel's S3A peer: a job id must be non-empty without"
                    + " white space (" + jobId + ")");
        }
        return jobId;
    }

    private void drain(InputStream stderr) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(stderr, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                synchronized (stderrTail) {
                    if (stderrTail.size() == TAIL_LINES) {
                        stderrTail.removeFirst();
                    }
                    stderrTail.addLast(line);
                }
            }
        } catch (IOException e) {
            // the child closed its stderr abruptly; the tail so far is what there is
        }
    }

    private String tail() {
        synchronized (stderrTail) {
            return stderrTail.isEmpty() ? "(empty)" : String.join("\n", stderrTail);
        }
    }

    /** The directory of the peer's jars: the property, else {@code seatunnel-s3a} beside this class's origin. */
    private static Path jarDirectory() throws IOException {
        String configured = System.getProperty(JARS_PROPERTY);
        if (configured != null) {
            return Path.of(configured);
        }
        try {
            // target/classes or target/benchmarks.jar: either way, target/ is its parent
            Path origin = Path.of(SeaTunnelS3aPeer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return origin.toAbsolutePath().getParent().resolve("seatunnel-s3a");
        } catch (URISyntaxException | NullPointerException e) {
            throw new IOException("Cannot find SeaTunnel's S3A jars: set -D" + JARS_PROPERTY + "=DIR", e);
        }
    }

    private static List<Path> jars(Path directory) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.list(directory)) {
            jars = files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted(Comparator.naturalOrder())
                    .toList();
        } catch (IOException e) {
            throw new IOException("Cannot find SeaTunnel's S3A jars in " + directory + " (mvn -pl benchmarks -am"
                    + " package copies them there; or set -D" + JARS_PROPERTY + "=DIR)", e);
        }
        if (jars.stream().noneMatch(j -> j.getFileName().toString().startsWith("checkpoint-storage-hdfs-"))) {
            throw new IOException("Cannot find SeaTunnel's S3A jars: " + directory + " holds no"
                    + " checkpoint-storage-hdfs jar (mvn -pl benchmarks -am package copies them there)");
        }
        return jars;
    }

    /** A fresh directory holding only the child's main class, so nothing else of this module's class path shadows the peer's. */
    private static Path mainClassDirectory() throws IOException {
        String resource = MAIN.replace('.', '/') + ".class";
        Path directory = Files.createTempDirectory("seatunnel-s3a-peer");
        try (InputStream bytes = SeaTunnelS3aPeer.class.getClassLoader().getResourceAsStream(resource)) {
            if (bytes == null) {
                throw new IOException("Cannot start SeaTunnel's S3A peer: " + resource + " is not on the class path");
            }
            Path target = directory.resolve(resource);
            Files.createDirectories(target.getParent());
            Files.copy(bytes, target);
            return directory;
        } catch (IOException | RuntimeException e) {
            deleteTree(directory);
            throw e;
        }
    }

    private static void deleteTree(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory left behind holds one class file
        }
    }
}
