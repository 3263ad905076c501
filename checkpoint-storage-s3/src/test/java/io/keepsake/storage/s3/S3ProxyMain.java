package io.keepsake.storage.s3;

import java.io.InputStream;

/**
 * {@link S3ProxyServer} as a process of its own, for tests in other modules whose class path must
 * not hold S3Proxy's dependencies (the SeaTunnel plugin's, which holds the engine's): prints
 * {@code ENDPOINT <uri> <bucket> <access key> <secret key>} on one line, then serves until its
 * standard input ends. The class path to start it with is in this module's
 * {@code target/s3proxy-classpath.txt} (written by the build) plus its test and main classes.
 */
public final class S3ProxyMain {

    private S3ProxyMain() {
    }

    public static void main(String[] args) throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start()) {
            System.out.println("ENDPOINT " + server.endpoint() + " " + S3ProxyServer.BUCKET + " " + S3ProxyServer.ACCESS
                    + " " + S3ProxyServer.SECRET);
            System.out.flush();
            InputStream in = System.in;
            while (in.read() >= 0) {
                // Serve until the parent closes our standard input (or dies, which closes it too).
            }
        }
    }
}
