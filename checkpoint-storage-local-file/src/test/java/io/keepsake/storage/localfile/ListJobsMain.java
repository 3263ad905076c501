package io.keepsake.storage.localfile;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;

/**
 * Run in a child JVM by {@link UnrepresentableNamesTest}: lists every savepoint job and its
 * savepoints under a namespace and prints them with the JVM's file-name encoding; exits 1 on any
 * exception.
 */
public final class ListJobsMain {

    private ListJobsMain() {
    }

    public static void main(String[] args) {
        System.out.println("sun.jnu.encoding=" + System.getProperty("sun.jnu.encoding"));
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), args[0], null)) {
            for (String job : storage.listJobs()) {
                for (SavepointHandle h : storage.listSavepoints(job)) {
                    System.out.println("savepoint " + job + "/" + h.savepointId());
                }
            }
            System.out.println("checkpoints " + storage.getAllCheckpoints("ok-job").size());
            System.out.println("listed");
        } catch (Exception e) {
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }
}
