/* Fuzz target for the credential-free copy of gitconfig files (src/lib/resolve/tool-config*.c); the
 * checks are in fuzz-tool-config.h. */
#define TOOL_CONFIG_FORMAT CORDON_TOOL_CONFIG_GIT
#include "fuzz-tool-config.h"
