/* cordon-serve-session, the session holder (issue 26; the channel's contract is holder-proto.h):
 * one process per session holding one live libcordon session. This header is shared by its
 * files: holder-main.c (start-up, hand-shake, record, signals), holder-session.c (the spec made
 * a sandbox, and the session-wide operations), holder-exec.c (commands and their output) and
 * holder-ops.c (the connection and the dispatch). Single-threaded. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "serve/holder-proto.h"
#include "serve/serve-loop.h"
#include "serve/serve-socket.h"
#include "serve/wire.h"

#define HOLDER_BACKEND_NAME "cordon" /* SandboxSession.backend */
/* The canonical mounts of harn's contract. */
#define HOLDER_MEMORY_MOUNT  "/mnt/memory"
#define HOLDER_OUTPUTS_MOUNT "/mnt/session/outputs"

/* A mount the session shows: where inside, from where on the host, and how. */
struct holder_mount {
        char *target;
        char *host_path;
        enum serve_access access;
        bool own;      /* @host_path is a directory the holder made (DIR/memory, DIR/mount-N) */
        bool at_start; /* ns: bound by the start's policy, not attached after it */
};

struct holder_proc;
struct holder_wait;

struct holder {
        /* Options. */
        const char *name, *state_dir, *socket_path, *from_snapshot;
        size_t output_cap;

        /* The session. */
        struct serve_spec spec;
        char *session_id;
        char *root; /* DIR/root, the session root (PROJECT_DIR) */
        struct cordon_sandbox *sb;
        enum cordon_backend backend; /* ns or landlock, once started */
        enum serve_state state;
        struct holder_mount *mounts;
        size_t n_mounts;
        unsigned n_fresh;                     /* directories made for empty sources */
        struct serve_network_policy network;  /* the policy in force */
        uint64_t wall_usec, idle_usec;        /* limits; 0: none */
        uint64_t last_activity;               /* CLOCK_MONOTONIC usec */
        bool released;                        /* memory given back since last_activity */
        unsigned long long proxy_connections; /* the proxy's count when last looked at */

        /* The event loop and the daemon's connection. */
        struct serve_loop *loop;
        struct serve_loop_source *sb_source, *listen_source, *conn_source;
        struct serve_socket listen;
        struct holder_conn conn;
        uint64_t conn_gen; /* which connection a deferred reply belongs to */
        bool conn_out_watch;
        bool sb_turned; /* the sandbox's loop ran this turn (commands may have ended) */

        /* Commands: execs awaiting their result and processes started. */
        struct holder_proc **procs;
        size_t n_procs;
        uint64_t next_process;
        struct holder_wait *waits; /* long polls of process_output */

        bool quit;
        int exit_code;
};

uint64_t holder_now_usec(void);

/* holder-session.c */
/* Makes the session: settings as `cordon run` loads them plus the spec, the policy, the start,
 * the mounts. 0, or -errno with @err (the kind the contract gives the failure). */
int holder_session_start(struct holder *h, struct serve_error *err);
/* The SandboxSession of the session (NULL: ENOMEM). */
json_t *holder_session_view(const struct holder *h);
int holder_session_mount(struct holder *h, const struct serve_mount *m, struct serve_error *err);
int holder_session_network(struct holder *h, const struct serve_network_policy *np,
                           struct serve_error *err);
int holder_session_suspend(struct holder *h, struct serve_error *err);
/* Resumes when suspended (an exec or process op on a suspended session). */
int holder_session_resume(struct holder *h, struct serve_error *err);
int holder_session_snapshot(struct holder *h, const char *path, uint64_t *ret_bytes,
                            struct serve_error *err);
/* Something happened that keeps the session from idling. */
void holder_session_touch(struct holder *h);
/* Microseconds until the idle suspend is due (-1: never), and the suspend when due; also,
 * HOLDER_RELEASE_AFTER_USEC after the last activity, the memory it left given back. */
#define HOLDER_RELEASE_AFTER_USEC (500 * 1000)
int64_t holder_session_idle_timeout(const struct holder *h);
void holder_session_idle_check(struct holder *h);
/* Frees the sandbox and what the session holds (not the state directory). */
void holder_session_free(struct holder *h);
/* A libcordon errno (+ diag) as the contract's error of @kind_default's family. */
int holder_error_from_errno(struct serve_error *err, int r, const struct cordon_diag *diag,
                            enum serve_error_kind kind, const char *what);

/* holder-exec.c */
/* Starts a command for an "exec" (its reply sent when it ends) or a "process_start" (the
 * reply at once). 0, or -errno with @err. */
int holder_exec_start(struct holder *h, uint64_t req_id, const struct serve_exec_request *rq,
                      bool process, struct serve_error *err);
/* The process ops: 0 with *@ret (the result), 1 when the reply is deferred (a long poll), or
 * -errno with @err. */
int holder_process_op(struct holder *h, const struct holder_request *rq, json_t **ret,
                      struct serve_error *err);
json_t *holder_process_list(const struct holder *h);
/* Called after each turn of the loop: commands that ended, timeouts, long polls due. */
void holder_exec_tick(struct holder *h);
int64_t holder_exec_timeout(const struct holder *h);
/* Whether an exec is in flight or a stream is being read (the session is not idle). */
bool holder_exec_busy(const struct holder *h);
/* Drops the deferred replies of the connection that went away. */
void holder_exec_conn_gone(struct holder *h);
/* Ends every command (at terminate) and frees them. */
void holder_exec_free_all(struct holder *h);

/* holder-ops.c */
int holder_ops_listen(struct holder *h, struct serve_error *err);
/* Sends a reply frame on the current connection when it is still @gen. Steals @reply. */
void holder_send(struct holder *h, uint64_t gen, json_t *reply);
void holder_ops_close(struct holder *h);
