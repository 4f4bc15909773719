/* Lowering of $HOME: HOME_ACCESS modes, HOME_READONLY/WRITABLE/SEEDED_FILES entries, and the
 * credential directories that are hidden whatever the mode. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
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
                _cleanup_free_ char *parent = cordon_lower_parent_realpath(l, it->value);
                if (parent && path_is_below(real, parent))
                        return true;
        }
        return false;
}

/* A home directory larger than this is not listed: past a few hundred entries (one 4 KiB block
 * on ext4, 200 entries on tmpfs) reading them costs more than the lstat()s the listing saves. */
#define HOME_LISTING_MAX_SIZE 4096

void cordon_lower_dir_names_clear(struct lower_dir_names *dn)
{
        free(dn->slots);
        *dn = (struct lower_dir_names){0};
}

/* FNV-1a of @name (@len bytes) with its ASCII letters folded to lower case; never 0, the mark of
 * an empty slot. */
static uint64_t name_hash(const char *name, size_t len)
{
        uint64_t h = 0xcbf29ce484222325u;
        for (size_t i = 0; i < len; i++) {
                /* ASCII only, whatever the caller's locale (a Turkish one folds 'I' to a
                 * dotless i): the listing is trusted only for ASCII names. */
                unsigned char c = (unsigned char)name[i];
                h ^= c >= 'A' && c <= 'Z' ? c | 0x20 : c;
                h *= 0x100000001b3u;
        }
        return h ?: 1;
}

static bool dir_names_has(const struct lower_dir_names *dn, uint64_t h)
{
        for (size_t i = h & (LOWER_DIR_NAMES_SLOTS - 1);;
             i = (i + 1) & (LOWER_DIR_NAMES_SLOTS - 1)) {
                if (dn->slots[i] == h)
                        return true;
                if (dn->slots[i] == 0)
                        return false;
        }
}

/* Lists @dir once: the home entries and the credential stores below it are looked up in the
 * listing, and most of them are missing on every start. Only a hash of each name is kept: two
 * names with one hash make a missing entry look present, which costs an lstat() and nothing
 * else. The listing is only trusted when it is whole and every name in it is ASCII: names are
 * compared without letter case, as a case-folding filesystem (ext4 or tmpfs casefold, SMB)
 * would look them up, and a non-ASCII name could fold onto an ASCII one (U+212A KELVIN SIGN is
 * a 'k'). A large directory is not read at all. Anything else leaves complete false, and every
 * lookup gets its lstat(). */
static int dir_names_add(const char *entry, void *userdata)
{
        struct lower_dir_names *dn = userdata;
        size_t len = strlen(entry);
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)entry[i] & 0x80)
                        return 1; /* a non-ASCII name: the listing is not trusted */
        if (dn->n >= LOWER_DIR_NAMES_SLOTS / 2)
                return 1; /* more than the table holds well */
        uint64_t h = name_hash(entry, len);
        size_t i = h & (LOWER_DIR_NAMES_SLOTS - 1);
        for (; dn->slots[i] && dn->slots[i] != h; i = (i + 1) & (LOWER_DIR_NAMES_SLOTS - 1))
                ;
        if (!dn->slots[i]) {
                dn->slots[i] = h;
                dn->n++;
        }
        return 0;
}

static int dir_names_read(struct lower_dir_names *dn, const char *dir)
{
        cordon_lower_dir_names_clear(dn);
        dn->slots = calloc(LOWER_DIR_NAMES_SLOTS, sizeof(*dn->slots));
        if (!dn->slots)
                return -ENOMEM;
        int r = cordon_lower_read_dir(dir, HOME_LISTING_MAX_SIZE, dir_names_add, dn);
        if (r != 0) {
                cordon_lower_dir_names_clear(dn);
                return r == -ENOMEM ? r : 0;
        }
        dn->complete = true;
        return 0;
}

/* True when @dn, the listing of @base, says nothing is at @rel below it (its first component is
 * not there, in any letter case) and nothing the resolve plans could be there either. */
