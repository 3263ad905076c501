/** The Azure backend's configuration and client construction; not API. */
package io.keepsake.storage.azure.internal;
