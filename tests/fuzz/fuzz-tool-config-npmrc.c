/* Fuzz target for the credential-free copy of npmrc files (src/lib/resolve/tool-config*.c); the
 * checks are in fuzz-tool-config.h. */
#define TOOL_CONFIG_FORMAT CORDON_TOOL_CONFIG_NPMRC
#include "fuzz-tool-config.h"
