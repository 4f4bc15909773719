/* Paths of the home a sandbox must not create on the host: a missing credential store,
 * HOME_READONLY or HOME_SEEDED_FILES entry below a read-write bind (~/.bashrc, ~/.gitconfig,
 * ~/.config/autostart, ~/.kube/config) would be trusted or run by the host later. Neither backend
 * can deny one missing name in a writable directory (Landlock rules only add rights; a mount needs
 * something to cover), so the bind is carved instead: its directory becomes read-only and each of
 * its entries keeps the bind's rights, down the way to the missing path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/resolve/lower-internal.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* Deeper than any home's paths: a bound on the work a planted tree can cause. */
#define CARVE_MAX_STEPS 32
/* More entries in one carved directory than any home has: each is a rule of its own. */
#define CARVE_MAX_ENTRIES 4096u

/* True when carving the read-write rule @r would take rights from the home or a parent of it
 * (a writable /tmp holding the home): only binds at or below the home are carved. */
static bool carvable(const struct lower *l, const struct cordon_fs_rule *r)
{
        const char *homes[] = {l->home_real, l->account_home_real};
        for (size_t i = 0; i < ELEMENTSOF(homes); i++)
                if (homes[i] && path_is_below(homes[i], r->host) && !streq(homes[i], r->host))
                        return false;
        return true;
}

/* The innermost read-write bind that @point lies strictly below, or -1. */
static ssize_t holder(const struct lower *l, const char *point)
{
        ssize_t best = -1;
        size_t n = strlen(point);
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access != CORDON_ACCESS_RW || !r->host ||
                    !path_is_below_n(point, n, r->host) || streq(r->host, point))
                        continue;
                if (best < 0 || strlen(r->host) > strlen(l->p->fs[best].host))
                        best = (ssize_t)i;
        }
        return best >= 0 && carvable(l, &l->p->fs[best]) ? best : -1;
}

/* The names in directory @host, sorted so that plans are reproducible; refused past
 * CARVE_MAX_ENTRIES, since each becomes a bind (or a Landlock rule) of its own. */
static int list_names(struct lower *l, const char *host, const char *point, char ***ret)
{
        DIR *d = opendir(host);
        if (!d)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        int r = dir_read_names(d, CARVE_MAX_ENTRIES, ret, NULL);
        closedir(d);
        if (r == -E2BIG)
                return cordon_diag_set(l->diag, r,
                                       "'%s' holds more than %u entries, too many to keep '%s' "
                                       "from being created there by binding each of them "
                                       "read-write on its own; bind that directory read-only or "
                                       "not at all",
                                       host, CARVE_MAX_ENTRIES, point);
        return r;
}

/* Makes read-write bind @guest (host directory @host) read-only and binds each of its entries
 * with its rights, except entries with rules of their own, symlinks (following one needs no
 * right, and its target keeps its own rules), and the protected paths in @skip (their masks
 * come later). */
