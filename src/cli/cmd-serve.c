/* cordon serve and cordon session: run cordon-serve (src/serve/), the session API's daemon, and
 * cordon-session, its client, with the same arguments. Programs of their own, so that
 * `cordon run` pays nothing for HTTP. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "config.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/path-util.h"

const char *cli_find_program(const char *name, const char *subdir, const char *installed, char *buf,
                             size_t size)
{
        return find_sibling_program(name, "cli", subdir, buf, size) == 0 ? buf : installed;
}

/* Execs @name with argv[1...] (argv[0] is the command's name, replaced by the program's). */
static int exec_program(char *name, const char *installed, char **argv)
{
        char path[PATH_MAX + 64];
        const char *prog = cli_find_program(name, "serve", installed, path, sizeof(path));
        argv[0] = name;
        execv(prog, argv);
        log_error_errno(-errno, "cannot run '%s': %m", prog);
        return 1;
}

int cmd_serve(int argc, char **argv)
{
        static char name[] = "cordon-serve";
        return exec_program(name, CORDON_SERVE_PATH, argv);
}

int cmd_session(int argc, char **argv)
{
        static char name[] = "cordon-session";
        return exec_program(name, CORDON_SESSION_PATH, argv);
}
