package io.keepsake.storage.spi.localdisk;

import io.keepsake.storage.spi.FileStatus;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * What one entry of a local directory is, read without following a link, and the errors that
 * refuse a link or a special file. Stateless; thread-safe.
 */
public final class LocalEntries {

    /** Why a link below a storage root is refused. */
    public static final String LINK_REFUSED =
            "it is a symbolic link, and no path component below a storage root is followed through a link";

    /** Whether the JVM's file-name encoding maps ASCII names to and from their bytes one to one. */
    private static final boolean ASCII_NAMES_ROUND_TRIP = asciiNamesRoundTrip();

    private LocalEntries() {
    }

    /** The attributes of {@code file} itself (lstat), empty when nothing is there. */
    public static Optional<BasicFileAttributes> lstat(Path file) throws IOException {
        try {
            return Optional.of(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The status of an entry with its real type; only a regular file has a length. */
    public static FileStatus status(String path, String name, BasicFileAttributes a) {
        FileStatus.Type type = a.isSymbolicLink() ? FileStatus.Type.SYMBOLIC_LINK
                : a.isDirectory() ? FileStatus.Type.DIRECTORY
                : a.isRegularFile() ? FileStatus.Type.REGULAR_FILE
                : FileStatus.Type.OTHER;
        return new FileStatus(path, name, type, type == FileStatus.Type.REGULAR_FILE ? a.size() : 0,
                a.lastModifiedTime().toMillis());
    }

    /** The error for a link below a root, with its cause when there is one. */
    public static FileSystemException linkRefused(String path, IOException cause) {
        FileSystemException e = new FileSystemException(path, null, LINK_REFUSED);
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /** The error for opening something that is not a regular file: a link, a directory or a special file. */
    public static FileSystemException refusal(String path, BasicFileAttributes a) {
        if (a.isSymbolicLink()) {
            return new FileSystemException(path, null, "refusing to follow a symbolic link: " + LINK_REFUSED);
        }
        if (a.isDirectory()) {
            return new FileSystemException(path, null, "it is a directory, not a regular file");
        }
        return new FileSystemException(path, null,
                "it is not a regular file (a FIFO, socket or device), so it is not opened");
    }

    /**
     * True when {@code name}, as this JVM decoded it, encodes back to the same bytes. Under UTF-8,
     * ISO-8859-1 or US-ASCII file-name encoding a name decoded to ASCII only came from those very
     * bytes (any other byte decodes to a non-ASCII character or a replacement), so only other
     * names, or every name under another encoding, are encoded again and compared; a lookup reads
     * every name of a job.
     */
    public static boolean representable(Path name) {
        String text = name.toString();
        if (ASCII_NAMES_ROUND_TRIP) {
            boolean ascii = true;
            for (int i = 0; i < text.length() && ascii; i++) {
                ascii = text.charAt(i) < 0x80;
            }
            if (ascii) {
                return true;
            }
        }
        try {
            return name.getFileSystem().getPath(text).equals(name);
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** The JVM's file-name encoding, for the warning about a name it cannot represent. */
    public static String fileNameEncoding() {
        return System.getProperty("sun.jnu.encoding");
    }

    private static boolean asciiNamesRoundTrip() {
        String encoding = System.getProperty("sun.jnu.encoding", "");
        try {
            Charset charset = Charset.forName(encoding);
            return charset.equals(StandardCharsets.UTF_8)
                    || charset.equals(StandardCharsets.ISO_8859_1)
                    || charset.equals(StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
