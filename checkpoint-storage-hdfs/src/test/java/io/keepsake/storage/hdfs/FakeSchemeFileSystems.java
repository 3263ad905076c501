package io.keepsake.storage.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hadoop file systems for made-up schemes, registered through {@code fs.<scheme>.impl}: one that
 * only counts how often Hadoop instantiated it, and one that is the local disk under the scheme
 * {@value #FAKE_SCHEME} (so a scheme outside the allow-list can be opened without a network).
 */
final class FakeSchemeFileSystems {

    /** The scheme of {@link LocalUnderFakeScheme}. */
    static final String FAKE_SCHEME = "fake";

    /** How many {@link Recording} file systems Hadoop has instantiated in this JVM. */
    static final AtomicInteger INSTANTIATED = new AtomicInteger();

    private FakeSchemeFileSystems() {
    }

    /** A file system that counts its instantiations and refuses every use. */
    public static final class Recording extends RawLocalFileSystem {

        /** Counts the instantiation. */
        public Recording() {
            INSTANTIATED.incrementAndGet();
        }

        @Override
        public void initialize(URI name, Configuration conf) throws IOException {
            throw new IOException("the recording file system is not to be used (" + name + ")");
        }
    }

    /** The local disk under the scheme {@value #FAKE_SCHEME}: {@code fake:///tmp/x} is {@code /tmp/x}. */
    public static final class LocalUnderFakeScheme extends RawLocalFileSystem {

        private static final URI NAME = URI.create(FAKE_SCHEME + ":///");

        @Override
        public URI getUri() {
            return NAME;
        }

        @Override
        public String getScheme() {
            return FAKE_SCHEME;
        }
    }

    /** The {@code AbstractFileSystem} Hadoop's {@code FileContext} needs for {@value #FAKE_SCHEME}. */
    public static final class LocalUnderFakeSchemeFs extends DelegateToFileSystem {

        /** Hadoop's reflective constructor. */
        public LocalUnderFakeSchemeFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
            super(uri, new LocalUnderFakeScheme(), conf, FAKE_SCHEME, false);
        }
    }
}
