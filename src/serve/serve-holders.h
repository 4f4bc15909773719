/* cordon-serve's sessions (issue 26): one holder process (cordon-serve-session) per session,
 * spawned, watched and spoken to as holder-proto.h says, from the daemon's single-threaded
 * loop. The table maps a session id, matched exactly, to its holder; nothing here builds a path
 * from an id. A restarted daemon re-adopts the holders the store's records name. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/serve-loop.h"
#include "serve/serve-store.h"
#include "serve/wire.h"

struct serve_holders;
struct serve_session;
struct serve_call;

/* A holder's answer to a call, or the daemon's failure to get one. */
struct serve_reply {
        bool ok;
        json_t *result;  /* ok: the result (borrowed) */
        unsigned status; /* !ok: the HTTP status of the error */
        json_t *error;   /* !ok: {"error":{...}} for the client (borrowed) */
};
/* Called once per call, from the loop (never from within the call that started it). */
typedef void (*serve_reply_fn)(const struct serve_reply *reply, void *userdata);

struct serve_holders_options {
        const char *program; /* the holder's absolute path */
        size_t output_cap;   /* passed as --output-cap */
        unsigned max_sessions;
};

/* Seconds a holder has to report ready, and to end after a terminate or a SIGTERM. */
#define SERVE_HOLDER_START_SEC 120
#define SERVE_HOLDER_END_SEC   15

/* 0 or -errno. @store and @loop outlive the table. */
int serve_holders_new(struct serve_loop *loop, struct serve_store *store,
                      const struct serve_holders_options *o, struct serve_holders **ret);
/* Closes every connection and forgets every session; the holders live on, for the next daemon
 * to re-adopt. Calls still waiting are not answered: cancel them first. Accepts NULL. */
struct serve_holders *serve_holders_free(struct serve_holders *h);

/* Re-adopts every session the store's records name whose holder is alive (pidfd, start time,
 * SO_PEERCRED), and removes what the dead ones left (socket, state directory). Logs each. */
void serve_holders_adopt(struct serve_holders *h);

/* For the loop: milliseconds until a deadline (a start, an end) needs a look (-1: none), the
 * look, and the SIGCHLD handler (reaps our children). */
int64_t serve_holders_timeout(struct serve_holders *h);
void serve_holders_tick(struct serve_holders *h);
void serve_holders_reap(struct serve_holders *h);

/* The sessions of the table. */
size_t serve_holders_count(const struct serve_holders *h);
/* The session whose id is exactly @id (starting or ready), or NULL. */
struct serve_session *serve_session_find(struct serve_holders *h, const char *id);
/* Iteration over the table in creation order (starting ones included). */
struct serve_session *serve_holders_first(struct serve_holders *h);
struct serve_session *serve_session_next(struct serve_session *s);
bool serve_session_ready(const struct serve_session *s);
const char *serve_session_id(const struct serve_session *s);
const char *serve_session_backend(const struct serve_session *s);
/* A slot for the routes' state of this session (the output streams' replay): @free_fn frees
 * it when the session leaves the table. */
void *serve_session_get_slot(const struct serve_session *s);
void serve_session_set_slot(struct serve_session *s, void *p, void (*free_fn)(void *));

/* Starts a session: mints its store name, makes its state directory, spawns the holder with
 * @spec (its session_id set; from_snapshot left out) on fd 0 and, when @archive is not NULL,
 * --from-snapshot @archive. The session is in the table at once (a duplicate id is refused
 * before: the caller checks), and @fn gets the holder's SandboxSession, or its error (the
 * session then leaves the table). 0, or -errno with @err. */
int serve_holders_start(struct serve_holders *h, const struct serve_spec *spec, const char *archive,
                        serve_reply_fn fn, void *userdata, struct serve_call **ret,
                        struct serve_error *err);

/* Sends op @op with the members of @args (stolen; NULL: none) to the holder of ready session
 * @s; @fn gets the reply. 0 (with the call in *@ret when not NULL), or -errno with @err (the
 * session's holder is gone: io). */
int serve_session_call(struct serve_session *s, const char *op, json_t *args, serve_reply_fn fn,
                       void *userdata, struct serve_call **ret, struct serve_error *err);
/* The call's reply will not be delivered (its requester went away). Accepts NULL. */
void serve_call_cancel(struct serve_call *c);

/* After a successful "terminate": the session leaves the table; the holder ends by itself
 * (what it leaves is removed once it has exited). */
void serve_session_forget(struct serve_session *s);

/* The error reply of @e (for callbacks of the daemon's own making): fills @reply, whose
 * error the caller releases with json_decref(). */
int serve_reply_error(const struct serve_error *e, struct serve_reply *reply);
