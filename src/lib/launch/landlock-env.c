/* The landlock backend's stand-ins for what the ns backend binds at a tool's own path: the
 * variables that point the tools at cordon's package caches (PACKAGE_CACHES) and at the
 * credential-free copies of their configuration (TOOL_CONFIG_COPIES), written here into the
 * launch's private TMPDIR. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/launch/landlock-env.h"
#include "lib/policy/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* Writes @data to @dir/@name, replacing what an earlier decision of this launch wrote there
 * (the directory is the launch's own and nothing has run in it yet). */
static int write_copy(const char *dir, const char *name, const char *data)
{
        _cleanup_free_ char *path = path_join(dir, name);
        if (!path)
                return -ENOMEM;
        _cleanup_close_ int fd =
            open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        return write_all(fd, data, strlen(data));
}

int cordon_landlock_env(const struct cordon_policy *p, const char *tmpdir, bool dry_run,
                        char ***ret)
{
        _cleanup_strv_free_ char **vars = NULL;
        int r;
        STRV_FOREACH (e, p->landlock_env)
                if ((r = strv_extend(&vars, *e)) < 0)
                        return r;
        size_t n = 0;
        STRV_FOREACH (e, p->landlock_env_files) {
                const char *eq = strchr(*e, '=');
                const struct cordon_fs_rule *rule = NULL;
                for (size_t i = 0; eq && i < p->n_fs; i++)
                        if (p->fs[i].access == CORDON_ACCESS_DATA && p->fs[i].host &&
                            streq(p->fs[i].guest, eq + 1))
                                rule = &p->fs[i];
                if (!rule || !tmpdir)
                        continue; /* no copy, or no private directory to hold one */
                char name[64];
                snprintf(name, sizeof(name), ".cordon-config-%zu", n++);
                _cleanup_free_ char *path = path_join(tmpdir, name), *var = NULL;
                if (!path || asprintf(&var, "%.*s=%s", (int)(eq - *e), *e, path) < 0)
                        return -ENOMEM;
                if (!dry_run && (r = write_copy(tmpdir, name, rule->host)) < 0)
                        return r;
                if ((r = strv_consume(&vars, TAKE_PTR(var))) < 0)
                        return r;
        }
        *ret = TAKE_PTR(vars);
        return 0;
}
