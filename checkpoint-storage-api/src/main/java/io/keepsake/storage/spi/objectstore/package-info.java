/**
 * What object-store backends (S3, Azure Blob) share and a file-system backend does not need: the
 * check that a store enforces create-if-absent on both requests that publish an object, and an
 * output stream that buffers writes into fixed-size blocks and publishes them with one conditional
 * request. A backend supplies the store-specific requests; the logic around them is written once here.
 */
package io.keepsake.storage.spi.objectstore;
