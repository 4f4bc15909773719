/* `cordon run`'s hint after a command that failed: which of cordon's protections it probably
 * hit, judged only from what its command line named, and the flag that lifts it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"

/* The hint for @command (argv[0] the program, not looked at) that ran confined by @p and ended
 * as @rep says, in @buf without "cordon: " and without a newline: an argument that names a path
 * the sandbox hid or did not show while the host has it, else one it kept read-only inside a
 * writable directory, else the proxy's refusals. @home and @cwd expand "~" and relative
 * arguments as a shell would. Returns false, with @buf empty, when there is no evidence. */
bool run_hint(const struct cordon_policy *p, const struct cordon_report *rep, char *const *command,
              const char *home, const char *cwd, char *buf, size_t size);
