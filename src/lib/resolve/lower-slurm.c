/* SLURM_SCOPE and the chaperon's settings, lowered: which of Slurm's commands the command's PATH
 * leads to on the host, and, once the caller names cordon's programs (cordon_policy_set_slurm()),
 * the stub bound over each of them under a mount namespace. The landlock backend, without
 * mounts, gets the stub under the commands' names first on PATH instead, in the directory the
 * launch makes for its stubs (launch/mail-shadow.c). The stub hands every call to the chaperon
 * over a socket the launch gives the command (docs/ARCHITECTURE.md, "The chaperon"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/settings.h"
#include "lib/policy/diag.h"
#include "lib/policy/policy.h"
#include "lib/resolve/lower-internal.h"
#include "lib/slurm/slurm-names.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define ORIGIN "SLURM_SCOPE"

/* The first executable regular file named @name along @path (a PATH value), as a realpath, or
 * NULL (errno ENOMEM only for a failed allocation). */
static char *find_on_path(const char *path, const char *name)
{
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, ":");
                if (n > 0 && p[0] == '/') {
                        _cleanup_free_ char *dir = strndup(p, n);
                        _cleanup_free_ char *file = dir ? path_join(dir, name) : NULL;
                        if (!file)
                                return NULL;
                        struct stat st;
                        if (stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
                            access(file, X_OK) == 0) {
                                char *real = realpath(file, NULL);
                                if (real || errno == ENOMEM)
                                        return real;
                        }
                }
                p += n + (p[n] == ':');
        }
        errno = ENOENT;
        return NULL;
}

/* The values @s holds that are not built-in defaults, for the jobs' wrapper (policy.h). */
static int bake_settings(const struct cordon_settings *s, char ***ret)
{
        const char *name;
        for (size_t i = 0; (name = cordon_settings_variable(i)); i++) {
                if (streq(name, "SANDBOX_BACKEND") || streq(name, "NETWORK_FILTER_MODE"))
                        continue;
                ssize_t n = cordon_settings_count(s, name);
                int r = 0;
                if (n == -ENOTDIR) {
                        char buf[8192];
                        const char *origin = NULL;
                        r = cordon_settings_get(s, name, buf, sizeof(buf), &origin);
                        if (r < 0)
                                return r;
                        if (cordon_lower_is_builtin(origin) || !origin)
                                continue;
                        char *kv = NULL;
                        if (asprintf(&kv, "%s=%s", name, buf) < 0 || strv_consume(ret, kv) < 0)
                                return -ENOMEM;
                        continue;
                }
                for (ssize_t k = 0; k < n; k++) {
                        const char *value = NULL, *origin = NULL;
                        if ((r = cordon_settings_get_item(s, name, (size_t)k, &value, &origin)) < 0)
                                return r;
                        if (cordon_lower_is_builtin(origin))
                                continue;
                        char *kv = NULL;
                        if (asprintf(&kv, "%s=%s", name, value) < 0 || strv_consume(ret, kv) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

int cordon_lower_slurm(struct lower *l)
{
        struct cordon_policy *p = l->p;
        const struct cordon_settings *s = l->s;
        p->slurm.scope = s->slurm_scope;
        p->slurm.log_level = s->chaperon_log_level;
        p->slurm.log_retain_days = s->chaperon_log_retain_days;

        const char *path = "/usr/local/bin:/usr/bin:/bin";
        STRV_FOREACH (e, p->envp)
                if (strncmp(*e, "PATH=", 5) == 0)
                        path = *e + 5;
        for (const char *const *n = cordon_slurm_command_names(); *n; n++) {
                _cleanup_free_ char *real = find_on_path(path, *n);
                if (!real) {
                        if (errno == ENOMEM)
                                return -ENOMEM;
                        continue;
                }
                if (strv_contains(p->slurm.paths, real))
                        continue; /* one program under two names */
                int r = strv_consume(&p->slurm.paths, TAKE_PTR(real));
                if (r < 0)
                        return r;
        }
        if (!p->slurm.paths)
                return 0;
        int k = bake_settings(s, &p->slurm.settings);
        if (k < 0)
                return cordon_diag_set(l->diag, k,
                                       "SLURM_SCOPE: cannot keep the settings for the jobs a "
                                       "sandbox submits: %s",
                                       strerror(-k));
        return 0;
}

bool cordon_lower_visible_same_path(const struct cordon_policy *p, const char *real)
{
        const struct cordon_fs_rule *best = NULL;
        size_t best_len = 0;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                if (!path_is_below(real, r->guest))
                        continue;
                if (r->access == CORDON_ACCESS_MASKED)
                        return false; /* masks win over everything below them */
                size_t len = strlen(r->guest);
                if (!best || len >= best_len) {
                        best = r;
                        best_len = len;
                }
        }
        return best && cordon_access_is_bind(best->access) && best->host &&
               streq(best->host, best->guest);
}

static int check_program(const char *path, const char *what, struct cordon_diag *diag)
{
        struct stat st;
        if (!path || !path_is_absolute(path))
                return cordon_diag_set(diag, -EINVAL,
                                       "SLURM_SCOPE: the %s must be an absolute path", what);
        if (stat(path, &st) < 0)
                return cordon_diag_set(diag, -errno, "SLURM_SCOPE: the %s '%s': %m", what, path);
        if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
                return cordon_diag_set(diag, -EACCES,
                                       "SLURM_SCOPE: the %s '%s' is not an executable file", what,
                                       path);
        return 0;
}

_public_ int cordon_policy_set_slurm(struct cordon_policy *p, const char *stub,
                                     const char *chaperon, struct cordon_diag *diag)
{
        if (!p)
                return -EINVAL;
        if (p->slurm.stub)
                return cordon_diag_set(diag, -EALREADY, "SLURM_SCOPE: the programs are set");
        if (!p->slurm.paths)
                return 0; /* the host has no Slurm the command would find */
        int r = check_program(stub, "stub program", diag);
        if (r < 0 || (r = check_program(chaperon, "chaperon program", diag)) < 0)
                return r;
        _cleanup_free_ char *s = strdup(stub), *c = strdup(chaperon);
        if (!s || !c)
                return -ENOMEM;
        /* Under a mount namespace the stub covers each program itself, whatever name or path
         * calls it; the landlock backend drops these (CORDON_FS_NS_ONLY) and puts the names
         * first on PATH instead. */
        if (!p->landlock_only)
                STRV_FOREACH (it, p->slurm.paths) {
                        if (!cordon_lower_visible_same_path(p, *it))
                                continue;
                        r = cordon_policy_add_fs(p, *it, stub, CORDON_ACCESS_RO, CORDON_FS_NS_ONLY,
                                                 ORIGIN);
                        if (r < 0)
                                return r;
                }
        p->slurm.stub = TAKE_PTR(s);
        p->slurm.chaperon = TAKE_PTR(c);
        return 0;
}
