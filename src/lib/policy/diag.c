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
                /* A fix belongs to the message it was set with. */
                d->fix_variable[0] = 0;
                d->fix_value[0] = 0;
        }
        return r;
}
