/* One JSON line per egress-proxy decision, built with jansson. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/proxy/proxy-log.h"
#include "shared/macro.h"

static json_t *str_or_null(const char *s)
{
        return s ? json_string(s) : json_null();
}

int cordon_proxy_log_format(const struct cordon_proxy_log_entry *e, char **ret)
{
        char when[40];
        struct tm tm;
        time_t secs = (time_t)(e->realtime_usec / 1000000u);
        unsigned ms = (unsigned)(e->realtime_usec / 1000u % 1000u);

        if (!gmtime_r(&secs, &tm))
                return -EINVAL;
        size_t k = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(when + k, sizeof(when) - k, ".%03uZ", ms);

        /* json_pack's "s?" writes null for a NULL string; "o" steals the reference. The
         * strings come from peers (host names were validated, reasons are ours), and jansson
         * escapes whatever they hold. */
        json_t *o =
            json_pack("{s:s, s:s?, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:I, s:I}", "time", when,
                      "client", e->client, "protocol", e->protocol, "host", str_or_null(e->host),
                      "port", e->port ? json_integer(e->port) : json_null(), "address",
                      str_or_null(e->address), "rule", str_or_null(e->rule), "origin",
                      str_or_null(e->origin), "verdict", e->verdict, "reason", strempty(e->reason),
                      "bytes_up", (json_int_t)e->bytes_up, "bytes_down", (json_int_t)e->bytes_down);
        if (o && e->message && json_object_set_new(o, "message", json_string(e->message)) < 0) {
                json_decref(o);
                return -ENOMEM;
        }
        if (!o)
                return -ENOMEM;
        char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(o);
        if (!s)
                return -ENOMEM;
        size_t n = strlen(s);
        char *line = realloc(s, n + 2);
        if (!line) {
                free(s);
                return -ENOMEM;
        }
        line[n] = '\n';
        line[n + 1] = 0;
        *ret = line;
        return 0;
}

int cordon_proxy_log_write(int fd, const struct cordon_proxy_log_entry *e)
{
        _cleanup_free_ char *line = NULL;
        int r = cordon_proxy_log_format(e, &line);
        if (r < 0)
                return r;
        size_t n = strlen(line);
        /* One write() so that lines from one proxy never interleave in an O_APPEND file. */
        ssize_t w = write(fd, line, n);
        if (w < 0)
                return negative_errno();
        return (size_t)w == n ? 0 : -EIO;
}
