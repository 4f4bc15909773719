/* Pure path string helpers. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/macro.h"
#include "shared/path-util.h"

bool path_is_absolute(const char *p)
{
        return p && p[0] == '/';
}

bool path_is_below(const char *path, const char *parent)
{
        if (parent[0] == '/' && parent[1] == 0)
                return path[0] == '/';
        /* One pass that stops at the first difference: resolve and the landlock plan ask this
         * of every rule against every other, and most pairs differ within a few bytes, where
         * strlen() and strncmp() would read the whole parent first. */
        size_t i = 0;
        for (; parent[i]; i++)
                if (path[i] != parent[i])
                        return false;
        return path[i] == 0 || path[i] == '/';
}

bool path_is_below_n(const char *path, size_t n, const char *parent)
{
        if (n == 0 || parent[0] == 0)
                return path_is_below(path, parent); /* nothing to index */
        if (parent[0] == '/' && parent[1] == 0)
                return path[0] == '/';
        if (path[1] != parent[1])
                return false; /* /usr, /dev, /proc against a path in the home */
        size_t m = strlen(parent);
        /* The byte at the parent's end next: it tells most unrelated paths apart. */
        return m <= n && (path[m] == '/' || path[m] == 0) && memcmp(path, parent, m) == 0;
}

int path_normalize(const char *p, char **ret)
{
        if (!path_is_absolute(p))
                return -EINVAL;
        _cleanup_free_ char *out = malloc(strlen(p) + 2);
        if (!out)
                return -ENOMEM;
        size_t n = 0;
        const char *s = p;
        while (*s) {
                while (*s == '/')
                        s++;
                if (!*s)
                        break;
                const char *e = strchrnul(s, '/');
                size_t len = (size_t)(e - s);
                if (len == 1 && s[0] == '.') {
                        s = e;
                        continue;
                }
                if (len == 2 && s[0] == '.' && s[1] == '.')
                        return -EINVAL;
                out[n++] = '/';
                memcpy(out + n, s, len);
                n += len;
                s = e;
        }
        if (n == 0)
                out[n++] = '/';
        out[n] = 0;
        *ret = TAKE_PTR(out);
        return 0;
}

char *path_join(const char *a, const char *b)
{
        size_t la = strlen(a);
        while (*b == '/')
                b++;
        if (la > 0 && a[la - 1] == '/')
                la--;
        /* By hand: asprintf() went through all of vfprintf(), hundreds of times a start. */
        size_t lb = strlen(b);
        char *r = malloc(la + lb + 2);
        if (!r)
                return NULL;
        memcpy(r, a, la);
        r[la] = '/';
        memcpy(r + la + 1, b, lb + 1);
        return r;
}

unsigned path_depth(const char *p)
{
        unsigned d = 0;
        for (const char *s = p; *s; s++)
                if (*s == '/' && s[1] && s[1] != '/')
                        d++;
        return d;
}

bool path_is_normal(const char *path)
{
        if (path[0] != '/')
                return false;
        if (path[1] == 0)
                return true;
        for (const char *c = path; *c; c++) {
                if (*c != '/')
                        continue;
                const char *n = c + 1;
                if (*n == 0 || *n == '/' || (n[0] == '.' && (n[1] == 0 || n[1] == '/')) ||
                    (n[0] == '.' && n[1] == '.' && (n[2] == 0 || n[2] == '/')))
                        return false;
        }
        return true;
}

int self_exe_dir(char *buf, size_t size)
{
        if (size < 2)
                return -EINVAL;
        ssize_t n = readlink("/proc/self/exe", buf, size - 1);
        if (n <= 0)
                return n < 0 ? -errno : -ENOENT;
        if ((size_t)n >= size - 1)
                return -ENAMETOOLONG;
        buf[n] = 0;
        char *slash = strrchr(buf, '/');
        if (!slash)
                return -EINVAL;
        *(slash == buf ? slash + 1 : slash) = 0;
        return 0;
}

int find_sibling_program(const char *name, const char *build_dir, const char *build_sibling,
                         char *buf, size_t size)
{
        char self[PATH_MAX];
        int r = self_exe_dir(self, sizeof(self));
        if (r < 0)
                return r;
        int k = snprintf(buf, size, "%s/%s", self, name);
        if (k > 0 && (size_t)k < size && access(buf, X_OK) == 0)
                return 0;
        size_t len = strlen(self), dl = strlen(build_dir);
        if (len >= dl + 5 && strncmp(self + len - dl - 5, "/src/", 5) == 0 &&
            streq(self + len - dl, build_dir)) {
                k = snprintf(buf, size, "%.*s/%s/%s", (int)(len - dl - 1), self, build_sibling,
                             name);
                if (k > 0 && (size_t)k < size && access(buf, X_OK) == 0)
                        return 0;
        }
        return -ENOENT;
}
