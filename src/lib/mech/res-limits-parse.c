/* The side-effect-free part of the resource limits: size strings, mechanism names, and the
 * parsers of /proc/self/cgroup and /proc/self/mountinfo text. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/mech/cgroup.h"
#include "lib/mech/res-limits.h"
#include "shared/macro.h"

_public_ const char *cordon_limit_mechanism_to_string(enum cordon_limit_mechanism m)
{
        static const char *const names[] = {
            [CORDON_LIMIT_NONE] = "none",         [CORDON_LIMIT_CGROUP2] = "cgroup2",
            [CORDON_LIMIT_CGROUP1] = "cgroup1",   [CORDON_LIMIT_RLIMIT] = "rlimit",
            [CORDON_LIMIT_AFFINITY] = "affinity", [CORDON_LIMIT_PID_MAX] = "pid_max",
        };
        return (unsigned)m < ELEMENTSOF(names) ? names[m] : NULL;
}

_public_ const char *cordon_limit_kind_to_string(enum cordon_limit_kind k)
{
        static const char *const names[] = {
            [CORDON_LIMIT_MEMORY] = "memory",
            [CORDON_LIMIT_PIDS] = "pids",
            [CORDON_LIMIT_CPUS] = "cpus",
        };
        _Static_assert(ELEMENTSOF(names) == _CORDON_LIMIT_KIND_MAX, "a name per limit kind");
        return (unsigned)k < ELEMENTSOF(names) ? names[k] : NULL;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static char ascii_lower(char c)
{
        return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int cordon_parse_size(const char *s, uint64_t *ret)
{
        static const char suffixes[] = "kmgtpe"; /* 2^10 ... 2^60 */
        uint64_t whole = 0, frac = 0, pow10 = 1;
        bool overflow = false;
        unsigned shift = 0;

        if (!s || !is_digit(*s))
                return -EINVAL; /* also refuses "", "-1", "+1", " 1", ".5G" */
        const char *p = s;
        for (; is_digit(*p); p++) {
                unsigned d = (unsigned)(*p - '0');
                if (whole > (UINT64_MAX - d) / 10)
                        overflow = true;
                else
                        whole = whole * 10 + d;
        }
        if (*p == '.') {
                p++;
                if (!is_digit(*p))
                        return -EINVAL;
                /* 18 digits keep frac and 10^digits below 2^63, and the products below in 128
                 * bits; more precision than that means nothing for a byte count. */
                for (unsigned n = 0; is_digit(*p); p++, n++) {
                        if (n == 18)
                                return -EINVAL;
                        frac = frac * 10 + (unsigned)(*p - '0');
                        pow10 *= 10;
                }
        }
        const char *suffix = *p ? strchr(suffixes, ascii_lower(*p)) : NULL;
        if (suffix) {
                shift = 10 * (unsigned)(suffix - suffixes + 1);
                p++;
                if (ascii_lower(*p) == 'i') {
                        p++;
                        if (ascii_lower(*p) != 'b')
                                return -EINVAL;
                }
        }
        if (ascii_lower(*p) == 'b')
                p++;
        if (*p)
                return -EINVAL;
        if (pow10 > 1 && shift == 0)
                return -EINVAL; /* "1.5" or "1.5B": a fraction of a byte */
        if (overflow)
                return -ERANGE;

        unsigned __int128 v =
            ((unsigned __int128)whole << shift) + ((unsigned __int128)frac << shift) / pow10;
        if (v > UINT64_MAX)
                return -ERANGE;
        if (v == 0)
                return -EINVAL; /* 0 means "no limit" in struct cordon_limits */
        *ret = (uint64_t)v;
        return 0;
}

bool cordon_cgroup_list_has(const char *list, const char *name)
{
        size_t l = strlen(name);
        if (!list || l == 0)
                return false;
        for (const char *p = list; *p;) {
                size_t k = strcspn(p, " ,\n\t");
                if (k == l && strncmp(p, name, l) == 0)
                        return true;
                p += k;
                p += strspn(p, " ,\n\t");
        }
        return false;
}