bool cordon_lower_dir_names_absent(const struct lower *l, const struct lower_dir_names *dn,
                                   const char *base, const char *rel)
{
        size_t head = strcspn(rel, "/"), n = strlen(base);
        if (!dn || !dn->complete || head == 0 || streq(rel, ".") || startswith(rel, "./"))
                return false;
        /* A planned entry counts as there (cordon_lower_lstat()): one under the same first
         * component, in any letter case, sends the lookup to the lstat(). */
        for (size_t i = 0; i < l->p->n_actions; i++) {
                const char *a = l->p->actions[i].path;
                if (!path_is_below(a, base) || streq(a, base))
                        continue;
                a += n + (n > 1);
                if (strcspn(a, "/") == head && strncasecmp(a, rel, head) == 0)
                        return false;
        }
        return !dir_names_has(dn, name_hash(rel, head));
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
        int have;
        if (cordon_lower_dir_names_absent(l, &l->home_names, l->home_real, it->value)) {
                have = -1;
                errno = ENOENT;
        } else
                have = cordon_lower_lstat(l, host, &st);
        /* A missing writable entry is made (mkdir -p) by the launch; planned here, it counts as
         * there for every check below. */
        if (access == CORDON_ACCESS_RW && have < 0 && errno == ENOENT) {
                _cleanup_free_ char *reason = NULL, *above = strdup(host), *above_real = NULL;
                if (!above || asprintf(&reason, "%s entry (from %s)", variable, it->origin) < 0)
                        return -ENOMEM;
                /* Never made through a link out of where a writable entry may be (an agent's
                 * state below a ~/.claude that leads to /). */
                while (!(above_real = cordon_lower_realpath(l, above)) && errno == ENOENT &&
                       strrchr(above, '/') != above)
                        *strrchr(above, '/') = 0;
                if (!above_real || !writable_target_allowed(l, above_real))
                        return cordon_lower_warn(l,
                                                 "%s entry '%s' (from %s) lies beyond '%s'; "
                                                 "not created",
                                                 variable, it->value, it->origin,
                                                 above_real ?: above);
                r = cordon_lower_plan_mkdir_p(l, host, reason);
                if (r < 0)
                        return cordon_diag_set(l->diag, r, "cannot create %s entry '%s': %s",
                                               variable, host, strerror(-r));
                have = cordon_lower_lstat(l, host, &st);
        }
        if (have < 0)
                return 0; /* missing entries are skipped */
        if (access == CORDON_ACCESS_COPY && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
                return 0;
        /* A name right below the home (a realpath) that is no symlink is its own realpath. */
        bool direct = !strchr(it->value, '/') && !streq(it->value, ".") && !S_ISLNK(st.st_mode);
        _cleanup_free_ char *real = direct ? strdup(host) : cordon_lower_realpath(l, host);
        if (direct && !real)
                return -ENOMEM;
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
        /* Read once: the home entries and the credential stores are looked up in it. */
        if ((r = dir_names_read(&l->home_names, l->home_real)) < 0)
                return r;
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
                break;
        case CORDON_HOME_READ:
                r = cordon_lower_put(l, l->home_guest, l->home_real, CORDON_ACCESS_RO, 0,
                                     s->home_access_origin);
                break;
        case CORDON_HOME_WRITE:
                /* The shell's and tools' configuration runs on the host later: HOME_READONLY
                 * holds here too, and a missing entry is kept from being created by
                 * cordon_lower_keep_absent(). */
                r = cordon_lower_put(l, l->home_guest, l->home_real, CORDON_ACCESS_RW, 0,
                                     s->home_access_origin);
                break;
        default:
                r = -EINVAL;
        }
        if (r < 0)
                return r;
        /* Read mode binds the whole home read-only already. */
        if (s->home_access != CORDON_HOME_READ)
                CORDON_LIST_FOREACH (it, &s->home_readonly) {
                        if (cordon_list_find(&s->home_seeded, it->value))
                                continue; /* a seeded copy wins over the read-only bind */
                        if ((r = home_entry(l, it, CORDON_ACCESS_RO, "HOME_READONLY")) < 0)
                                return r;
                }
        CORDON_LIST_FOREACH (it, &s->home_writable)
                if (!cordon_lower_agent_item_absent(l, it) &&
                    (r = home_entry(l, it, CORDON_ACCESS_RW, "HOME_WRITABLE")) < 0)
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
static bool has_link_below(const struct lower *l, const char *base, const char *rel)
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
                if (cordon_lower_host_lstat(l, path, &st) < 0)
                        return false;
                if (S_ISLNK(st.st_mode))
                        return true;
                if (!saved)
                        return false;
                *c = saved;
        }
}

/* One credential store @it below home @base (a realpath): hidden wherever it is visible, and
 * over @guest_home (the tmpfs home, or NULL) as well. Where the sandbox could create a missing
 * credential directory on the host, an empty one is made first so that it can be covered. */
static int block_in_home(struct lower *l, const char *base, const char *guest_home,
                         const struct cordon_item *it, const struct lower_dir_names *dn)
{
        _cleanup_free_ char *host = path_join(base, it->value);
        _cleanup_free_ char *guest = guest_home ? path_join(guest_home, it->value) : NULL;
        if (!host || (guest_home && !guest))
                return -ENOMEM;
        struct stat st;
        int r;
        bool exists;
        if (cordon_lower_dir_names_absent(l, dn, base, it->value)) {
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
        bool link =
            strchr(it->value, '/') ? has_link_below(l, base, it->value) : S_ISLNK(st.st_mode);
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
 * $HOME need not point to), and never created by the sandbox where it could write their
 * directory (cordon_lower_keep_absent()). A capability policy may hand over the
 * package-manager ones. */
int cordon_lower_home_blocked(struct lower *l)
{
        const struct cordon_list *stores = &l->s->home_always_blocked;
        CORDON_LIST_FOREACH (it, stores) {
                int r = check_home_relative(l, it, "blocked home entry");
                if (r < 0)
                        return r;
        }
        /* The listing of $HOME made by cordon_lower_home(), and one of the account's home:
         * an lstat() only for a store that is there. */
        _cleanup_(cordon_lower_dir_names_clear) struct lower_dir_names account = {0};
        int r;
        if (l->account_home_real && (r = dir_names_read(&account, l->account_home_real)) < 0)
                return r;
        if ((r = cordon_lower_keep_absent(l, &account)) < 0)
                return r;
        CORDON_LIST_FOREACH (it, stores) {
                if (l->home_real && !cordon_lower_cap_hands_over(l, it->value) &&
                    (r = block_in_home(l, l->home_real, l->home_guest, it, &l->home_names)) < 0)
                        return r;
                if (l->account_home_real &&
                    (r = block_in_home(l, l->account_home_real, NULL, it, &account)) < 0)
                        return r;
        }
        return 0;
}
