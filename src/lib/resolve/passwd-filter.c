/* Filtered passwd and group databases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/resolve/passwd-filter.h"
#include "shared/macro.h"

#define OVERFLOW_ID 65534UL

/* Reads field @idx (0-based, ':'-separated) of @line as an unsigned id. */
static int line_id(const char *line, size_t len, unsigned idx, unsigned long *ret)
{
        const char *p = line, *end = line + len;
        for (unsigned i = 0; i < idx; i++) {
                p = memchr(p, ':', (size_t)(end - p));
                if (!p)
                        return -EINVAL;
                p++;
        }
        if (p >= end || *p < '0' || *p > '9')
                return -EINVAL;
        unsigned long v = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
                v = v * 10 + (unsigned long)(*p - '0');
                if (v > 0xffffffffUL)
                        return -EINVAL;
        }
        if (p < end && *p != ':')
                return -EINVAL;
        *ret = v;
        return 0;
}

static int filter(const char *text, unsigned long self, const char *self_line, char **ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        for (const char *p = text; *p;) {
                const char *nl = strchrnul(p, '\n');
                size_t len = (size_t)(nl - p);
                unsigned long id;
                /* The caller's own line is kept, unless @self_line replaces it. */
                if (line_id(p, len, 2, &id) >= 0 &&
                    (id == self ? !self_line : id < 1000 || id == OVERFLOW_ID))
                        fprintf(f, "%.*s\n", (int)len, p);
                p = *nl ? nl + 1 : nl;
        }
        if (self_line)
                fprintf(f, "%s\n", self_line);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

bool cordon_passwd_db_has_id(const char *text, unsigned long id)
{
        for (const char *p = text; *p;) {
                const char *nl = strchrnul(p, '\n');
                unsigned long v;
                if (line_id(p, (size_t)(nl - p), 2, &v) >= 0 && v == id)
                        return true;
                p = *nl ? nl + 1 : nl;
        }
        return false;
}

int cordon_passwd_db_home(const char *text, unsigned long uid, char **ret)
{
        for (const char *p = text; *p;) {
                const char *nl = strchrnul(p, '\n');
                size_t len = (size_t)(nl - p);
                unsigned long v;
                if (line_id(p, len, 2, &v) >= 0 && v == uid) {
                        /* name:password:uid:gid:gecos:home:shell */
                        const char *f = p, *end = nl;
                        for (unsigned i = 0; i < 5 && f; i++) {
                                f = memchr(f, ':', (size_t)(end - f));
                                f = f ? f + 1 : NULL;
                        }
                        if (!f)
                                return -EINVAL;
                        const char *e = memchr(f, ':', (size_t)(end - f));
                        if (!e)
                                return -EINVAL;
                        char *home = strndup(f, (size_t)(e - f));
                        if (!home)
                                return -ENOMEM;
                        *ret = home;
                        return 0;
                }
                p = *nl ? nl + 1 : nl;
        }
        return -ENOENT;
}

int cordon_passwd_filter(const char *text, uid_t uid, const char *self_line, char **ret)
{
        return filter(text, uid, self_line, ret);
}

int cordon_group_filter(const char *text, gid_t gid, const char *self_line, char **ret)
{
        return filter(text, gid, self_line, ret);
}

const char *cordon_nsswitch_files_only(void)
{
        return "passwd:         files\n"
               "group:          files\n"
               "shadow:         files\n"
               "gshadow:        files\n"
               "hosts:          files dns\n"
               "networks:       files\n"
               "protocols:      files\n"
               "services:       files\n"
               "ethers:         files\n"
               "rpc:            files\n"
               "netgroup:       files\n";
}
