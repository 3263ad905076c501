package io.keepsake.seatunnel;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Hands an engine scenario its Keepsake namespace and the savepoints in it as test method
 * parameters ({@code Namespace ns, Savepoints savepoints}): one fresh namespace per test, in a
 * folder of its own that is removed after the test, and the operator's view of the same one.
 */
final class ScenarioNamespace implements ParameterResolver {

    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(ScenarioNamespace.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == Namespace.class || type == Savepoints.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Namespace ns = context.getStore(STORE).getOrComputeIfAbsent(Folder.class, k -> new Folder(), Folder.class).ns;
        return parameter.getParameter().getType() == Namespace.class ? ns : Savepoints.local(ns);
    }

    /** The test's folder, removed with everything in it when the test's context closes. */
    private static final class Folder implements ExtensionContext.Store.CloseableResource {
        private final Path dir;
        private final Namespace ns;

        Folder() {
            try {
                dir = Files.createTempDirectory("keepsake-scenario");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            ns = new Namespace(dir.resolve("ns"));
        }

        @Override
        public void close() throws IOException {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