/* Copies [@s, @s + @len) into @ret as a C string. */
static int copy_span(const char *s, size_t len, char *ret, size_t n)
{
        if (len >= n)
                return -ENAMETOOLONG;
        memcpy(ret, s, len);
        ret[len] = 0;
        return 0;
}

int cordon_cgroup_parse_self(const char *text, const char *controller, char *ret, size_t n)
{
        for (const char *line = text; line && *line;) {
                const char *eol = strchrnul(line, '\n');
                const char *c1 = memchr(line, ':', (size_t)(eol - line));
                const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
                if (!c2)
                        return -EINVAL;
                bool match;
                if (!controller) {
                        match = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
                } else {
                        char list[256];
                        match = copy_span(c1 + 1, (size_t)(c2 - c1 - 1), list, sizeof(list)) == 0 &&
                                cordon_cgroup_list_has(list, controller);
                }
                if (match) {
                        if (c2[1] != '/')
                                return -EINVAL;
                        return copy_span(c2 + 1, (size_t)(eol - c2 - 1), ret, n);
                }
                line = *eol ? eol + 1 : eol;
        }
        return -ENOENT;
}

/* Copies one space-separated mountinfo field, decoding the kernel's \ooo escapes (space, tab,
 * newline, backslash). */
static int copy_field(const char *s, size_t len, char *ret, size_t n)
{
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (c == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' &&
                    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
                        c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
                        i += 3;
                }
                if (o + 1 >= n)
                        return -ENAMETOOLONG;
                ret[o++] = c;
        }
        ret[o] = 0;
        return 0;
}

int cordon_mountinfo_find_cgroup(const char *text, const char *controller, char *ret_mnt,
                                 size_t n_mnt, char *ret_root, size_t n_root)
{
        for (const char *line = text; line && *line;) {
                const char *eol = strchrnul(line, '\n');
                /* id parent major:minor root mount-point options [optional...] - type source
                 * super-options */
                const char *f[6] = {0};
                size_t fl[6] = {0};
                const char *p = line;
                for (int i = 0; i < 6 && p < eol; i++) {
                        size_t k = strcspn(p, " \n");
                        f[i] = p;
                        fl[i] = k;
                        p += k;
                        while (*p == ' ')
                                p++;
                }
                const char *sep = NULL;
                for (const char *q = p; q && q < eol; q = strchr(q, ' ')) {
                        while (*q == ' ')
                                q++;
                        if (q[0] == '-' && q[1] == ' ') {
                                sep = q + 2;
                                break;
                        }
                }
                if (f[5] && sep) {
                        size_t tl = strcspn(sep, " \n");
                        const char *src = sep + tl + (sep[tl] == ' ');
                        const char *opts = src + strcspn(src, " \n");
                        opts += *opts == ' ';
                        char o[512];
                        bool match;
                        if (!controller)
                                match = tl == 7 && strncmp(sep, "cgroup2", 7) == 0;
                        else
                                match = tl == 6 && strncmp(sep, "cgroup", 6) == 0 &&
                                        copy_span(opts, (size_t)(eol - opts), o, sizeof(o)) == 0 &&
                                        cordon_cgroup_list_has(o, controller);
                        if (match) {
                                int r = copy_field(f[4], fl[4], ret_mnt, n_mnt);
                                if (r < 0)
                                        return r;
                                return copy_field(f[3], fl[3], ret_root, n_root);
                        }
                }
                line = *eol ? eol + 1 : eol;
        }
        return -ENOENT;
}

int cordon_cgroup_dir_of(const char *mnt, const char *root, const char *path, char *ret, size_t n)
{
        const char *rest = path;
        if (!streq(root, "/")) {
                size_t l = strlen(root);
                if (strncmp(path, root, l) != 0 || (path[l] != 0 && path[l] != '/'))
                        return -ENOENT;
                rest = path + l;
        }
        if (streq(rest, "/"))
                rest = "";
        int k = snprintf(ret, n, "%s%s", streq(mnt, "/") ? "" : mnt, rest);
        if (k < 0 || (size_t)k >= n)
                return -ENAMETOOLONG;
        if (!*ret)
                return copy_span("/", 1, ret, n);
        return 0;
}
