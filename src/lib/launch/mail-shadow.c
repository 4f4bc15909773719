/* The landlock backend's PATH shadow: a directory of stubs of the launch's own on the host, first
 * on the command's PATH, that Landlock lets the command read and run but not change, removed when
 * the launch ends. It holds NETWORK_MAIL_BLOCK's mail stubs, and links under Slurm's commands'
 * names to cordon's Slurm stub (SLURM_SCOPE, with the chaperon's doorbell). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/launch/backend.h"
#include "lib/launch/launch.h"
#include "lib/launch/mail-shadow.h"
#include "lib/policy/diag.h"
#include "lib/policy/policy.h"
#include "lib/resolve/mail-stub.h"
#include "lib/slurm/slurm-names.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* Where the directory may go: places the caller can make a directory in, tried in order. A
 * tmpfs first: on this VM's ext4 /tmp each symbolic link costs about 120 us against a few on
 * /dev/shm (13 of them a start). */
static const char *const places[] = {"/dev/shm", "/tmp", "/var/tmp"};

/* Whether a rule of @ll that grants any writing right reaches @dir: the command could then
 * replace the stubs, or rename the directory away. */
static const char *write_grant_over(const struct cordon_landlock_plan *ll, const char *dir)
{
        for (size_t i = 0; i < ll->n_rules; i++)
                if ((ll->rules[i].access & CORDON_LANDLOCK_FS_WRITE) &&
                    path_is_below(dir, ll->rules[i].path))
                        return ll->rules[i].path;
        return NULL;
}

/* Whether the shadow holds Slurm's stubs: a doorbell was made for them. */
static bool slurm_stubs(const struct cordon_launch *l)
{
        return l->slurm.fd[1] >= 0 && l->p->slurm.stub;
}

/* Fills directory @dfd: the mail stub under the first name, a link to it under each other one;
 * Slurm's names as links to its stub. */
static int fill(const struct cordon_launch *l, int dfd)
{
        if (slurm_stubs(l))
                for (const char *const *n = cordon_slurm_command_names(); *n; n++)
                        if (symlinkat(l->p->slurm.stub, dfd, *n) < 0)
                                return -errno;
        if (!l->p->mail_stub)
                return 0;
        const char *const *names = cordon_mail_names();
        const char *stub = cordon_mail_stub_script(true);
        _cleanup_close_ int fd =
            openat(dfd, names[0], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0555);
        if (fd < 0)
                return -errno;
        int r = write_all(fd, stub, strlen(stub));
        if (r < 0)
                return r;
        for (const char *const *n = names + 1; *n; n++)
                if (symlinkat(names[0], dfd, *n) < 0)
                        return -errno;
        return 0;
}

static int make(struct cordon_launch *l, struct cordon_diag *diag)
{
        char why[512] = "";
        size_t len = 0;
        for (size_t i = 0; i < ELEMENTSOF(places); i++) {
                char real[PATH_MAX];
                if (!realpath(places[i], real))
                        continue;
                const char *grant = l->landlock ? write_grant_over(&l->ll, real) : NULL;
                if (grant) {
                        int k = snprintf(why + len, sizeof(why) - len,
                                         "%s%s is writable inside "
                                         "(by the grant of %s)",
                                         len ? "; " : "", real, grant);
                        if (k > 0 && (size_t)k < sizeof(why) - len)
                                len += (size_t)k;
                        continue;
                }
                _cleanup_free_ char *dir = NULL;
                if (asprintf(&dir, "%s/cordon-mail-XXXXXX", real) < 0)
                        return -ENOMEM;
                if (!mkdtemp(dir)) {
                        int k = snprintf(why + len, sizeof(why) - len, "%s%s: %s", len ? "; " : "",
                                         real, strerror(errno));
                        if (k > 0 && (size_t)k < sizeof(why) - len)
                                len += (size_t)k;
                        continue;
                }
                _cleanup_close_ int dfd =
                    open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                int r = dfd < 0 ? -errno : fill(l, dfd);
                if (r < 0) {
                        remove_tree_physical(dir);
                        return cordon_diag_set(diag, r,
                                               "NETWORK_MAIL_BLOCK: cannot make the landlock "
                                               "backend's directory of mail stubs in %s: %s (set "
                                               "NETWORK_MAIL_BLOCK=off, or use the ns backend)",
                                               dir, strerror(-r));
                }
                l->mail_dir = TAKE_PTR(dir);
                return 0;
        }
        return cordon_diag_set(diag, -EOPNOTSUPP,
                               "NETWORK_MAIL_BLOCK cannot be enforced by the landlock backend: "
                               "there is no place for its directory of mail stubs that the "
                               "command could not write (%s) (set NETWORK_MAIL_BLOCK=off, or use "
                               "the ns backend)",
                               *why ? why : "none of /dev/shm, /tmp, /var/tmp");
}

int cordon_mail_shadow_prepare(struct cordon_launch *l, struct cordon_diag *diag)
{
        /* A mount namespace has the stub over the mailers themselves. */
        if (cordon_backend_ops(l->backend)->mount_ns || (!l->p->mail_stub && !slurm_stubs(l)) ||
            l->dry_run)
                return 0;
        int r;
        if (!l->mail_dir && (r = make(l, diag)) < 0)
                return r;
        /* Made for an earlier plan (a fallback plans again): still out of every write grant. */
        const char *grant = l->landlock ? write_grant_over(&l->ll, l->mail_dir) : NULL;
        if (grant)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "NETWORK_MAIL_BLOCK: the directory of mail stubs %s is "
                                       "writable inside by the grant of %s",
                                       l->mail_dir, grant);
        if (l->landlock &&
            (r = cordon_landlock_plan_add(&l->ll, l->mail_dir, CORDON_LANDLOCK_FS_READ, false)) < 0)
                return cordon_diag_set(diag, r, "failed to plan the Landlock rules: %s",
                                       strerror(-r));
        /* The Slurm stub itself, read and run where it lies (a build tree, libexec). */
        if (l->landlock && slurm_stubs(l) &&
            (r = cordon_landlock_plan_add(&l->ll, l->p->slurm.stub, CORDON_LANDLOCK_FS_READ,
                                          false)) < 0)
                return cordon_diag_set(diag, r, "failed to plan the Landlock rules: %s",
                                       strerror(-r));
        return 0;
}

int cordon_mail_shadow_path(const struct cordon_launch *l, char *const *envp, char **ret)
{
        *ret = NULL;
        if (!l->mail_dir)
                return 0;
        const char *old = NULL;
        for (char *const *e = envp; e && *e; e++)
                if (strncmp(*e, "PATH=", 5) == 0)
                        old = *e + 5;
        /* Without a PATH, the lookup's default (exec-search.c). */
        if (!old)
                old = "/usr/local/bin:/usr/bin:/bin";
        size_t n = strlen(CORDON_MAIL_STUB_DIR);
        if (strncmp(old, CORDON_MAIL_STUB_DIR, n) == 0 && (old[n] == ':' || !old[n]))
                old += n + (old[n] == ':');
        return asprintf(ret, "PATH=%s%s%s", l->mail_dir, *old ? ":" : "", old) < 0 ? -ENOMEM : 0;
}

void cordon_mail_shadow_remove(struct cordon_launch *l)
{
        if (!l->mail_dir)
                return;
        remove_tree_physical(l->mail_dir);
        free(l->mail_dir);
        l->mail_dir = NULL;
}
