package io.keepsake.storage.localfile;

import io.keepsake.storage.spi.localdisk.LocalEntries;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An open directory: a {@link SecureDirectoryStream} (every call relative to the open handle)
 * where the platform has one, else the directory's path with an lstat before every step.
 */
abstract class LocalDirectory implements AutoCloseable {

    static LocalDirectory open(Path directory) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(directory);
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return new Secure(secure, directory);
        }
        stream.close();
        return new ByPath(directory);
    }

    final Path path;

    LocalDirectory(Path path) {
        this.path = path;
    }

    /** The attributes of an entry, never following a link; empty when it is absent. */
    abstract Optional<BasicFileAttributes> attributes(Path name) throws IOException;

    /** Opens a sub-directory without following a link. */
    abstract LocalDirectory directory(Path name, String forPath) throws IOException;

    abstract SeekableByteChannel channel(Path name, Set<OpenOption> options) throws IOException;

    /** The entries, read once. */
    abstract List<Path> entries() throws IOException;

    abstract void deleteFile(Path name) throws IOException;

    abstract void deleteDirectory(Path name) throws IOException;

    abstract void move(Path name, LocalDirectory target, Path targetName) throws IOException;

    @Override
    public abstract void close() throws IOException;

    /** Deletes everything inside this directory, depth first, never leaving it through a link. */
    void deleteContents(String path) throws IOException {
        List<Path> names = new ArrayList<>();
        for (Path entry : entries()) {
            names.add(entry.getFileName());
        }
        for (Path name : names) {
            Optional<BasicFileAttributes> a = attributes(name);
            if (a.isEmpty()) {
                continue;
            }
            if (a.get().isDirectory()) {
                String sub = path + "/" + name;
                try (LocalDirectory child = directory(name, sub)) {
                    child.deleteContents(sub);
                } catch (NoSuchFileException e) {
                    continue;
                }
            }
            deleteEntry(name, a.get().isDirectory());
        }
    }

    /** Deletes one entry (a directory only when empty); false when it was already gone. */
    boolean deleteEntry(Path name, boolean directory) throws IOException {
        try {
            if (directory) {
                deleteDirectory(name);
            } else {
                deleteFile(name);
            }
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** Fails with a clear error when {@code name} is a link or not a directory. */
    void requireDirectory(Path name, String forPath, IOException cause) throws IOException {
        Optional<BasicFileAttributes> a = attributes(name);
        if (a.isEmpty()) {
            throw new NoSuchFileException(forPath);
        }
        if (a.get().isSymbolicLink()) {
            throw LocalEntries.linkRefused(forPath, cause);
        }
        if (!a.get().isDirectory()) {
            throw new NotDirectoryException(forPath);
        }
        if (cause != null) {
            throw cause;
        }
    }

    private static final class Secure extends LocalDirectory {
        private final SecureDirectoryStream<Path> stream;

        Secure(SecureDirectoryStream<Path> stream, Path path) {
            super(path);
            this.stream = stream;
        }

        @Override
        Optional<BasicFileAttributes> attributes(Path name) throws IOException {
            try {
                return Optional.of(stream.getFileAttributeView(name, BasicFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS).readAttributes());
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }

        @Override
        LocalDirectory directory(Path name, String forPath) throws IOException {
            // Opening by name uses open(2) without O_DIRECTORY, which blocks on a FIFO until a
            // writer comes: look first, so anything but a directory is refused without an open.
            requireDirectory(name, forPath, null);
            SecureDirectoryStream<Path> child;
            try {
                child = stream.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                // O_NOFOLLOW refused it, or it is missing or a file: say which.
                requireDirectory(name, forPath, e);
                throw e;
            }
            return new Secure(child, path.resolve(name));
        }

        @Override
        SeekableByteChannel channel(Path name, Set<OpenOption> options) throws IOException {
            return stream.newByteChannel(name, options);
        }

        @Override
        List<Path> entries() {
            List<Path> out = new ArrayList<>();
            stream.iterator().forEachRemaining(out::add);
            return out;
        }

        @Override
        void deleteFile(Path name) throws IOException {
            stream.deleteFile(name);
        }

        @Override
        void deleteDirectory(Path name) throws IOException {
            stream.deleteDirectory(name);
        }

        @Override
        void move(Path name, LocalDirectory target, Path targetName) throws IOException {
            stream.move(name, ((Secure) target).stream, targetName);
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }

    private static final class ByPath extends LocalDirectory {
        ByPath(Path path) {
            super(path);
        }

        @Override
        Optional<BasicFileAttributes> attributes(Path name) throws IOException {
            return LocalEntries.lstat(path.resolve(name));
        }

        @Override
        LocalDirectory directory(Path name, String forPath) throws IOException {
            requireDirectory(name, forPath, null);
            return new ByPath(path.resolve(name));
        }

        @Override
        SeekableByteChannel channel(Path name, Set<OpenOption> options) throws IOException {
            return FileChannel.open(path.resolve(name), options);
        }

        @Override
        List<Path> entries() throws IOException {
            List<Path> out = new ArrayList<>();
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(path)) {
                stream.forEach(out::add);
            }
            out.sort(Comparator.naturalOrder());
            return out;
        }

        @Override
        void deleteFile(Path name) throws IOException {
            Files.delete(path.resolve(name));
        }

        @Override
        void deleteDirectory(Path name) throws IOException {
            Path dir = path.resolve(name);
            if (Files.isSymbolicLink(dir)) {
                throw LocalEntries.linkRefused(dir.toString(), null);
            }
            Files.delete(dir);
        }

        @Override
        void move(Path name, LocalDirectory target, Path targetName) throws IOException {
            Files.move(path.resolve(name), target.path.resolve(targetName), StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void close() {
        }
    }
}
