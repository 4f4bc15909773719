/* TOOL_CONFIG_COPIES: ~/.npmrc, pip.conf, ~/.gitconfig and ~/.cargo/config.toml reach the
 * command as generated copies without their credentials (tool-config.h), at the file's own path
 * (ns backend, over the original's mask) or named in the tool's variable (landlock backend).
 * Before cordon_lower_masks(): an original that held a credential is masked wherever it shows.
 *
 * A copy is the sandbox's own to change: tools rewrite their configuration in place (npm, pip)
 * or write a new file next to it and rename it over (git config). The ns backend makes it a
 * plain file on the tmpwrite home's tmpfs; where that cannot be (a read-only directory there,
 * such as the built-in ~/.config/git) it binds it read-only and, once every rule is known
 * (cordon_lower_configs_elsewhere()), puts a writable twin on the private /tmp and names that
 * in the tool's variable. The landlock backend writes its copies into its private TMPDIR.
 * Nothing is ever written back: each copy goes with the sandbox's tmpfs or TMPDIR. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/resolve/lower-internal.h"
#include "lib/resolve/tool-config.h"
#include "lib/settings/settings.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define ORIGIN "TOOL_CONFIG_COPIES"

struct tool_file {
        const char *home_rel;
        enum cordon_tool_config format;
        const char *what; /* for messages */
        /* The variable that names the copy for the landlock backend (the first file of a
         * variable that exists gets it); NULL: none (cargo reads its configuration from
         * CARGO_HOME, which would move its registry and programs too). */
        const char *var;
        /* The name of its writable twin on the ns backend's /tmp (/tmp/.cordon-config-NAME). */
        const char *twin;
};

static const struct tool_file files[] = {
    {".npmrc", CORDON_TOOL_CONFIG_NPMRC, "npm's", "NPM_CONFIG_USERCONFIG", "npmrc"},
    {".config/pip/pip.conf", CORDON_TOOL_CONFIG_PIP, "pip's", "PIP_CONFIG_FILE", "pip.conf"},
    {".pip/pip.conf", CORDON_TOOL_CONFIG_PIP, "pip's", "PIP_CONFIG_FILE", "pip.conf"},
    {".gitconfig", CORDON_TOOL_CONFIG_GIT, "git's", "GIT_CONFIG_GLOBAL", "gitconfig"},
    {".config/git/config", CORDON_TOOL_CONFIG_GIT, "git's", "GIT_CONFIG_GLOBAL", "gitconfig"},
    {".cargo/config.toml", CORDON_TOOL_CONFIG_CARGO, "cargo's", NULL, NULL},
};

/* Reads @host (links followed: a dotfile manager's link is the user's file), a regular file of
 * at most CORDON_TOOL_CONFIG_MAX_SIZE bytes. 0 with the text, 1 when there is none to read,
 * -E2BIG, or -errno. */
static int read_config(const char *host, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return errno == ENOENT || errno == ENOTDIR ? 1 : -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return 1;
        int r = read_full_fd(fd, CORDON_TOOL_CONFIG_MAX_SIZE, ret, ret_len);
        return r == -EFBIG ? -E2BIG : r;
}

/* Hides the original wherever it shows (its realpath, and the name itself when it is a link). */
static int mask_original(struct lower *l, const char *host)
{
        _cleanup_free_ char *real = cordon_lower_host_realpath(l, host);
        int r = cordon_list_add_unique(&l->masks, real ?: host, ORIGIN);
        if (r < 0 || !real || streq(real, host))
                return r;
        return cordon_list_add_unique(&l->masks, host, ORIGIN);
}

