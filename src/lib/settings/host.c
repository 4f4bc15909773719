/* Facts about the calling process that lowering reads (struct cordon_host). */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon/settings.h"
#include "lib/resolve/passwd-filter.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* The account's home directory: from /etc/passwd when it has the caller's line, else from NSS
 * (directory users). getpwuid() alone costs about 80 µs a start (nsswitch.conf, nscd probes),
 * as much as a tenth of the landlock backend's own work. NULL when there is none. */
static char *account_home_dir(uid_t uid)
{
        _cleanup_free_ char *text = NULL;
        char *home = NULL;
        if (read_full_file("/etc/passwd", 16u << 20, &text, NULL) >= 0 &&
            cordon_passwd_db_home(text, uid, &home) >= 0)
                return home;
        struct passwd *pw = getpwuid(uid);
        return pw && pw->pw_dir ? strdup(pw->pw_dir) : NULL;
}

_public_ int cordon_host_init_current(struct cordon_host *h, char *const *envp)
{
        *h = (struct cordon_host){.envp = envp, .uid = getuid(), .gid = getgid()};
        h->owned_cwd = getcwd(NULL, 0);
        if (!h->owned_cwd)
                return -errno;
        h->cwd = h->owned_cwd;
        for (char *const *e = envp; e && *e; e++)
                if (startswith(*e, "HOME=")) {
                        h->home = *e + 5; /* the first, as getenv() finds it */
                        break;
                }
        /* The account's home as well as $HOME: the credential stores of both are hidden. */
        h->owned_account_home = account_home_dir(h->uid);
        h->account_home = h->owned_account_home;
        return 0;
}

_public_ void cordon_host_clear(struct cordon_host *h)
{
        free(h->owned_cwd);
        free(h->owned_account_home);
        *h = (struct cordon_host){0};
}
