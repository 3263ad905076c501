package io.keepsake.storage.localfile;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The primitives on java.nio for a local (POSIX) disk. Files are fsynced through their channel,
 * directories by opening and forcing them. A directory is published by claiming the target with
 * an atomic {@code mkdir} (which fails when it exists) and then renaming the source onto that
 * empty directory in one {@code rename(2)}; a file is published with an atomic
 * {@code ATOMIC_MOVE} after an existence check on names that are unique by construction.
 * Symbolic links are never followed out of a listing, and never opened, so a link planted in a
 * savepoint cannot make the library read outside its roots. Thread-safe.
 */
public final class LocalFileSystem implements StorageFileSystem {

    private static final Set<FsCapability> CAPABILITIES =
            EnumSet.of(FsCapability.ATOMIC_DIRECTORY_RENAME, FsCapability.DIRECTORY_SYNC);

    private static Path p(String path) {
        return Path.of(path);
    }

    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        Path file = p(path);
        Path parent = file.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        FileChannel channel = mustCreate
                ? FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                : FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        return new ChannelOutput(channel);
    }

    /** Opens a file for reading; a symbolic link in the last component is refused, never followed. */
    @Override
    public InputStream open(String path) throws IOException {
        Path file = p(path);
        if (Files.isSymbolicLink(file)) {
            throw new java.nio.file.FileSystemException(path, null, "refusing to follow a symbolic link");
        }
        return Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public List<FileStatus> list(String directory) throws IOException {
        Path dir = p(directory);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        List<FileStatus> out = new ArrayList<>();
        try (Stream<Path> children = Files.list(dir)) {
            for (Path child : (Iterable<Path>) children::iterator) {
                status(child).ifPresent(out::add);
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        return out;
    }

    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        return status(p(path));
    }

    private static Optional<FileStatus> status(Path path) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink()) {
                return Optional.empty();
            }
            return Optional.of(new FileStatus(path.toString(), path.getFileName().toString(), a.isDirectory(),
                    a.isDirectory() ? 0 : a.size(), a.lastModifiedTime().toMillis()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public void rename(String source, String target) throws IOException {
        Path src = p(source);
        Path dst = p(target);
        if (!Files.exists(src, LinkOption.NOFOLLOW_LINKS)) {
            throw new NoSuchFileException(source, target, "rename source is missing");
        }
        if (Files.isDirectory(src, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectory(dst);
            try {
                Files.move(src, dst, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException | RuntimeException e) {
                try {
                    Files.deleteIfExists(dst);
                } catch (DirectoryNotEmptyException notOurs) {
                    e.addSuppressed(notOurs);
                }
                throw e;
            }
        } else {
            if (Files.exists(dst, LinkOption.NOFOLLOW_LINKS)) {
                throw new FileAlreadyExistsException(target, source, "rename target exists");
            }
            Files.move(src, dst, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        Path target = p(path);
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        if (recursive && Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            Files.walkFileTree(target, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    if (exc != null) {
                        throw exc;
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
            return true;
        }
        return Files.deleteIfExists(target);
    }

    @Override
    public void mkdirs(String path) throws IOException {
        Files.createDirectories(p(path));
    }

    @Override
    public void syncDirectory(String directory) throws IOException {
        StorageFileSystem.fsyncLocalDirectory(p(directory));
    }

    @Override
    public Set<FsCapability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public String normalizeRoot(String root) {
        if (root == null || root.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is empty (" + root + ")");
        }
        String path = root.startsWith("file://") ? root.substring("file://".length()) : root;
        Path parsed;
        try {
            parsed = Path.of(path);
        } catch (RuntimeException e) {
            throw new InvalidStorageArgumentException("Cannot use storage root: not a path (" + root + ")");
        }
        if (!parsed.isAbsolute()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is not absolute (" + root + ")");
        }
        for (Path part : parsed) {
            String s = part.toString();
            if (s.equals("..") || s.equals(".")) {
                throw new InvalidStorageArgumentException("Cannot use storage root: it has a '" + s + "' segment ("
                        + root + ")");
            }
        }
        return parsed.normalize().toString();
    }

    /** A file channel as a syncable stream. */
    private static final class ChannelOutput extends SyncableOutputStream {
        private final FileChannel channel;

        ChannelOutput(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(b, off, len);
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        }

        @Override
        public void sync() throws IOException {
            channel.force(true);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
