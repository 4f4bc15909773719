/* Small macros shared by every part of cordon: cleanup attributes, ownership transfer, helpers.
 * Modelled on systemd's conventions: _cleanup_*_ frees on scope exit, TAKE_PTR/TAKE_FD hand
 * ownership on and leave the variable in its "empty" state. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _public_       __attribute__((visibility("default")))
#define _unused_       __attribute__((unused))
#define _noreturn_     __attribute__((noreturn))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _cleanup_(f)   __attribute__((cleanup(f)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#define TAKE_PTR(p)                                                                                \
        ({                                                                                         \
                __typeof__(p) _ptr_ = (p);                                                         \
                (p) = NULL;                                                                        \
                _ptr_;                                                                             \
        })

#define TAKE_FD(fd)                                                                                \
        ({                                                                                         \
                int _fd_ = (fd);                                                                   \
                (fd) = -EBADF;                                                                     \
                _fd_;                                                                              \
        })

static inline void freep(void *p)
{
        free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd)
{
        if (fd >= 0) {
                int saved = errno;
                close(fd);
                errno = saved;
        }
        return -EBADF;
}

static inline void closep(int *fd)
{
        *fd = safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

static inline const char *startswith(const char *s, const char *prefix)
{
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

static inline const char *strempty(const char *s)
{
        return s ?: "";
}

/* The value of hexadecimal digit @c (either case), or -1. */
static inline int unhexchar(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* errno of the last failed libc call as a negative return value; never 0. */
static inline int negative_errno(void)
{
        return errno > 0 ? -errno : -EIO;
}

#define RET_NERRNO(expr)                                                                           \
        ({                                                                                         \
                long _r_ = (long)(expr);                                                           \
                _r_ < 0 ? negative_errno() : (int)_r_;                                             \
        })
