/* The /proc/net/unix parser: bound socket paths out of the kernel's table (see unix_seq_show()
 * in net/unix/af_unix.c for the format). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/resolve/proc-net-unix.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* "Num RefCount Protocol Flags Type St Inode Path": seven fields before the path. */
#define FIELDS_BEFORE_PATH 7

static bool is_space(char c)
{
        return c == ' ' || c == '\t';
}

/* The path of one table line, or NULL: after the seven fields and the one space the kernel puts
 * before it (spaces in the name itself are kept). */
static const char *line_path(const char *line, size_t len, size_t *ret_len)
{
        const char *p = line, *end = line + len;
        for (int f = 0; f < FIELDS_BEFORE_PATH; f++) {
                while (p < end && is_space(*p))
                        p++;
                if (p == end)
                        return NULL;
                while (p < end && !is_space(*p))
                        p++;
        }
        if (p == end || *p != ' ')
                return NULL;
        p++;
        /* Unnamed sockets have "Inode" padded by spaces and nothing after them. */
        while (p < end && *p == ' ')
                p++;
        if (p == end)
                return NULL;
        *ret_len = (size_t)(end - p);
        return p;
}

int cordon_proc_net_unix_parse(const char *text, size_t len, char ***ret)
{
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        const char *p = text, *end = text + len;
        bool header = true;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *eol = nl ?: end;
                size_t l = (size_t)(eol - p);
                const char *line = p;
                p = nl ? nl + 1 : end;
                if (header) {
                        static const char want[] = "Num ";
                        if (l < sizeof(want) - 1 || memcmp(line, want, sizeof(want) - 1) != 0)
                                return -EBADMSG;
                        header = false;
                        continue;
                }
                size_t plen = 0;
                const char *path = line_path(line, l, &plen);
                /* Abstract names start with '@' (Landlock's scope covers them); a NUL cannot
                 * be in a path, so a line holding one is not the kernel's. */
                if (!path || *path != '/' || memchr(path, 0, plen))
                        continue;
                _cleanup_free_ char *s = strndup(path, plen);
                if (!s)
                        return -ENOMEM;
                if (strv_contains(out, s))
                        continue;
                if (n >= CORDON_UNIX_SOCKETS_MAX)
                        return -E2BIG;
                int r = strv_consume(&out, TAKE_PTR(s));
                if (r < 0)
                        return r;
                n++;
        }
        if (header)
                return -EBADMSG;
        *ret = TAKE_PTR(out);
        return 0;
}
