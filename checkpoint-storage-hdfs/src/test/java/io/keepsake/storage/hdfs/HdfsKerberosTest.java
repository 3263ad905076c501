package io.keepsake.storage.hdfs;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.Progressable;
import org.apache.kerby.kerberos.kerb.keytab.Keytab;
import org.apache.kerby.kerberos.kerb.keytab.KeytabEntry;
import org.apache.kerby.kerberos.kerb.type.base.PrincipalName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;
import java.io.IOException;
import java.io.OutputStream;
import java.security.AccessController;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

/**
 * The Kerberos path of the {@code hdfs} factory against a real KDC ({@link MiniKdc}, in process):
 * the keytab login, every file-system call running as the principal, the error for a bad
 * keytab, and the ticket renewal from the keytab that {@link HdfsFileSystem} does before a call.
 *
 * <p>No secure HDFS is started. The Kerberos keys are accepted for {@code storage.type hdfs} only
 * ({@code local} refuses them, see {@code HdfsStorageFactoryTest}), so the storage is configured
 * as {@code hdfs} at {@code hdfs://localhost} with {@code fs.hdfs.impl} pointing at
 * {@link RecordingLocalFileSystem}: the local disk through {@link RawLocalFileSystem}, which in
 * addition records, on every call it receives, the Hadoop user and the Kerberos ticket of the
 * caller. The file system itself never uses the ticket, so this proves the client side (login,
 * {@code doAs}, renewal) and nothing about a NameNode accepting the ticket.
 *
 * <p>Hadoop's security settings are process-wide, so this class runs in a JVM of its own (the
 * {@code kerberos} surefire execution of this module) and is excluded from the shared one.
 * Tickets live {@value #TICKET_LIFETIME_SECONDS} s, so the renewal tests reach Hadoop's renewal
 * point (80 % of a ticket's life) within that time by using the storage in a bounded loop, without
 * sleeping.
 */
class HdfsKerberosTest {

    /**
     * Short enough that Hadoop wants a new ticket (at 80 % of its life) within four seconds, long
     * enough that a call stalled by a busy machine between Hadoop's renewal check and the call
     * (up to 20 % of the life, one second) still runs with a valid ticket.
     */
    static final int TICKET_LIFETIME_SECONDS = 5;

    private static final String JOB = "1001";

    @TempDir
    static java.nio.file.Path kdcDir;

    private static MiniKdc kdc;
    private static String principal;
    private static java.nio.file.Path keytab;
    private static String intruder;
    private static java.nio.file.Path intruderKeytab;

    @TempDir
    java.nio.file.Path temp;

    private final HdfsStorageFactory factory = new HdfsStorageFactory();

    @BeforeAll
    static void startKdc() throws Exception {
        Properties conf = MiniKdc.createConf();
        conf.setProperty(MiniKdc.MAX_TICKET_LIFETIME, Integer.toString(TICKET_LIFETIME_SECONDS));
        conf.setProperty(MiniKdc.MIN_TICKET_LIFETIME, "1");
        kdc = new MiniKdc(conf, kdcDir.toFile());
        kdc.start();
        principal = "keepsake/localhost@" + kdc.getRealm();
        keytab = kdcDir.resolve("keepsake.keytab");
        kdc.createPrincipal(keytab.toFile(), "keepsake/localhost");
        intruder = "intruder/localhost@" + kdc.getRealm();
        intruderKeytab = kdcDir.resolve("intruder.keytab");
        kdc.createPrincipal(intruderKeytab.toFile(), "intruder/localhost");
    }

    @AfterAll
    static void stopKdc() {
        if (kdc != null) {
            kdc.stop();
        }
    }

    @BeforeEach
    void forgetCalls() {
        RecordingLocalFileSystem.CALLS.reset();
    }

    /** The factory keys of a Kerberos storage on this test's directory, logging in with {@code keytabFile}. */
    private Map<String, String> kerberos(String as, java.nio.file.Path keytabFile) {
        Map<String, String> m = new HashMap<>();
        m.put("namespace", temp.resolve("ns").toString());
        m.put("storage.type", "hdfs");
        m.put("fs.defaultFS", "hdfs://localhost");
        m.put("kerberosPrincipal", as);
        m.put("kerberosKeytabFilePath", keytabFile.toString());
        m.put("seatunnel.hadoop.fs.hdfs.impl", RecordingLocalFileSystem.class.getName());
        m.put("seatunnel.hadoop.fs.AbstractFileSystem.file.impl", "org.apache.hadoop.fs.local.RawLocalFs");
        // Hadoop refuses a new login within 60 s of the last one by default; tickets here live 2 s.
        m.put("seatunnel.hadoop.hadoop.kerberos.min.seconds.before.relogin", "0");
        return m;
    }

