/* Lowering of $HOME: HOME_ACCESS modes, HOME_READONLY/WRITABLE/SEEDED_FILES entries, and the
 * credential directories that are hidden whatever the mode. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

static int check_home_relative(struct lower *l, const struct cordon_item *it, const char *variable)
{
        const char *v = it->value;
        bool bad = !*v || v[0] == '/' || streq(v, "..") || startswith(v, "../") ||
                   strstr(v, "/../") || (strlen(v) >= 3 && streq(v + strlen(v) - 3, "/.."));
        if (bad)
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s) must be a path relative to $HOME "
                                       "without '..'",
                                       variable, v, it->origin);
        return 0;
}

static bool writable_target_allowed(struct lower *l, const char *real)
{
        if (path_is_below(real, l->home_real))
                return true;
        CORDON_LIST_FOREACH (it, &l->s->allowed_project_parents) {
                _cleanup_free_ char *parent = cordon_lower_host_realpath(l, it->value);
                if (parent && path_is_below(real, parent))
                        return true;
        }
        return false;
}

static int home_entry(struct lower *l, const struct cordon_item *it, enum cordon_access access,
                      const char *variable)
{
        int r = check_home_relative(l, it, variable);
        if (r < 0)
                return r;
        _cleanup_free_ char *host = path_join(l->home_real, it->value);
        _cleanup_free_ char *guest_raw = path_join(l->home_guest, it->value);
        _cleanup_free_ char *guest = NULL;
        if (!host || !guest_raw || path_normalize(guest_raw, &guest) < 0)
                return -ENOMEM;
        struct stat st;
        /* A missing writable entry is made (mkdir -p) by the launch; planned here, it counts as
         * there for every check below. */
        if (access == CORDON_ACCESS_RW && cordon_lower_lstat(l, host, &st) < 0 && errno == ENOENT) {
                _cleanup_free_ char *reason = NULL;
                if (asprintf(&reason, "%s entry (from %s)", variable, it->origin) < 0)
                        return -ENOMEM;
                r = cordon_lower_plan_mkdir_p(l, host, reason);
                if (r < 0)
                        return cordon_diag_set(l->diag, r, "cannot create %s entry '%s': %s",
                                               variable, host, strerror(-r));
        }
        if (cordon_lower_lstat(l, host, &st) < 0)
                return 0; /* missing entries are skipped */
        if (access == CORDON_ACCESS_COPY && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
                return 0;
        _cleanup_free_ char *real = cordon_lower_realpath(l, host);
        if (!real)
                return 0; /* dangling symlink */
        /* A symlink planted by an earlier session must not widen the next one: never the host
         * root, writable entries only where a project could live and never the home directory
         * or a parent of it, and nothing through a link in a directory a sandbox could write
         * (a project ~/.cache could have turned ~/.cache/uv into a link to ~). */
        _cleanup_free_ char *link = NULL, *target = NULL, *norm = NULL;
        /* @host starts at a realpath: where its realpath is itself, no link is on the way and
         * there is nothing to walk (the walk costs an lstat() a component, for every entry). */
        r = path_normalize(host, &norm) >= 0 && streq(norm, real)
                ? 0
                : cordon_lower_find_planted_link(l, host, &link, &target);
        if (r < 0)
                return r;
        if (r > 0)
                return cordon_lower_warn(l,
                                         "%s entry '%s' (from %s) goes through symlink '%s' -> "
                                         "'%s' in a directory a sandbox can write; not bound",
                                         variable, it->value, it->origin, link, target);
        if (streq(real, "/") || (access != CORDON_ACCESS_RO && (path_is_below(l->home_real, real) ||
                                                                !writable_target_allowed(l, real))))
                return cordon_lower_warn(l, "%s entry '%s' (from %s) resolves to '%s'; not bound",
                                         variable, it->value, it->origin, real);
        return cordon_lower_put(l, guest, real, access, 0, it->origin);
}

