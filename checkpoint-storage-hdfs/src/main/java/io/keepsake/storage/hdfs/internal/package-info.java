/**
 * Implementation detail of the HDFS backend (configuration parsing, Kerberos login); not API.
 */
package io.keepsake.storage.hdfs.internal;
