package io.keepsake.storage.spi.objectstore;

/**
 * One object as a listing of an object store shows it.
 *
 * @param name     its whole name in the bucket (container)
 * @param size     its size in bytes
 * @param modified its modification time in milliseconds since the epoch, 0 when the store gave none
 */
public record StoredObject(String name, long size, long modified) {
}
