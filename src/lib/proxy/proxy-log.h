/* The egress proxy's decision log (--net-log): one JSON object per line, one write() per line,
 * for each connection when it ends or is refused. Thread-safe (no state). */
#pragma once

#include <stdint.h>

struct cordon_proxy_log_entry {
        uint64_t realtime_usec; /* CLOCK_REALTIME; written as RFC 3339 UTC with milliseconds */
        const char *client;     /* "addr:port" ("[v6]:port") */
        const char *protocol;   /* "connect", "http" or "socks5" */
        const char *host;       /* as normalised; NULL when the request never named one */
        uint16_t port;          /* 0: none */
        const char *address;    /* the address dialled, or NULL */
        const char *rule;       /* the pattern that decided, or NULL */
        const char *origin;     /* where that rule came from, or NULL */
        const char *verdict;    /* "allow", "deny" or "error" */
        const char *reason;     /* one line */
        /* a refusal by the rules: what was refused, by which rule from where, and the fix (the
         * text the HTTP client got); NULL otherwise */
        const char *message;
        uint64_t bytes_up;   /* client to origin */
        uint64_t bytes_down; /* origin to client */
};

/* Formats @e into @ret (malloc'ed, ending in a newline). Returns 0 or -ENOMEM. */
int cordon_proxy_log_format(const struct cordon_proxy_log_entry *e, char **ret);
/* Writes @e as one line to @fd with a single write(). Returns 0 or -errno. */
int cordon_proxy_log_write(int fd, const struct cordon_proxy_log_entry *e);