static int one_file(struct lower *l, const struct tool_file *f, char ***vars_done)
{
        _cleanup_free_ char *host = path_join(l->home_real, f->home_rel);
        _cleanup_free_ char *guest = path_join(l->home_guest, f->home_rel);
        if (!host || !guest)
                return -ENOMEM;
        const struct cordon_fs_rule *at = NULL;
        for (size_t i = 0; i < l->p->n_fs; i++)
                if (l->p->fs[i].access != CORDON_ACCESS_MASKED && streq(l->p->fs[i].guest, guest))
                        at = &l->p->fs[i];
        /* The user's own: HOME_WRITABLE (the host's file, read-write, knowingly), or a
         * capability policy that hands the credential over. */
        if ((at && at->access == CORDON_ACCESS_RW) || cordon_lower_cap_hands_over(l, f->home_rel))
                return 0;
        if (cordon_lower_dir_names_absent(l, &l->home_names, l->home_real, f->home_rel))
                return 0;
        _cleanup_free_ char *in = NULL, *text = NULL;
        _cleanup_strv_free_ char **dropped = NULL;
        size_t n = 0;
        int r = read_config(host, &in, &n);
        if (r == 1)
                return 0;
        if (r >= 0)
                r = cordon_tool_config_sanitize(f->format, in, n, &text, &dropped);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* Nothing of it can be judged: hidden, never handed over whole. */
                int k = mask_original(l, host);
                if (k < 0)
                        return k;
                return cordon_lower_warn(l,
                                         "%s: '%s' is not %s configuration as cordon reads it "
                                         "(%s); hidden",
                                         ORIGIN, host, f->what,
                                         r == -EINVAL ? "a line it cannot parse" : strerror(-r));
        }
        /* Nothing dropped, and a copy of the whole file there already (HOME_SEEDED_FILES'
         * writable one): it stays. */
        if (!dropped && at && at->access == CORDON_ACCESS_COPY)
                return 0;
        if (dropped && (r = mask_original(l, host)) < 0)
                return r;
        _cleanup_free_ char *origin = NULL;
        if (dropped) {
                size_t len = strlen(ORIGIN " without") + 1;
                STRV_FOREACH (d, dropped)
                        len += strlen(*d) + 2;
                if (!(origin = malloc(len)))
                        return -ENOMEM;
                strcpy(origin, ORIGIN " without");
                STRV_FOREACH (d, dropped) {
                        strcat(origin, d == dropped ? " " : ", ");
                        strcat(origin, *d);
                }
        } else if (!(origin = strdup(ORIGIN)))
                return -ENOMEM;
        if ((r = cordon_lower_put(l, guest, text, CORDON_ACCESS_DATA, CORDON_FS_CONFIG_COPY,
                                  origin)) < 0)
                return r;
        if (!f->var || strv_contains(*vars_done, f->var))
                return 0;
        _cleanup_free_ char *entry = NULL;
        if (asprintf(&entry, "%s=%s", f->var, guest) < 0)
                return -ENOMEM;
        if ((r = strv_extend(vars_done, f->var)) < 0)
                return r;
        return strv_consume(&l->p->landlock_env_files, TAKE_PTR(entry));
}

int cordon_lower_configs(struct lower *l)
{
        /* A capability policy hands the package managers' configuration over by its own preset
         * (package_manager_config), and its home is not a tmpfs to put copies in. */
        if (!l->s->tool_config_copies || !l->home_real || !l->home_guest || l->s->policy)
                return 0;
        _cleanup_strv_free_ char **vars_done = NULL;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                int r = one_file(l, &files[i], &vars_done);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The index of the configuration copy at @guest, or -1. */
static ssize_t copy_rule(const struct cordon_policy *p, const char *guest)
{
        for (size_t i = 0; i < p->n_fs; i++)
                if ((p->fs[i].flags & CORDON_FS_CONFIG_COPY) &&
                    p->fs[i].access == CORDON_ACCESS_DATA && streq(p->fs[i].guest, guest))
                        return (ssize_t)i;
        return -1;
}

/* The writable twin of copy @idx for variable @var on the ns backend's private /tmp. */
static int one_twin(struct lower *l, size_t idx, const char *var, const char *twin)
{
        struct cordon_policy *p = l->p;
        _cleanup_free_ char *guest = NULL, *text = strdup(p->fs[idx].host), *origin = NULL;
        if (!text || asprintf(&guest, "/tmp/.cordon-config-%s", twin) < 0 ||
            asprintf(&origin, ORIGIN " (%s, for %s)", var, p->fs[idx].guest) < 0)
                return -ENOMEM;
        /* A rule of the user's own there stays as it is (the twin would replace it). */
        for (size_t i = 0; i < p->n_fs; i++)
                if (streq(p->fs[i].guest, guest))
                        return 0;
        int r =
            cordon_policy_add_fs(p, guest, text, CORDON_ACCESS_DATA, CORDON_FS_CONFIG_COPY, origin);
        if (r < 0)
                return r;
        /* Only on a /tmp of the sandbox's own (PRIVATE_TMP): on the host's /tmp it would be a
         * file cordon makes there. */
        if (!cordon_policy_on_own_tmpfs(p, p->n_fs - 1)) {
                struct cordon_fs_rule *last = &p->fs[--p->n_fs];
                free(last->guest);
                free(last->host);
                free(last->origin);
                return 0;
        }
        _cleanup_free_ char *entry = NULL;
        if (asprintf(&entry, "%s=%s", var, guest) < 0)
                return -ENOMEM;
        return strv_consume(&p->ns_env_files, TAKE_PTR(entry));
}

int cordon_lower_configs_elsewhere(struct lower *l)
{
        if (!l->home_guest)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                const struct tool_file *f = &files[i];
                if (!f->var)
                        continue;
                _cleanup_free_ char *guest = path_join(l->home_guest, f->home_rel), *entry = NULL;
                if (!guest || asprintf(&entry, "%s=%s", f->var, guest) < 0)
                        return -ENOMEM;
                /* The landlock backend's variable names this file's copy: the first of the
                 * tool's that has one. */
                if (!strv_contains(l->p->landlock_env_files, entry))
                        continue;
                ssize_t idx = copy_rule(l->p, guest);
                if (idx < 0 || cordon_policy_on_own_tmpfs(l->p, (size_t)idx))
                        continue;
                int r = one_twin(l, (size_t)idx, f->var, f->twin);
                if (r < 0)
                        return r;
        }
        return 0;
}
