/* Fuzz target for the credential-free copy of cargo files (src/lib/resolve/tool-config*.c); the
 * checks are in fuzz-tool-config.h. */
#define TOOL_CONFIG_FORMAT CORDON_TOOL_CONFIG_CARGO
#include "fuzz-tool-config.h"
