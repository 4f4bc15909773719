/* Fuzz target for the credential-free copy of pip files (src/lib/resolve/tool-config*.c); the
 * checks are in fuzz-tool-config.h. */
#define TOOL_CONFIG_FORMAT CORDON_TOOL_CONFIG_PIP
#include "fuzz-tool-config.h"
