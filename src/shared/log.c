/* Program-side logging to stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "shared/log.h"

_printf_(2, 0) static void log_v(const char *prefix, const char *fmt, va_list ap)
{
        int saved = errno;
        char buf[4096];
        errno = saved;
        vsnprintf(buf, sizeof(buf), fmt, ap);
        fprintf(stderr, "cordon: %s%s\n", prefix, buf);
        errno = saved;
}

void log_error(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        log_v("", fmt, ap);
        va_end(ap);
}

void log_warning(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        log_v("warning: ", fmt, ap);
        va_end(ap);
}

void log_info(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        log_v("", fmt, ap);
        va_end(ap);
}
