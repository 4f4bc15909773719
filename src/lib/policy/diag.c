/* Diagnostics formatting. */
#include <stdarg.h>
#include <stdio.h>

#include "lib/policy/diag.h"

int cordon_diag_set(struct cordon_diag *d, int r, const char *fmt, ...)
{
        if (d) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(d->message, sizeof(d->message), fmt, ap);
                va_end(ap);
        }
        return r;
}
