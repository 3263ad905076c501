package io.keepsake.storage.hdfs;

import org.apache.hadoop.security.UserGroupInformation;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.security.PrivilegedExceptionAction;

/**
 * Runs Hadoop calls as one identity: a Kerberos keytab login, whose ticket is renewed from the
 * keytab before a call when it is close to expiry, or the current user. Thread-safe.
 */
final class AsUser {

    /** A call to Hadoop. */
    @FunctionalInterface
    interface HadoopCall<T> {
        T run() throws IOException;
    }

    private final UserGroupInformation user;

    /** @param user the identity for every call, or null for the current user */
    AsUser(UserGroupInformation user) {
        this.user = user;
    }

    /** The identity, or null for the current user. */
    UserGroupInformation user() {
        return user;
    }

    /** Who the calls run as, for messages. */
    String name() {
        return user == null ? "the current user" : user.getUserName();
    }

    /** Runs {@code action} as the identity. */
    <T> T call(HadoopCall<T> action) throws IOException {
        if (user == null) {
            return action.run();
        }
        try {
            user.checkTGTAndReloginFromKeytab();
        } catch (IOException e) {
            throw new IOException("Cannot renew the Kerberos login of " + user.getUserName() + " from its keytab: "
                    + e.getMessage(), e);
        }
        try {
            return user.doAs((PrivilegedExceptionAction<T>) action::run);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while calling the file system"
                    + " as " + user.getUserName());
            interrupted.initCause(e);
            throw interrupted;
        }
    }
}
