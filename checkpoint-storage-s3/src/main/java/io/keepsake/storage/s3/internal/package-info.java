/** Implementation detail of the S3 backend (configuration parsing and client building); not API. */
package io.keepsake.storage.s3.internal;
