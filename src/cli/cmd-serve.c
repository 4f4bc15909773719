/* cordon serve: runs cordon-serve (src/serve/), the session API's daemon, with the same
 * arguments. A separate program, so that `cordon run` pays nothing for HTTP. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "config.h"
#include "shared/log.h"
#include "shared/macro.h"

/* cordon-serve beside this cordon (an install into one bin directory, the test stage), else
 * where the build installs it (libexecdir). */
int cmd_serve(int argc, char **argv)
{
        char self[PATH_MAX], path[PATH_MAX + 32];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        const char *prog = CORDON_SERVE_PATH;
        if (n > 0) {
                self[n] = 0;
                snprintf(path, sizeof(path), "%s/cordon-serve", dirname(self));
                if (access(path, X_OK) == 0)
                        prog = path;
        }
        /* argv[0] is "serve": its arguments follow, as cordon-serve takes them. */
        static char name[] = "cordon-serve";
        argv[0] = name;
        execv(prog, argv);
        log_error_errno(-errno, "cannot run '%s': %m", prog);
        return 1;
}
