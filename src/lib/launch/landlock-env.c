/* The landlock backend's stand-ins for what the ns backend binds at a tool's own path: the
 * variables that point the tools at cordon's package caches (PACKAGE_CACHES) and at the
 * credential-free copies of their configuration (TOOL_CONFIG_COPIES), written here into the
 * launch's private TMPDIR; and the ns backend's variables for the writable twins of the copies
 * it can only bind read-only at the tool's own path.
 * A copy there is a plain file of the sandbox's own in a directory it may write: tools rewrite it
 * in place or replace it by rename (git config), and it goes with the TMPDIR when the launch
 * ends; nothing of it is written back. */
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

/* Writes @data to a new file @dir/@name, mode 0600, replacing what an earlier decision of this
 * launch wrote there. The directory is the launch's own (mkdtemp) and nothing has run in it yet;
 * all the same the name is removed first and made anew beneath the directory's descriptor,
 * never following a link, so the write lands in a fresh inode of that directory and nowhere
 * else. */
static int write_copy(const char *dir, const char *name, const char *data)
{
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
                return -errno;
        _cleanup_close_ int fd =
            openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        return write_all(fd, data, strlen(data));
}

/* Whether @envp sets the variable named by the first @len bytes of @name. */
static bool env_sets(char *const *envp, const char *name, size_t len)
{
        STRV_FOREACH (e, envp)
                if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
                        return true;
        return false;
}

const char *cordon_config_env_var(const struct cordon_policy *p, char *const *files,
                                  const char *guest, size_t *ret_len, bool *ret_callers)
{
        *ret_len = 0;
        *ret_callers = false;
        STRV_FOREACH (e, files) {
                const char *eq = strchr(*e, '=');
                if (!eq || !streq(eq + 1, guest))
                        continue;
                *ret_len = (size_t)(eq - *e);
                /* The caller's own (their environment, SANDBOX_ENV): it stands, and the
                 * command reads the file it names, as it would under the ns backend. */
                *ret_callers = env_sets(p->envp, *e, *ret_len);
                return *e;
        }
        return NULL;
}

int cordon_ns_config_env(const struct cordon_policy *p, char ***ret)
{
        _cleanup_strv_free_ char **vars = NULL;
        STRV_FOREACH (e, p->ns_env_files) {
                const char *eq = strchr(*e, '=');
                if (!eq || env_sets(p->envp, *e, (size_t)(eq - *e)))
                        continue; /* the caller named a file of their own */
                int r = strv_extend(&vars, *e);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(vars);
        return 0;
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
                if (env_sets(p->envp, *e, (size_t)(eq - *e)))
                        continue; /* the caller named a file of their own */
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
