/* Logging for programs (never for library code): one line on stderr, prefixed "cordon: ". */
#pragma once

#include <errno.h>

#include "shared/macro.h"

_printf_(1, 2) void log_error(const char *fmt, ...);
_printf_(1, 2) void log_warning(const char *fmt, ...);
_printf_(1, 2) void log_info(const char *fmt, ...);

/* Logs with errno set to -@r (so %m works) and returns @r, so callers can "return log_...". */
#define log_error_errno(r, ...)                                                                    \
        ({                                                                                         \
                int _e_ = (r);                                                                     \
                errno = _e_ < 0 ? -_e_ : _e_;                                                      \
                log_error(__VA_ARGS__);                                                            \
                _e_ < 0 ? _e_ : -_e_;                                                              \
        })
