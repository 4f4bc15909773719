/* TEMPORARY STUB of src/serve/wire.c (branch serve-wire): only the few functions the daemon
 * skeleton calls, so that it builds and is tested before the real wire layer lands. The lead
 * replaces this file with wire.c at the merge; nothing else may grow here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "serve/wire.h"

static const struct {
        const char *name;
        unsigned status;
} kinds[] = {
    [SERVE_ERR_SESSION_NOT_FOUND] = {"session_not_found", 404},
    [SERVE_ERR_UNSUPPORTED] = {"unsupported", 501},
    [SERVE_ERR_INVALID_REQUEST] = {"invalid_request", 400},
    [SERVE_ERR_LIFECYCLE] = {"lifecycle", 409},
    [SERVE_ERR_EXEC] = {"exec", 500},
    [SERVE_ERR_NETWORK_POLICY] = {"network_policy", 422},
    [SERVE_ERR_IO] = {"io", 500},
};

const char *serve_error_kind_name(enum serve_error_kind kind)
{
        return (unsigned)kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[kind].name : "io";
}

unsigned serve_error_http_status(enum serve_error_kind kind)
{
        return (unsigned)kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[kind].status : 500;
}

int serve_error_set(struct serve_error *err, enum serve_error_kind kind, const char *fmt, ...)
{
        va_list ap;
        *err = (struct serve_error){.kind = kind};
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        return -22; /* -EINVAL */
}

json_t *serve_error_to_json(const struct serve_error *err)
{
        json_t *e = json_pack("{s:s, s:s}", "kind", serve_error_kind_name(err->kind), "message",
                              err->message);
        if (e && err->kind == SERVE_ERR_UNSUPPORTED) {
                json_object_set_new(e, "backend", json_string(err->backend ? err->backend : ""));
                json_object_set_new(e, "operation",
                                    json_string(err->operation ? err->operation : ""));
        }
        return e ? json_pack("{s:o}", "error", e) : NULL;
}

json_t *serve_capabilities_to_json(const struct serve_capabilities *c)
{
        return json_pack("{s:b, s:b, s:b, s:b, s:b}", "local_process_sandbox",
                         c->local_process_sandbox, "network_policy", c->network_policy, "snapshot",
                         c->snapshot, "resume", c->resume, "suspend_on_idle", c->suspend_on_idle);
}

char *serve_json_dump(json_t *j)
{
        char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(j);
        return s;
}