    @Test
    void storesCheckpointsAndSavepointsWithEveryCallRunAsThePrincipal() throws Exception {
        PipelineState state = new PipelineState(JOB, 1, 7, new byte[] {1, 2, 3});
        try (KeepsakeStorage storage = factory.create(kerberos(principal, keytab))) {
            assertThat(UserGroupInformation.isSecurityEnabled())
                    .as("the principal alone switches Hadoop to Kerberos").isTrue();
            assertThat(storage.namespace()).isEqualTo("file://" + temp.resolve("ns"));

            storage.storeCheckPoint(state);
            try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(JOB, "sp-1", SavepointKind.MANUAL,
                    "test", "t", System.currentTimeMillis(), Map.of()))) {
                try (OutputStream out = w.openPayload(1, 7)) {
                    out.write(new byte[] {4, 5});
                }
                w.commit(1L);
            }
            assertThat(storage.getLatestCheckpoint(JOB)).containsExactly(state);
            assertThat(storage.readSavepoint(JOB, "sp-1").payloadOfPipeline(1)).containsExactly(4, 5);
        }

        Calls calls = RecordingLocalFileSystem.CALLS;
        assertThat(calls.count()).as("file-system calls seen").isGreaterThan(10);
        assertThat(calls.users()).as("the callers of every file-system call").containsOnlyKeys(principal);
        assertThat(calls.withoutValidTicket()).as("calls made without a valid ticket").isZero();
        UserGroupInformation caller = calls.lastCaller();
        assertThat(caller.getUserName()).isEqualTo(principal);
        assertThat(caller.getShortUserName()).isEqualTo("keepsake");
        assertThat(caller.getAuthenticationMethod()).isEqualTo(UserGroupInformation.AuthenticationMethod.KERBEROS);
        assertThat(caller.isFromKeytab()).isTrue();
        assertThat(caller.hasKerberosCredentials()).isTrue();
        assertThat(UserGroupInformation.getCurrentUser().getUserName())
                .as("outside a storage call the process keeps its own user").isNotEqualTo(principal);
    }

    @Test
    void aKeytabWithoutThePrincipalFailsNamingThePrincipal() {
        Throwable thrown = catchThrowable(() -> factory.create(kerberos(principal, intruderKeytab)));
        assertThat(thrown).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining(principal)
                .hasMessageContaining(intruderKeytab.toString())
                .hasMessageContaining("kerberosPrincipal");
        assertNothingWasTouched();
    }

    @Test
    void aKeytabWithTheWrongKeysFailsNamingThePrincipal() throws Exception {
        // The principal's name with the intruder's keys: what a keytab left over from before a key
        // change looks like to the KDC.
        Keytab theirs = Keytab.loadKeytab(intruderKeytab.toFile());
        Keytab stale = new Keytab();
        for (KeytabEntry entry : theirs.getKeytabEntries(new PrincipalName(intruder))) {
            stale.addEntry(new KeytabEntry(new PrincipalName(principal), entry.getTimestamp(), entry.getKvno(),
                    entry.getKey()));
        }
        java.nio.file.Path staleKeytab = temp.resolve("stale.keytab");
        stale.store(staleKeytab.toFile());
        assertThat(Keytab.loadKeytab(staleKeytab.toFile()).getPrincipals()).containsExactly(new PrincipalName(principal));

        Throwable thrown = catchThrowable(() -> factory.create(kerberos(principal, staleKeytab)));
        assertThat(thrown).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining(principal)
                .hasMessageContaining(staleKeytab.toString());
        assertNothingWasTouched();
    }

    private void assertNothingWasTouched() {
        assertThat(RecordingLocalFileSystem.CALLS.count()).as("file-system calls after a failed login").isZero();
        assertThat(temp.resolve("ns")).doesNotExist();
    }

    @Test
    void renewsTheTicketFromTheKeytabBeforeItExpires() throws Exception {
        PipelineState state = new PipelineState(JOB, 1, 7, new byte[] {1, 2, 3});
        try (KeepsakeStorage storage = factory.create(kerberos(principal, keytab))) {
            storage.storeCheckPoint(state);
            Calls calls = RecordingLocalFileSystem.CALLS;
            KerberosTicket first = calls.lastTicket();
            assertThat(first).isNotNull();
            // Recorded during the call: a renewal may destroy the ticket (which clears its fields)
            // at any time after it, however busy the machine.
            java.util.Date firstEnd = calls.endOf(first);
            assertThat(firstEnd).isNotNull();

            // Keep using the storage, as an engine would, until a call runs with a new ticket;
            // bounded by the first ticket's end, one more lifetime and 10 s for a slow machine.
            long deadline = firstEnd.getTime() + TICKET_LIFETIME_SECONDS * 1000L + 10_000;
            waitUntil(deadline, "a call to run with a renewed ticket", () -> {
                readBack(storage, state);
                return calls.lastTicket() != first;
            });

            assertThat(calls.withoutValidTicket()).as("calls made with an expired or missing ticket").isZero();
            KerberosTicket renewed = calls.lastTicket();
            assertThat(calls.endOf(renewed)).isAfter(firstEnd);
            assertThat(calls.clientOf(renewed)).isEqualTo(principal);
            assertThat(calls.distinctTickets()).as("tickets the calls ran with").isGreaterThanOrEqualTo(2);
            assertThat(first.isDestroyed()).as("the old ticket is dropped by the new login").isTrue();
            assertThat(calls.users()).containsOnlyKeys(principal);
            readBack(storage, state);
        }
    }

    @Test
    void aFailedRenewalNamesThePrincipalAndTheStorageRecoversOnceTheKeytabIsBack() throws Exception {
        java.nio.file.Path ownKeytab = java.nio.file.Files.copy(keytab, temp.resolve("keepsake.keytab"));
        java.nio.file.Path away = temp.resolve("keepsake.keytab.away");
        PipelineState state = new PipelineState(JOB, 1, 7, new byte[] {1, 2, 3});
        try (KeepsakeStorage storage = factory.create(kerberos(principal, ownKeytab))) {
            storage.storeCheckPoint(state);
            KerberosTicket first = RecordingLocalFileSystem.CALLS.lastTicket();
            java.util.Date firstEnd = RecordingLocalFileSystem.CALLS.endOf(first);
            assertThat(firstEnd).isNotNull();
            java.nio.file.Files.move(ownKeytab, away);

            long deadline = firstEnd.getTime() + TICKET_LIFETIME_SECONDS * 1000L + 10_000;
            CheckpointStorageException[] failure = new CheckpointStorageException[1];
            // the restore path: a renewal failing there must be an error, never "no checkpoint"
            waitUntil(deadline, "the renewal without a keytab to fail", () -> {
                try {
                    assertThat(storage.getLatestCheckpoint(JOB)).containsExactly(state);
                    return false;
                } catch (CheckpointStorageException e) {
                    failure[0] = e;
                    return true;
                }
            });
            assertThat(failure[0]).hasMessageContaining("Cannot renew the Kerberos login of " + principal);

            java.nio.file.Files.move(away, ownKeytab);
            long callsBefore = RecordingLocalFileSystem.CALLS.count();
            readBack(storage, state);
            Calls calls = RecordingLocalFileSystem.CALLS;
            assertThat(calls.count()).isGreaterThan(callsBefore);
            assertThat(calls.lastTicket()).isNotSameAs(first);
            assertThat(calls.lastTicket().isCurrent()).isTrue();
            assertThat(calls.withoutValidTicket()).as("calls made with an expired or missing ticket").isZero();
            assertThat(calls.users()).containsOnlyKeys(principal);
        }
    }

    private static void readBack(KeepsakeStorage storage, PipelineState expected) throws CheckpointStorageException {
        List<PipelineState> latest = storage.getLatestCheckpoint(JOB);
        if (!latest.equals(List.of(expected))) {
            fail("read back " + latest + " instead of " + expected);
        }
    }

    @FunctionalInterface
    private interface Step {
        boolean done() throws Exception;
    }

    /** Runs {@code step} until it reports done, failing when the wall clock passes {@code deadlineMillis}. */
    private static void waitUntil(long deadlineMillis, String what, Step step) throws Exception {
        while (!step.done()) {
            if (System.currentTimeMillis() > deadlineMillis) {
                fail("Timed out waiting for " + what);
            }
        }
    }

    /** What the recording file system saw: who called, with which ticket. */
    static final class Calls {
        private final AtomicLong count = new AtomicLong();
        private final AtomicLong withoutValidTicket = new AtomicLong();
        private final Map<String, AtomicLong> users = new ConcurrentHashMap<>();
        private final Set<KerberosTicket> tickets = Collections.synchronizedSet(
                Collections.newSetFromMap(new IdentityHashMap<>()));
        /** Each ticket's end time and client, read while the call ran with it (a destroyed ticket forgets them). */
        private final Map<KerberosTicket, java.util.Date> ends = Collections.synchronizedMap(new IdentityHashMap<>());
        private final Map<KerberosTicket, String> clients = Collections.synchronizedMap(new IdentityHashMap<>());
        private volatile UserGroupInformation lastCaller;
        private volatile KerberosTicket lastTicket;

        /** The end time the ticket had when a call ran with it, or null when no call did. */
        java.util.Date endOf(KerberosTicket ticket) {
            return ends.get(ticket);
        }

        /** The client principal of the ticket, as read when a call ran with it. */
        String clientOf(KerberosTicket ticket) {
            return clients.get(ticket);
        }

        void reset() {
            ends.clear();
            clients.clear();
            count.set(0);
            withoutValidTicket.set(0);
            users.clear();
            tickets.clear();
            lastCaller = null;
            lastTicket = null;
        }

        @SuppressWarnings("removal") // Subject.getSubject is how Hadoop itself finds the caller on Java 17
        void record() throws IOException {
            UserGroupInformation caller = UserGroupInformation.getCurrentUser();
            users.computeIfAbsent(caller.getUserName(), u -> new AtomicLong()).incrementAndGet();
            Subject subject = Subject.getSubject(AccessController.getContext());
            KerberosTicket tgt = null;
            if (subject != null) {
                synchronized (subject.getPrivateCredentials()) {
                    for (KerberosTicket t : subject.getPrivateCredentials(KerberosTicket.class)) {
                        // The newest current ticket-granting ticket, if a renewal left more than one.
                        if (t.isCurrent() && t.getServer().getName().startsWith("krbtgt/")
                                && (tgt == null || t.getEndTime().after(tgt.getEndTime()))) {
                            tgt = t;
                        }
                    }
                }
            }
            java.util.Date end = tgt == null ? null : tgt.getEndTime();
            if (tgt == null || end == null || !tgt.isCurrent()) {
                withoutValidTicket.incrementAndGet();
            } else {
                tickets.add(tgt);
                ends.putIfAbsent(tgt, end);
                clients.putIfAbsent(tgt, tgt.getClient().getName());
            }
            lastCaller = caller;
            lastTicket = tgt;
            count.incrementAndGet();
        }

        long count() {
            return count.get();
        }

        long withoutValidTicket() {
            return withoutValidTicket.get();
        }

        Map<String, AtomicLong> users() {
            return Map.copyOf(users);
        }

        UserGroupInformation lastCaller() {
            return lastCaller;
        }

        KerberosTicket lastTicket() {
            return lastTicket;
        }

        int distinctTickets() {
            return tickets.size();
        }
    }

    /**
     * Hadoop's raw local file system that records the caller of every call the storage makes
     * (Hadoop instantiates it by name from {@code fs.hdfs.impl}, hence the static record).
     */
    public static final class RecordingLocalFileSystem extends RawLocalFileSystem {

        static final Calls CALLS = new Calls();

        @Override
        public FSDataInputStream open(Path f, int bufferSize) throws IOException {
            CALLS.record();
            return super.open(f, bufferSize);
        }

        @Override
        public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                         short replication, long blockSize, Progressable progress) throws IOException {
            CALLS.record();
            return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
        }

        @Override
        public FileStatus[] listStatus(Path f) throws IOException {
            CALLS.record();
            return super.listStatus(f);
        }

        @Override
        public FileStatus getFileStatus(Path f) throws IOException {
            CALLS.record();
            return super.getFileStatus(f);
        }

        @Override
        public boolean mkdirs(Path f) throws IOException {
            CALLS.record();
            return super.mkdirs(f);
        }

        @Override
        public boolean mkdirs(Path f, FsPermission permission) throws IOException {
            CALLS.record();
            return super.mkdirs(f, permission);
        }

        @Override
        public boolean delete(Path p, boolean recursive) throws IOException {
            CALLS.record();
            return super.delete(p, recursive);
        }
    }
}
