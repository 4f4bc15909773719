/* Lowering of DEVICES: each glob matched against the host's /dev, every match (and everything
 * below a matched directory) checked against DEVICES_BLACKLIST, raw block devices never
 * exposed; BIND_DEV_PTS's shim adds /dev/pts under the same veto. */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

static bool blacklisted(const struct cordon_settings *s, const char *path)
{
        CORDON_LIST_FOREACH (b, &s->devices_blacklist)
                if (fnmatch(b->value, path, 0) == 0 || path_is_below(path, b->value))
                        return true;
        return false;
}

/* nftw() takes no context: the settings of the walk are per thread, so resolves running at once
 * in several threads each check against their own blacklist. */
static _Thread_local const struct cordon_settings *walk_settings;
/* Stops the walk (1) at a refused node, and at anything it cannot inspect: an unreadable
 * directory (FTW_DNR) or an entry it cannot stat (FTW_NS) might hide one. */
static int walk_cb(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
        if (type == FTW_DNR || type == FTW_NS)
                return 1;
        return blacklisted(walk_settings, fpath) || S_ISBLK(sb->st_mode);
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

/* One DEVICES entry @value (a glob) from @origin. */
static int lower_device(struct lower *l, const struct cordon_item *it)
{
        _cleanup_strv_free_ char **matches = NULL;
        int k = match_devices(it->value, &matches);
        if (k < 0)
                return k;
        if (!matches) {
                if (!cordon_lower_is_builtin(it->origin) &&
                    cordon_lower_warn(l, "device '%s' (from %s) matches nothing", it->value,
                                      it->origin) < 0)
                        return -ENOMEM;
                return 0;
        }
        STRV_FOREACH (mp, matches) {
                const char *m = *mp;
                _cleanup_free_ char *real = cordon_lower_host_realpath(l, m);
                struct stat st;
                bool refuse = !real || !path_is_below(real, "/dev") || streq(real, "/dev") ||
                              blacklisted(l->s, m) || blacklisted(l->s, real) ||
                              stat(real, &st) < 0;
                if (!refuse && S_ISDIR(st.st_mode)) {
                        /* 1: something refused or uninspectable was found; -1: the
                         * walk failed. Either way the directory is not exposed. */
                        walk_settings = l->s;
                        refuse = nftw(real, walk_cb, 16, FTW_PHYS) != 0;
                } else if (!refuse && !S_ISCHR(st.st_mode))
                        refuse = true; /* raw block devices bypass every file permission */
                if (refuse) {
                        if (cordon_lower_warn(
                                l,
                                "device '%s' (from %s) is blacklisted or not a device "
                                "under /dev; not exposed",
                                m, it->origin) < 0)
                                return -ENOMEM;
                        continue;
                }
                k = cordon_lower_put(l, real, real, CORDON_ACCESS_DEVICE, 0, it->origin);
                if (k < 0)
                        return k;
        }
        return 0;
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
