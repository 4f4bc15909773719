/* Subcommands of the cordon program. Each returns the process exit status. */
#pragma once

#define EXIT_USAGE   2
#define EXIT_SETUP   125
#define EXIT_TIMEOUT 124

#include "shared/macro.h"

/* A usage error, as one line on stderr: "cordon: MESSAGE; see 'cordon COMMAND --help'" (@command
 * NULL: 'cordon --help'). Returns EXIT_USAGE. The help itself is never printed on an error: a
 * mistyped option should cost one line, not a screen. */
_printf_(2, 3) int usage_error(const char *command, const char *fmt, ...);

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_config(int argc, char **argv);
/* Execs cordon-serve with the arguments after "serve"; returns only on failure. */
int cmd_serve(int argc, char **argv);
/* Execs cordon-session, the session API's client, with the arguments after "session"; returns
 * only on failure. */
int cmd_session(int argc, char **argv);

struct cordon_cap_policy;
/* Reads and parses a capability policy file ("-": standard input), at most 1 MiB, for
 * `cordon policy` and `cordon run --policy`. Logs one line and returns -errno on failure;
 * on success stores a new policy in @ret, owned by the caller (cordon_cap_policy_free()). */
int policy_file_load(const char *path, struct cordon_cap_policy **ret);

/* The program @name: beside this cordon (an install into one bin directory, the test stage), in
 * the build tree (cordon is build/src/cli/cordon, the programs build/src/SUBDIR/NAME), else where
 * the build installs it (@installed, in libexecdir). Writes the path into @buf (cmd-serve.c). */
const char *cli_find_program(const char *name, const char *subdir, const char *installed, char *buf,
                             size_t size);
