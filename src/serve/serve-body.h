/* cordon-serve's own small request shapes (issue 26), beside wire.h's: the bodies of a
 * process's stdin, signal and resize routes, the output stream's after_seq, the empty body of
 * the routes that take none, and the percent-decoding of a path segment. Pure functions;
 * refusals are invalid_request naming the key, as wire.h's. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/wire.h"

/* @len bytes of @s with each %XX decoded (malloc'd, NUL-terminated): 0, -EINVAL (a '%' not
 * followed by two hex digits, or a decoded NUL), -ENOMEM. */
int serve_percent_decode(const char *s, size_t len, char **ret);

/* after_seq: decimal digits only, at most 2^63 - 1. 0 or -EINVAL with @err. */
int serve_after_seq_parse(const char *text, uint64_t *ret, struct serve_error *err);

/* The body of a route that takes none (suspend, resume, snapshot, ...): empty, or a JSON
 * object without members. 0 or -EINVAL with @err. */
int serve_empty_body_check(const char *body, size_t len, struct serve_error *err);

/* POST .../stdin: {"data": BASE64, "eof": bool}, both optional (data "" and eof false), data
 * standard base64 with padding. The holder's arguments {"data", "eof"} in *@ret. */
int serve_stdin_parse(const char *body, size_t len, json_t **ret, struct serve_error *err);

/* POST .../signal: {"signal": N} with N 1..64, or a name: "TERM", "SIGTERM" (the common
 * ones: HUP INT QUIT KILL USR1 USR2 TERM CONT STOP TSTP WINCH ALRM PIPE). */
int serve_signal_parse(const char *body, size_t len, int *ret, struct serve_error *err);

/* POST .../resize: {"rows": R, "cols": C}, each 1..65535. */
int serve_resize_parse(const char *body, size_t len, unsigned *ret_rows, unsigned *ret_cols,
                       struct serve_error *err);
