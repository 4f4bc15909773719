/* Lowering of DEVICES: each glob matched against the host's /dev (what matches nothing is
 * dropped silently), every match (and everything below a matched directory) checked against
 * DEVICES_BLACKLIST, raw block devices never exposed, each refusal one line saying why;
 * BIND_DEV_PTS's shim adds /dev/pts under the same veto. */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* The DEVICES_BLACKLIST entry that covers @path (a glob match, or @path lies below it), or
 * NULL. */
static const struct cordon_item *blacklist_entry(const struct cordon_settings *s, const char *path)
{
        CORDON_LIST_FOREACH (b, &s->devices_blacklist)
                if (fnmatch(b->value, path, 0) == 0 || path_is_below(path, b->value))
                        return b;
        return NULL;
}

/* Why nftw() stopped below a matched directory: the first node it refused. */
enum walk_stop {
        WALK_BLACKLISTED,
        WALK_BLOCK,
        WALK_UNINSPECTABLE,
};

/* nftw() takes no context: the walk's settings and findings are per thread, so resolves running
 * at once in several threads each check against their own blacklist. */
static _Thread_local struct {
        const struct cordon_settings *s;
        const struct cordon_item *entry;
        enum walk_stop stop;
        char path[PATH_MAX];
} walk;

/* Stops the walk (1) at a refused node, and at anything it cannot inspect: an unreadable
 * directory (FTW_DNR) or an entry it cannot stat (FTW_NS) might hide one. */
static int walk_cb(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
        (void)ftw;
        if (type == FTW_DNR || type == FTW_NS)
                walk.stop = WALK_UNINSPECTABLE;
        else if ((walk.entry = blacklist_entry(walk.s, fpath)))
                walk.stop = WALK_BLACKLISTED;
        else if (S_ISBLK(sb->st_mode))
                walk.stop = WALK_BLOCK;
        else
                return 0;
        snprintf(walk.path, sizeof(walk.path), "%s", fpath);
        return 1;
}

struct device_scan {
        const char *dir, *base;
        size_t literal;
        char ***out;
};

static int device_scan_entry(const char *name, void *userdata)
{
        struct device_scan *scan = userdata;
        if (strncmp(name, scan->base, scan->literal) != 0 ||
            fnmatch(scan->base, name, FNM_PERIOD) != 0)
                return 0;
        _cleanup_free_ char *path = path_join(scan->dir, name);
        return path && strv_extend(scan->out, path) >= 0 ? 0 : -ENOMEM;
}

/* The paths matching device pattern @pattern, as glob() finds them (no sorting, names starting
 * with '.' only for a pattern starting with '.'). Patterns whose wildcards are all in the last
 * component, as device patterns are, take one scan of the directory that compares the literal
 * start of the name before calling fnmatch(): glob() ran fnmatch() on every entry of /dev. */
static int match_devices(const char *pattern, char ***ret)
{
        _cleanup_strv_free_ char **out = NULL;
        const char *slash = strrchr(pattern, '/');
        const char *base = slash ? slash + 1 : pattern;
        size_t literal = strcspn(base, "*?[");
        if (!slash || strpbrk(pattern, "\\") ||
            strcspn(pattern, "*?[") < (size_t)(base - pattern)) {
                glob_t g = {0};
                int k = glob(pattern, GLOB_NOSORT, NULL, &g);
                for (size_t i = 0; k == 0 && i < g.gl_pathc; i++)
                        if (strv_extend(&out, g.gl_pathv[i]) < 0)
                                k = GLOB_NOSPACE;
                globfree(&g);
                if (k != 0 && k != GLOB_NOMATCH)
                        return -ENOMEM;
        } else if (!base[literal]) {
                struct stat st;
                if (lstat(pattern, &st) == 0 && strv_extend(&out, pattern) < 0)
                        return -ENOMEM;
        } else {
                _cleanup_free_ char *dir = strndup(pattern, (size_t)(slash - pattern));
                if (!dir)
                        return -ENOMEM;
                struct device_scan scan = {
                    .dir = *dir ? dir : "/", .base = base, .literal = literal, .out = &out};
                /* A directory that cannot be read has no matches (as with glob()). */
                int r = cordon_lower_read_dir(scan.dir, 0, device_scan_entry, &scan);
                if (r == -ENOMEM)
                        return r;
        }
        *ret = TAKE_PTR(out);
        return 0;
}

/* "DEVICES entry 'X' (from O)", or for a match of a pattern "device 'M' (matched by DEVICES
 * entry 'X' from O)": the subject of the lines below. */
static char *device_subject(const struct cordon_item *it, const char *m)
{
        char *s = NULL;
        int k = streq(m, it->value)
                    ? asprintf(&s, "DEVICES entry '%s' (from %s)", m, it->origin)
                    : asprintf(&s, "device '%s' (matched by DEVICES entry '%s' from %s)", m,
                               it->value, it->origin);
        return k < 0 ? NULL : s;
}