static int carve_one(struct lower *l, const char *guest, const char *host, unsigned flags,
                     const char *origin, const char *point, char *const *skip)
{
        _cleanup_free_ char *why = NULL;
        if (asprintf(&why, "%s, read-only so that '%s' cannot be created", origin, point) < 0)
                return -ENOMEM;
        int r = cordon_lower_put(l, guest, host, CORDON_ACCESS_RO, flags, why);
        _cleanup_strv_free_ char **names = NULL;
        if (r < 0 || (r = list_names(l, host, point, &names)) < 0)
                return r;
        STRV_FOREACH (n, names) {
                _cleanup_free_ char *child_host = path_join(host, *n);
                _cleanup_free_ char *child_guest = path_join(guest, *n);
                if (!child_host || !child_guest)
                        return -ENOMEM;
                struct stat st;
                if (strv_contains(skip, child_host) || cordon_policy_find_fs(l->p, child_guest) ||
                    lstat(child_host, &st) < 0 || S_ISLNK(st.st_mode))
                        continue;
                r = cordon_lower_put(l, child_guest, child_host, CORDON_ACCESS_RW, flags, origin);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Carves every read-write bind on the way down to @point, a missing host path. */
static int carve_towards(struct lower *l, const char *point, char *const *skip)
{
        for (unsigned step = 0; step < CARVE_MAX_STEPS; step++) {
                ssize_t i = holder(l, point);
                if (i < 0)
                        return 0;
                /* Copies: the rules below move when the array grows. */
                const struct cordon_fs_rule *w = &l->p->fs[i];
                _cleanup_free_ char *guest = strdup(w->guest), *host = strdup(w->host),
                                    *origin = strdup(w->origin);
                if (!guest || !host || !origin)
                        return -ENOMEM;
                int r = carve_one(l, guest, host, w->flags, origin, point, skip);
                if (r < 0)
                        return r;
        }
        return -E2BIG;
}

/* Adds @base/@rel to @points when nothing is there (planned entries count as there): as the
 * realpath of its deepest existing directory and the missing rest, which is what a create
 * would reach. Adds it to @skip when it is there. */
static int note_path(struct lower *l, const char *base, const struct lower_dir_names *dn,
                     const char *rel, char ***points, char ***skip)
{
        _cleanup_free_ char *joined = path_join(base, rel), *host = NULL;
        if (!joined || path_normalize(joined, &host) < 0)
                return -ENOMEM;
        if (!path_is_below(host, base) || streq(host, base))
                return 0; /* refused where the entry is bound (lower-home.c) */
        struct stat st;
        _cleanup_free_ char *prefix = NULL;
        /* Most entries are missing below the home, whose listing @dn says so without an
         * lstat(): the home itself (a realpath) is then the deepest directory there. */
        if (cordon_lower_dir_names_absent(l, dn, base, rel))
                return holder(l, host) < 0 ? 0 : strv_extend(points, host);
        if (cordon_lower_lstat(l, host, &st) == 0)
                return strv_extend(skip, host);
        if (errno != ENOENT)
                return 0;
        /* The deepest directory that is there, resolved through the directories this resolve
         * already knows (most entries share ~/.config or ~/.local): no lstat() for those. */
        prefix = strdup(host);
        if (!prefix)
                return -ENOMEM;
        _cleanup_free_ char *real = NULL;
        for (;;) {
                char *slash = strrchr(prefix, '/');
                if (!slash || slash == prefix)
                        return 0;
                *slash = 0;
                if ((real = cordon_lower_realpath(l, prefix)))
                        break;
                if (errno != ENOENT)
                        return 0; /* a dangling link or a loop: nothing a create could reach */
        }
        _cleanup_free_ char *point = path_join(real, host + strlen(prefix));
        if (!point)
                return -ENOMEM;
        /* Most points lie below no read-write bind (a tmpfs home): nothing to carve. */
        if (holder(l, point) < 0)
                return 0;
        return strv_extend(points, point);
}

static bool handed_over(const struct lower *l, const struct cordon_list *list,
                        const struct cordon_item *it)
{
        return list == &l->s->home_always_blocked && cordon_lower_cap_hands_over(l, it->value);
}

int cordon_lower_keep_absent(struct lower *l, const struct lower_dir_names *account_names)
{
        const struct cordon_settings *s = l->s;
        _cleanup_strv_free_ char **points = NULL, **skip = NULL;
        /* Credential stores below both homes; the entries the settings name relative to $HOME
         * below $HOME only. A seeded entry is copied, not bound read-only, but it is read by
         * the host as well (~/.gitconfig runs core.fsmonitor). */
        const struct cordon_list *lists[] = {&s->home_always_blocked, &s->home_readonly,
                                             &s->home_seeded};
        int r;
        for (size_t k = 0; k < ELEMENTSOF(lists); k++)
                CORDON_LIST_FOREACH (it, lists[k]) {
                        if (handed_over(l, lists[k], it))
                                continue;
                        if (l->home_real && (r = note_path(l, l->home_real, &l->home_names,
                                                           it->value, &points, &skip)) < 0)
                                return r;
                        if (k == 0 && l->account_home_real &&
                            (r = note_path(l, l->account_home_real, account_names, it->value,
                                           &points, &skip)) < 0)
                                return r;
                }
        STRV_FOREACH (p, points)
                if ((r = carve_towards(l, *p, skip)) < 0)
                        return r;
        return 0;
}