int cordon_lower_home(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        int r;
        /* The account's own home holds the same credentials whatever $HOME says; it is kept
         * for the masks even when $HOME is unset or points elsewhere. */
        if (l->h->account_home && path_is_absolute(l->h->account_home)) {
                l->account_home_real = cordon_lower_host_realpath(l, l->h->account_home);
                if (l->account_home_real && streq(l->account_home_real, "/")) {
                        free(l->account_home_real);
                        l->account_home_real = NULL;
                }
        }
        if (!l->h->home || !path_is_absolute(l->h->home))
                return cordon_lower_warn(l, "HOME is not set; the sandbox has no home directory");
        if (path_normalize(l->h->home, &l->home_guest) < 0 || streq(l->home_guest, "/"))
                return cordon_lower_warn(
                    l, "HOME='%s' is not usable; the sandbox has no home directory", l->h->home);
        l->home_real = cordon_lower_host_realpath(l, l->home_guest);
        if (!l->home_real)
                return cordon_lower_warn(
                    l, "home directory '%s' does not exist; the sandbox has none", l->home_guest);
        if (streq_ptr(l->account_home_real, l->home_real)) {
                free(l->account_home_real);
                l->account_home_real = NULL;
        }
        l->p->home_dir = strdup(l->home_guest);
        l->p->home_access = s->home_access;

        switch (s->home_access) {
        case CORDON_HOME_TMPWRITE:
        case CORDON_HOME_RESTRICTED:
                r = cordon_lower_put(l, l->home_guest, NULL, CORDON_ACCESS_TMPFS,
                                     s->home_access == CORDON_HOME_RESTRICTED ? CORDON_FS_SEAL : 0,
                                     s->home_access_origin);
                if (r < 0)
                        return r;
                CORDON_LIST_FOREACH (it, &s->home_readonly) {
                        if (cordon_list_find(&s->home_seeded, it->value))
                                continue; /* a seeded copy wins over the read-only bind */
                        if ((r = home_entry(l, it, CORDON_ACCESS_RO, "HOME_READONLY")) < 0)
                                return r;
                }
                break;
        case CORDON_HOME_READ:
                r = cordon_lower_put(l, l->home_guest, l->home_real, CORDON_ACCESS_RO, 0,
                                     s->home_access_origin);
                if (r < 0)
                        return r;
                break;
        case CORDON_HOME_WRITE:
                return cordon_lower_put(l, l->home_guest, l->home_real, CORDON_ACCESS_RW, 0,
                                        s->home_access_origin);
        }
        CORDON_LIST_FOREACH (it, &s->home_writable)
                if ((r = home_entry(l, it, CORDON_ACCESS_RW, "HOME_WRITABLE")) < 0)
                        return r;
        CORDON_LIST_FOREACH (it, &s->home_seeded)
                if ((r = home_entry(l, it, CORDON_ACCESS_COPY, "HOME_SEEDED_FILES")) < 0)
                        return r;
        return 0;
}

/* The credential directories a sandbox that can write the home must not create on the host:
 * ~/.ssh/authorized_keys or a ~/.gnupg agent configuration would give it a way back in. The other
 * stores are files or nested in tool directories, where an empty placeholder would break the
 * host's tools (a directory named .netrc), and planting one is no worse than planting .bashrc,
 * which a writable home allows anyway. */
static bool created_when_missing(const char *v)
{
        return streq(v, ".ssh") || streq(v, ".aws") || streq(v, ".gnupg");
}

/* True when a component of @rel below @base (as far as it exists) is a symlink. */
static bool has_link_below(const char *base, const char *rel)
{
        _cleanup_free_ char *path = path_join(base, rel);
        if (!path)
                return true;
        for (char *c = path + strlen(base) + 1;; c++) {
                if (*c != '/' && *c)
                        continue;
                char saved = *c;
                *c = 0;
                struct stat st;
                if (lstat(path, &st) < 0)
                        return false;
                if (S_ISLNK(st.st_mode))
                        return true;
                if (!saved)
                        return false;
                *c = saved;
        }
}

/* What one read of a home directory says about the credential stores' first components, so
 * that a store that is not there costs no lstat(): most are missing on every start. */
