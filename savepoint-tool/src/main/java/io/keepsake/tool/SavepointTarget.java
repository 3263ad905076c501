package io.keepsake.tool;

import io.keepsake.tool.internal.SavepointPath;

import java.util.List;

/**
 * The savepoint a command was pointed at: {@code JOB SAVEPOINT} ids under the configured roots, or
 * one savepoint directory path whose parent's parent is the savepoint root for that call. A path
 * to a file inside a savepoint folder ({@code .../sp-42/_metadata.ser}) stands for the folder;
 * {@link #requireFolder} refuses it where that would be a surprise (delete).
 *
 * @param jobId       the job, or null when none was given
 * @param savepointId the savepoint, or null when none was given
 * @param path        the directory path given instead of ids (or the folder of the file given), or null
 */
record SavepointTarget(String jobId, String savepointId, SavepointPath path) {

    /**
     * Reads the positional arguments: none, {@code JOB}, {@code JOB SAVEPOINT} or {@code PATH}.
     *
     * @throws ToolUsageException when there are more than two, or a path comes with a second argument
     */
    static SavepointTarget of(String command, List<String> arguments) {
        if (arguments == null || arguments.isEmpty()) {
            return new SavepointTarget(null, null, null);
        }
        if (arguments.size() > 2) {
            throw new ToolUsageException("Cannot " + command + ": give JOB SAVEPOINT or one savepoint directory path, not "
                    + arguments.size() + " arguments (" + String.join(" ", arguments) + ")");
        }
        String first = arguments.get(0);
        if (SavepointPath.looksLikePath(first)) {
            if (arguments.size() == 2) {
                throw new ToolUsageException("Cannot " + command + ": a savepoint directory path names the job and the"
                        + " savepoint already; drop the second argument (" + arguments.get(1) + ")");
            }
            SavepointPath path = SavepointPath.parse(first);
            if (path.fileInSavepoint()) {
                path = path.folder();
            } else if (path.jobFolder()) {
                throw jobFolder(command, first, path);
            }
            return new SavepointTarget(path.jobId(), path.savepointId(), path);
        }
        return new SavepointTarget(first, arguments.size() == 2 ? arguments.get(1) : null, null);
    }

    /**
     * The refusal of a job's folder given where a savepoint's is expected, saying what to type: the
     * job with the roots as flags ({@code --namespace} alone for the default root {@code <namespace>/savepoint}).
     */
    private static ToolUsageException jobFolder(String command, String argument, SavepointPath path) {
        String root = path.savepointRoot() + "/" + path.jobId();
        String job = path.savepointId();
        String roots = SavepointPath.DEFAULT_ROOT_NAME.equals(path.jobId()) ? "--namespace " + path.savepointRoot()
                : "--namespace NAMESPACE --savepoint-path " + root;
        String instead = "verify".equals(command) ? "to " + command + " every savepoint of the job, type: keepsake "
                + command + " " + roots + " " + job
                : "to see its savepoints, type: keepsake list " + roots + " " + job + "; then keepsake " + command
                + " " + root + "/" + job + "/<savepoint>";
        return new ToolUsageException("Cannot " + command + " " + argument + ": it is the folder of job " + job
                + " under the savepoint root " + root + ", not a savepoint's folder (one level deeper); " + instead);
    }

    /**
     * Refuses a path that named a file inside the savepoint folder instead of the folder.
     *
     * @throws ToolUsageException naming the folder to give instead
     */
    SavepointTarget requireFolder(String command) {
        if (path != null && path.givenFile() != null) {
            throw new ToolUsageException("Cannot " + command + ": give the savepoint folder, not a file in it ("
                    + path.givenFile() + "); the folder is " + path.location());
        }
        return this;
    }
}
