package io.keepsake.seatunnel;

import io.keepsake.storage.internal.ComposedStorage;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One job's savepoint folder as the test JVM sees it on the storage the cluster members share,
 * through Keepsake's own file-system SPI for that backend (the local disk, the HDFS client, the S3
 * client), never through the plugin under test. It lists the folder as docs/protocol.md lays it
 * out: an attempt in flight is a lease {@code .staging/<attempt>.lease} and a work directory, which
 * is {@code .staging/<attempt>/} on backends that rename directories atomically (local disk, HDFS)
 * and the savepoint folder {@code <savepointId>/} itself on the others (S3), where the attempt's
 * payloads are named {@code pipeline-<pid>.<attempt>.wire}.
 *
 * <p>{@link #fireAtFirstPayload} lists in a tight loop, without pausing: an attempt on these
 * backends lives for some tens of milliseconds.
 */
final class AttemptWatch implements AutoCloseable {

    private static final String STAGING = ".staging";
    private static final String LEASE = ".lease";

    private final ComposedStorage storage;
    private final StorageFileSystem fs;
    private final boolean renamesDirectories;

    /** What the watch saw when it fired, and why it fired then. */
    record Sighting(String why, List<String> seen, int listings) {
    }

    /** Opens the namespace the members share, as the operator's tool would. */
    AttemptWatch(SharedBackend ns) throws Exception {
        this.storage = (ComposedStorage) ns.open();
        this.fs = storage.fileSystem();
        this.renamesDirectories = fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME);
    }

    private String jobDir(long jobId) {
        return fs.child(storage.savepointRoot(), Long.toString(jobId));
    }

    /**
     * Lists the job's staging area over and over until an attempt's payload file shows, then runs
     * {@code fire} at once. If {@code attempts} attempts came and went without a payload being seen
     * (each was quicker than a listing), or {@code timeout} passed, it fires then and says so.
     */
    Sighting fireAtFirstPayload(long jobId, int attempts, Duration timeout, Runnable fire) {
        String jobDir = jobDir(jobId);
        String stagingDir = fs.child(jobDir, STAGING);
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<String> attemptsSeen = new LinkedHashSet<>();
        int listings = 0;
        try {
            while (true) {
                List<FileStatus> staging = fs.list(stagingDir);
                listings++;
                List<String> seen = new ArrayList<>();
                List<String> leases = new ArrayList<>();
                for (FileStatus e : staging) {
                    seen.add(describe(STAGING + "/" + e.name(), e));
                    if (e.regularFile() && e.name().endsWith(LEASE)) {
                        leases.add(e.name().substring(0, e.name().length() - LEASE.length()));
                    }
                }
                attemptsSeen.addAll(leases);
                for (String attempt : leases) {
                    String workDir = renamesDirectories ? STAGING + "/" + attempt : savepointIdOf(attempt);
                    List<FileStatus> work = fs.list(fs.child(jobDir, workDir));
                    listings++;
                    List<FileStatus> payloads = work.stream().filter(f -> isPayloadOf(attempt, f)).toList();
                    if (!payloads.isEmpty()) {
                        fire.run();
                        work.forEach(f -> seen.add(describe(workDir + "/" + f.name(), f)));
                        return new Sighting("a payload file of attempt " + attempt, seen, listings);
                    }
                }
                if (leases.isEmpty() && attemptsSeen.size() >= attempts) {
                    fire.run();
                    return new Sighting("no payload seen: " + attemptsSeen.size() + " attempts came and went "
                            + attemptsSeen, seen, listings);
                }
                if (System.nanoTime() - deadline > 0) {
                    fire.run();
                    return new Sighting("no payload seen within " + timeout + ", attempts seen " + attemptsSeen,
                            seen, listings);
                }
            }
        } catch (IOException e) {
            fire.run();
            throw new UncheckedIOException("Cannot list " + stagingDir, e);
        }
    }

    /** Everything below the job's savepoint folder, relative to it, files with their length; sorted. */
    List<String> tree(long jobId) {
        List<String> all = new ArrayList<>();
        try {
            walk("", jobDir(jobId), all);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + jobDir(jobId), e);
        }
        return all.stream().sorted().toList();
    }

    /** The entries of {@link #tree} below the staging folder (not the folder itself, which gc leaves empty). */
    List<String> staging(long jobId) {
        String folder = STAGING + "/";
        return tree(jobId).stream().filter(p -> p.startsWith(folder) && !p.equals(folder)).toList();
    }

    private void walk(String relative, String dir, List<String> into) throws IOException {
        for (FileStatus e : fs.list(dir)) {
            String name = relative.isEmpty() ? e.name() : relative + "/" + e.name();
            into.add(describe(name, e));
            if (e.directory()) {
                walk(name, fs.child(dir, e.name()), into);
            }
        }
    }

    /**
     * True for a payload the attempt writes: {@code pipeline-<pid>.wire} in its staging directory,
     * {@code pipeline-<pid>.<attempt>.wire} in the savepoint folder.
     */
    private boolean isPayloadOf(String attempt, FileStatus f) {
        String n = f.name();
        String tail = renamesDirectories ? ".wire" : "." + attempt + ".wire";
        return f.regularFile() && n.startsWith("pipeline-") && n.endsWith(tail)
                && n.substring("pipeline-".length(), n.length() - tail.length()).matches("-?\\d+");
    }

    /** The savepoint id an attempt is for: the attempt id less its dot and 16 hex digits. */
    private static String savepointIdOf(String attempt) {
        return attempt.substring(0, attempt.lastIndexOf('.'));
    }

    private static String describe(String relative, FileStatus e) {
        return e.directory() ? relative + "/" : relative + " (" + e.length() + " B)";
    }

    @Override
    public void close() {
        storage.close();
    }
}
