package io.keepsake.storage.azure;

import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointWriter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * A child JVM of {@link AzureCommitRaceTest}: opens the target, prints {@code READY}, waits for a line
 * on standard input, then commits savepoints {@code race-0 .. race-<n-1>} of job {@code 1001} in
 * turn, each with one payload naming this process, and prints {@code WON <id>} or {@code LOST <id>}
 * for each, then {@code DONE}. Arguments: {@code target-file tag n}.
 */
public final class RaceChild {

    private RaceChild() {
    }

    /** Runs the races; see the class comment. */
    public static void main(String[] args) throws Exception {
        StorageTarget target = StorageTarget.load(Path.of(args[0]));
        String tag = args[1];
        int n = Integer.parseInt(args[2]);
        try (CheckpointStorage storage = target.open()) {
            SavepointStorage s = StorageTarget.savepoints(storage);
            System.out.println("READY");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            for (int i = 0; i < n; i++) {
                String id = "race-" + i;
                System.out.println((commit(s, id, tag) ? "WON " : "LOST ") + id);
                System.out.flush();
            }
        }
        System.out.println("DONE");
        System.out.flush();
        System.exit(0);
    }

    /** Commits one savepoint; true when this commit won, false when another was published first. */
    static boolean commit(SavepointStorage s, String id, String tag) throws IOException {
        try (SavepointWriter w = s.beginSavepoint(new SavepointRequest("1001", id, SavepointKind.MANUAL, "race",
                "test-payload", 1L, Map.of("writer", tag)))) {
            try (OutputStream out = w.openPayload(1, 1)) {
                out.write(tag.getBytes(StandardCharsets.UTF_8));
            }
            w.commit(2L);
            return true;
        } catch (SavepointAlreadyExistsException e) {
            return false;
        }
    }
}