/* Whether match @m of @it may be bound; when not, one warning line saying why: the
 * DEVICES_BLACKLIST entry that shadows it (with both origins), or what keeps it out otherwise
 * (outside /dev, a block device, not a device node, a directory holding one of those). */
static int device_allowed(struct lower *l, const struct cordon_item *it, const char *m,
                          const char *real)
{
        int err = errno; /* of the realpath, when it failed */
        _cleanup_free_ char *subject = device_subject(it, m);
        if (!subject)
                return -ENOMEM;
        int r;
        struct stat st;
        const struct cordon_item *b = NULL;
        if (!real)
                r = cordon_lower_warn(l, "%s cannot be resolved (%s); not exposed", subject,
                                      strerror(err));
        else if (!path_is_below(real, "/dev") || streq(real, "/dev"))
                r = cordon_lower_warn(
                    l,
                    "%s leads to '%s', %s; not exposed (DEVICES exposes nodes "
                    "below /dev only)",
                    subject, real, streq(real, "/dev") ? "which is /dev itself" : "outside /dev");
        else if ((b = blacklist_entry(l->s, m)) || (b = blacklist_entry(l->s, real)))
                r = cordon_lower_warn(
                    l,
                    "%s is shadowed by DEVICES_BLACKLIST entry '%s' (from %s)%s%s%s; "
                    "not exposed",
                    subject, b->value, b->origin, streq(real, m) ? "" : " (it leads to '",
                    streq(real, m) ? "" : real, streq(real, m) ? "" : "')");
        else if (stat(real, &st) < 0)
                r = cordon_lower_warn(l, "%s cannot be inspected (%s); not exposed", subject,
                                      strerror(errno));
        else if (S_ISBLK(st.st_mode))
                r = cordon_lower_warn(l,
                                      "%s is a block device, which would bypass every file "
                                      "permission; not exposed",
                                      subject);
        else if (S_ISDIR(st.st_mode)) {
                walk.s = l->s;
                walk.entry = NULL;
                int w = nftw(real, walk_cb, 16, FTW_PHYS);
                if (w == 0)
                        return 1;
                if (w < 0)
                        r = cordon_lower_warn(l, "%s cannot be walked (%s); not exposed", subject,
                                              strerror(errno));
                else if (walk.stop == WALK_BLACKLISTED)
                        r = cordon_lower_warn(l,
                                              "%s is a directory holding '%s', which "
                                              "DEVICES_BLACKLIST entry '%s' (from %s) shadows; "
                                              "not exposed",
                                              subject, walk.path, walk.entry->value,
                                              walk.entry->origin);
                else
                        r = cordon_lower_warn(l, "%s is a directory holding '%s', %s; not exposed",
                                              subject, walk.path,
                                              walk.stop == WALK_BLOCK
                                                  ? "a block device"
                                                  : "which cannot be inspected");
        } else if (!S_ISCHR(st.st_mode))
                r = cordon_lower_warn(l, "%s is not a device node; not exposed", subject);
        else
                return 1;
        return r < 0 ? r : 0;
}

/* One DEVICES entry @it (a glob). What it does not match is dropped without a word: the
 * defaults name the NVIDIA nodes, which a machine without that hardware lacks, and a literal
 * path is the same case (/dev/nvidiactl). --dry-run lists them. */
static int lower_device(struct lower *l, const struct cordon_item *it)
{
        _cleanup_strv_free_ char **matches = NULL;
        int k = match_devices(it->value, &matches);
        if (k < 0)
                return k;
        size_t found = 0;
        STRV_FOREACH (mp, matches) {
                const char *m = *mp;
                _cleanup_free_ char *real = cordon_lower_host_realpath(l, m);
                if (!real && errno == ENOENT)
                        continue; /* a dangling link leads to nothing either */
                found++;
                k = device_allowed(l, it, m, real);
                if (k < 0)
                        return k;
                if (k == 0)
                        continue;
                k = cordon_lower_put(l, real, real, CORDON_ACCESS_DEVICE, 0, it->origin);
                if (k < 0)
                        return k;
        }
        if (found)
                return 0;
        char *line = NULL;
        if (asprintf(&line, "%s (from %s)", it->value, it->origin) < 0)
                return -ENOMEM;
        return strv_consume(&l->p->devices_unmatched, line);
}

int cordon_lower_devices(struct lower *l, bool bind_dev_pts)
{
        int r;
        CORDON_LIST_FOREACH (it, &l->s->devices)
                if ((r = lower_device(l, it)) < 0)
                        return r;
        /* BIND_DEV_PTS's shim, vetoed by DEVICES_BLACKLIST like any entry. */
        if (bind_dev_pts) {
                char value[] = "/dev/pts", origin[] = "BIND_DEV_PTS";
                struct cordon_item pts = {.value = value, .origin = origin};
                if ((r = lower_device(l, &pts)) < 0)
                        return r;
        }
        return 0;
}