struct store_heads {
        char **heads; /* first components of the stores, lowercased, sorted, unique */
        bool *found;  /* heads[i] is in the listing, in any letter case */
        size_t n;
        bool complete; /* the listing is whole and trustworthy: a head not found is absent */
};

static void store_heads_clear(struct store_heads *sh)
{
        strv_free(sh->heads);
        free(sh->found);
        *sh = (struct store_heads){0};
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static ssize_t head_index(const struct store_heads *sh, const char *name, size_t len)
{
        char key[NAME_MAX + 1];
        if (len > NAME_MAX)
                return -1;
        for (size_t i = 0; i < len; i++)
                key[i] = (char)tolower((unsigned char)name[i]);
        key[len] = 0;
        const char *k = key;
        char **hit = bsearch(&k, sh->heads, sh->n, sizeof(char *), cmp_str);
        return hit ? hit - sh->heads : -1;
}

static int store_heads_init(struct store_heads *sh, const struct cordon_list *stores)
{
        CORDON_LIST_FOREACH (it, stores) {
                size_t len = strcspn(it->value, "/");
                _cleanup_free_ char *h = strndup(it->value, len);
                if (!h)
                        return -ENOMEM;
                for (char *c = h; *c; c++)
                        *c = (char)tolower((unsigned char)*c);
                if (strv_contains(sh->heads, h))
                        continue;
                if (strv_consume(&sh->heads, TAKE_PTR(h)) < 0)
                        return -ENOMEM;
        }
        sh->n = strv_length(sh->heads);
        if (sh->n > 0)
                qsort(sh->heads, sh->n, sizeof(char *), cmp_str);
        sh->found = calloc(sh->n ?: 1, sizeof(bool));
        return sh->found ? 0 : -ENOMEM;
}

/* Lists @base once. The listing is only trusted when it is whole and every name in it is ASCII:
 * it is compared without letter case, as a case-folding filesystem (ext4 or tmpfs casefold, SMB)
 * would look a store's name up, and a non-ASCII name could fold onto one (U+212A KELVIN SIGN is
 * a 'k'). Anything else leaves complete false, and every store gets its lstat(). */
static void store_heads_list(struct store_heads *sh, const char *base)
{
        memset(sh->found, 0, sh->n * sizeof(bool));
        sh->complete = false;
        DIR *d = opendir(base);
        if (!d)
                return;
        bool ok = true;
        errno = 0;
        for (struct dirent *de; ok && (de = readdir(d));) {
                size_t len = strlen(de->d_name);
                for (size_t i = 0; i < len && ok; i++)
                        ok = !((unsigned char)de->d_name[i] & 0x80);
                ssize_t k = ok ? head_index(sh, de->d_name, len) : -1;
                if (k >= 0)
                        sh->found[k] = true;
        }
        sh->complete = ok && errno == 0;
        closedir(d);
}

/* True when @sh says @rel (a store) is not below the home it listed, and nothing the resolve
 * plans could be there either. */
static bool store_absent(const struct lower *l, const struct store_heads *sh, const char *base,
                         const char *rel)
{
        if (!sh || !sh->complete)
                return false;
        size_t head = strcspn(rel, "/"), n = strlen(base);
        /* A planned entry counts as there (cordon_lower_lstat()): one under the same first
         * component, in any letter case, sends the store to the lstat(). */
        for (size_t i = 0; i < l->p->n_actions; i++) {
                const char *a = l->p->actions[i].path;
                if (!path_is_below(a, base) || streq(a, base))
                        continue;
                a += n + (n > 1);
                if (strcspn(a, "/") == head && strncasecmp(a, rel, head) == 0)
                        return false;
        }
        ssize_t k = head_index(sh, rel, head);
        return k >= 0 && !sh->found[k];
}

/* One credential store @it below home @base (a realpath): hidden wherever it is visible, and
 * over @guest_home (the tmpfs home, or NULL) as well. Where the sandbox could create a missing
 * credential directory on the host, an empty one is made first so that it can be covered. */
static int block_in_home(struct lower *l, const char *base, const char *guest_home,
                         const struct cordon_item *it, const struct store_heads *sh)
{
        _cleanup_free_ char *host = path_join(base, it->value);
        _cleanup_free_ char *guest = guest_home ? path_join(guest_home, it->value) : NULL;
        if (!host || (guest_home && !guest))
                return -ENOMEM;
        struct stat st;
        int r;
        bool exists;
        if (store_absent(l, sh, base, it->value)) {
                exists = false;
                errno = ENOENT;
        } else
                exists = cordon_lower_lstat(l, host, &st) == 0;
        if (!exists && errno == ENOENT && created_when_missing(it->value) &&
            cordon_lower_sandbox_can_write(l, host)) {
                /* Made empty by the launch, with this warning; a directory from here on. */
                _cleanup_free_ char *reason = NULL, *warning = NULL;
                if (asprintf(&reason, "kept hidden: credential directory (from %s)", it->origin) <
                        0 ||
                    asprintf(&warning, "created empty '%s' so the sandbox cannot create it", host) <
                        0)
                        return -ENOMEM;
                r = cordon_lower_plan(l, CORDON_HOST_MKDIR, host, 0700, NULL, reason, warning);
                if (r < 0)
                        return r;
                exists = cordon_lower_lstat(l, host, &st) == 0;
        }
        /* A symlink cannot be covered, nor reached by the mount code, which refuses links on
         * the way: the target is masked, wherever it is visible. @base is a realpath, so a
         * one-component entry has a link on the way only when it is one itself. This runs for
         * every entry on every start, and most entries do not exist: one lstat() for those. */
        if (!exists)
                return 0; /* nothing there to hide, under this name or behind a link */
        bool link = strchr(it->value, '/') ? has_link_below(base, it->value) : S_ISLNK(st.st_mode);
        if (guest && !link &&
            (r = cordon_lower_put(l, guest, NULL, CORDON_ACCESS_MASKED, 0, it->origin)) < 0)
                return r;
        _cleanup_free_ char *norm = NULL;
        if (!link && (r = path_normalize(host, &norm)) < 0 && r != -EINVAL)
                return r;
        /* Without a link on the way a normalised path is its own realpath. */
        _cleanup_free_ char *real = !link && norm && streq(norm, host)
                                        ? TAKE_PTR(norm)
                                        : cordon_lower_host_realpath(l, host);
        if (real && (r = cordon_list_add_unique(&l->masks, real, it->origin)) < 0)
                return r;
        return 0;
}

/* Credential stores: hidden in every mode, below $HOME and below the account's home (which
 * $HOME need not point to). A capability policy may hand over the package-manager ones. */
int cordon_lower_home_blocked(struct lower *l)
{
        const struct cordon_list *stores = &l->s->home_always_blocked;
        CORDON_LIST_FOREACH (it, stores) {
                int r = check_home_relative(l, it, "blocked home entry");
                if (r < 0)
                        return r;
        }
        /* One listing per home instead of an lstat() per store; the homes are listed before
         * any store is planned, and a plan below a home turns the listing off (store_absent()). */
        _cleanup_(store_heads_clear) struct store_heads home = {0}, account = {0};
        int r;
        if ((l->home_real && (r = store_heads_init(&home, stores)) < 0) ||
            (l->account_home_real && (r = store_heads_init(&account, stores)) < 0))
                return r;
        if (l->home_real)
                store_heads_list(&home, l->home_real);
        if (l->account_home_real)
                store_heads_list(&account, l->account_home_real);
        CORDON_LIST_FOREACH (it, stores) {
                if (l->home_real && !cordon_lower_cap_hands_over(l, it->value) &&
                    (r = block_in_home(l, l->home_real, l->home_guest, it, &home)) < 0)
                        return r;
                if (l->account_home_real &&
                    (r = block_in_home(l, l->account_home_real, NULL, it, &account)) < 0)
                        return r;
        }
        return 0;
}
