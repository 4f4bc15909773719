/* cordon-session's side of cordon-serve's wire: what the client makes of the daemon's answers
 * (error objects, NDJSON records of a process's output, session lists), the escaping of an id
 * into a URL path, and text made safe for a terminal. Pure functions: no I/O but the FILE
 * a table is written to. The daemon is trusted no more than its sizes allow: every length here
 * has a limit, and text it sends is never written to a terminal unfiltered where a human reads
 * it (errors, tables). Base64 is holder-proto.h's. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes of one JSON answer (an ExecResult of two capped streams, escaped, fits many times). */
#define CLIENT_ANSWER_MAX (64u << 20)
/* Bytes of one NDJSON line of an output stream (a record's data is at most 256 KiB before
 * base64 in the daemon's replies; a line four times that is refused). */
#define CLIENT_LINE_MAX (1u << 20)
/* Bytes of a message from the daemon shown on stderr, and of a cell of `ls`'s table. */
#define CLIENT_TEXT_MAX 1024
#define CLIENT_CELL_MAX 64

/* The exit status of a finished command as timeout(1) and the shell give it: 124 when it timed
 * out, its code when that is 0..255, else 255. */
int client_exit_status(int64_t exit_code, bool timed_out);

/* @len bytes of @in as one line a terminal shows as text: control characters (C0, DEL, C1) and
 * bytes that are not UTF-8 become '?', a newline included; at most @max bytes of input are taken,
 * then "..." is appended. Always NUL-terminated; @out must hold 4 * @max + 4 bytes. */
void client_text_safe(const char *in, size_t len, size_t max, char *out);
/* Whether @len bytes of @s are well-formed UTF-8 (no overlong form, surrogate or code point
 * above U+10FFFF), as a JSON string must be. */
bool client_utf8_valid(const char *s, size_t len);

/* The one line for an answer that is not a success: "KIND: MESSAGE" from the contract's
 * {"error":{"kind","message"}} (plus " (backend B, operation O)" for unsupported), else
 * "HTTP STATUS: BODY" with the body's start; both made safe (client_text_safe()). Always
 * terminated in @buf. */
void client_error_line(unsigned status, const char *body, size_t len, char *buf, size_t size);

/* @s percent-encoded for one segment of a URL path: every byte but A-Z a-z 0-9 - . _ ~
 * becomes %XX, so no id can add a segment, a query or a fragment. NULL on ENOMEM. */
char *client_path_escape(const char *s);

/* NDJSON: bytes in, whole lines out, each at most CLIENT_LINE_MAX bytes. */
struct client_lines {
        char *buf;
        size_t len, cap;
};
/* Appends @n bytes and calls @line (without its '\n', NUL-terminated, a trailing '\r' dropped)
 * for every line they complete; an empty line is skipped. Stops at the first callback that
 * returns < 0 and returns that. -EMSGSIZE when a line grows past CLIENT_LINE_MAX, -ENOMEM. */
int client_lines_feed(struct client_lines *l, const char *data, size_t n,
                      int (*line)(const char *s, size_t len, void *userdata), void *userdata);
/* Bytes held of an unfinished line. */
static inline size_t client_lines_pending(const struct client_lines *l)
{
        return l->len;
}
void client_lines_clear(struct client_lines *l);

/* One record of a process's output stream. */
enum client_record_kind {
        CLIENT_RECORD_OUTPUT, /* {"seq","stream","data"} */
        CLIENT_RECORD_EXIT,   /* {"seq","exit_code","timed_out"} */
        CLIENT_RECORD_ERROR,  /* {"error":{...}}: the daemon's error after the stream began */
};
struct client_record {
        enum client_record_kind kind;
        uint64_t seq;
        bool to_stderr;
        char *data; /* OUTPUT: the decoded bytes (malloc'd) */
        size_t len;
        int64_t exit_code;
        bool timed_out;
        char error[CLIENT_TEXT_MAX + 64]; /* ERROR: its line (client_error_line()) */
};
/* Parses one NDJSON line: 0, or -EBADMSG for anything else (not an object, a seq that is not a
 * positive integer, a stream that is not stdout or stderr, data that is not base64, an exit
 * code that is not an integer). Unknown fields are ignored (the daemon may add some). */
int client_record_parse(const char *line, size_t len, struct client_record *ret);
void client_record_clear(struct client_record *r);

/* `cordon session ls`: the table of a [SandboxSession] answer, one line per session: ID, STATE,
 * BACKEND (metadata "backend", the backend cordon runs it with, else the session's "backend"),
 * CREATED (metadata "created", else "-") and LABELS (metadata "label.K" as K=V, comma-separated,
 * else "-"), cells made safe and cut at CLIENT_CELL_MAX. -EBADMSG (nothing printed) when @list is
 * not an array of objects with string id, state and backend. */
int client_sessions_table(json_t *list, FILE *f);
