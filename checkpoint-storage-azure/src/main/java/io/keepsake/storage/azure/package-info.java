/**
 * The Azure Blob Storage backend: {@link io.keepsake.storage.azure.AzureFileSystem} (the
 * file-system primitives on block blobs, with conditional writes and no rename) and
 * {@link io.keepsake.storage.azure.AzureStorageFactory} (factory id {@code azure}).
 */
package io.keepsake.storage.azure;
