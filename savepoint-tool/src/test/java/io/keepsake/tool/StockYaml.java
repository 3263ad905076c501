package io.keepsake.tool;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The engine section of {@code config/seatunnel.yaml} as SeaTunnel 2.3.8 ships it (test resource {@value #RESOURCE}). */
public final class StockYaml {

    public static final String RESOURCE = "/seatunnel-2.3.8-stock.yaml";

    private StockYaml() {
    }

    /** The resource's text, byte for byte. */
    public static String read() {
        try (InputStream in = StockYaml.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("No test resource " + RESOURCE);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
