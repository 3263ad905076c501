/**
 * Implementation detail of the operator tool (the demo scenario, verification, formatting); not API.
 */
package io.keepsake.tool.internal;
