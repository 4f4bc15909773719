/* Diagnostics out-parameter: library code never prints, it describes the problem here. */
#pragma once

#include "cordon/cordon.h"
#include "shared/macro.h"

/* Formats into @d (when not NULL) and returns @r unchanged, so callers can
 * "return cordon_diag_set(d, -EINVAL, ...)". */
_printf_(3, 4) int cordon_diag_set(struct cordon_diag *d, int r, const char *fmt, ...);
