/* cordon-serve's wire (issue 26): the JSON bodies of the session contract, harn's SandboxBackend
 * shapes (../shared/spec/harn-hostlib-sandbox-api.rs.txt), parsed strictly and encoded exactly
 * as serde would. Everything here is a pure function of its input: no I/O, no global state.
 * Request bodies are hostile: every size has a limit, unknown fields are refused, and a refusal
 * names the JSON key (e.g. "mounts[2].target"). */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on what a request may carry. */
#define SERVE_BODY_MAX   (8u << 20)  /* bytes of one request body */
#define SERVE_ID_MAX     128         /* bytes of a session or snapshot id */
#define SERVE_ARGS_MAX   4096        /* ExecRequest.args */
#define SERVE_ENV_MAX    4096        /* ExecRequest.env entries */
#define SERVE_LABELS_MAX 256         /* SandboxSpec.labels entries */
#define SERVE_MOUNTS_MAX 64          /* SandboxSpec.mounts */
#define SERVE_HOSTS_MAX  1024        /* NetworkPolicy.allowed_hosts */
#define SERVE_STRING_MAX (64u << 10) /* any one string but stdin */

/* The error kinds of the contract, each with its HTTP status. */
enum serve_error_kind {
        SERVE_ERR_SESSION_NOT_FOUND, /* 404 */
        SERVE_ERR_UNSUPPORTED,       /* 501, with backend and operation */
        SERVE_ERR_INVALID_REQUEST,   /* 400 */
        SERVE_ERR_LIFECYCLE,         /* 409 */
        SERVE_ERR_EXEC,              /* 500 */
        SERVE_ERR_NETWORK_POLICY,    /* 422 */
        SERVE_ERR_IO,                /* 500 */
};

struct serve_error {
        enum serve_error_kind kind;
        char message[512];
        const char *backend; /* SERVE_ERR_UNSUPPORTED: static strings; NULL otherwise */
        const char *operation;
};

/* "session_not_found", ... */
const char *serve_error_kind_name(enum serve_error_kind kind);
unsigned serve_error_http_status(enum serve_error_kind kind);
/* Fills @err (printf-style message; always returns -EINVAL for use in return statements).
 * backend and operation are reset to NULL: set them afterwards for SERVE_ERR_UNSUPPORTED. */
int serve_error_set(struct serve_error *err, enum serve_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* {"error":{"kind":K,"message":M}} (+ "backend", "operation" for unsupported, null when NULL);
 * a message that is not UTF-8 (a user's bytes, a cut) is made so. NULL: ENOMEM */
json_t *serve_error_to_json(const struct serve_error *err);

/* serde's Duration: {"secs":N,"nanos":N} (nanos < 1e9); a plain non-negative number of seconds
 * (integer or real) is accepted on input. */
struct serve_duration {
        bool set;
        uint64_t secs;
        uint32_t nanos;
};
uint64_t serve_duration_usec(const struct serve_duration *d);   /* saturating */
json_t *serve_duration_to_json(const struct serve_duration *d); /* null when !set */

enum serve_access { SERVE_READ_ONLY, SERVE_READ_WRITE }; /* "read_only" | "read_write" */

/* FilesystemMount. @target is normalised as harn does (trimmed, trailing slashes removed) and
 * must be absolute without a ".." component; @source "" means "allocate one". */
struct serve_mount {
        char *source;
        char *target;
        enum serve_access access;
};

/* NetworkPolicy: {"mode":"unrestricted"} or {"mode":"limited","allowed_hosts":[...]}; "type" is
 * accepted for "mode" (not both). Hosts: non-empty, at most 253 bytes, no whitespace or
 * control characters. */
struct serve_network_policy {
        bool limited;
        char **allowed_hosts; /* NULL-terminated; empty with limited = deny all */
        size_t n_hosts;
};

/* ResourceLimits: every field optional (absent or null). */
struct serve_limits {
        struct serve_duration wall_time, idle_timeout;
        bool has_cpu_count, has_memory_mb;
        uint32_t cpu_count, memory_mb;
};

struct serve_label {
        char *key, *value;
};

/* SandboxSpec, plus cordon's "from_snapshot": an id. Every field optional. */
struct serve_spec {
        char *session_id;           /* NULL: mint one; blank (only whitespace) refused */
        struct serve_label *labels; /* sorted by key, as BTreeMap */
        size_t n_labels;
        struct serve_network_policy network; /* default unrestricted */
        struct serve_mount *mounts;
        size_t n_mounts;
        struct serve_limits limits;
        char *from_snapshot;
};

/* ExecRequest, plus cordon's "pty" (the processes route only: refused elsewhere with
 * @allow_pty false). @command non-empty and not only whitespace; env names [A-Za-z_][A-Za-z0-9_]*,
 * values without NUL; cwd, when given, absolute or relative (resolved later), without NUL. */
struct serve_exec_request {
        char *command;
        char **args; /* NULL-terminated */
        size_t n_args;
        char *cwd;  /* NULL: none */
        char **env; /* NAME=VALUE, NULL-terminated, in the JSON object's key order */
        size_t n_env;
        char *stdin_data; /* NULL: none (the command gets /dev/null) */
        size_t stdin_len;
        struct serve_duration timeout;
        bool pty;
};

/* A request body as a JSON object: its size checked before any parsing (SERVE_BODY_MAX), then
 * the text (duplicate keys refused; a string holding NUL only with @allow_nul, for callers that
 * read strings with their length). 0 with *@ret, -EINVAL with @err (invalid_request), -ENOMEM. */
int serve_body_load_object(const char *body, size_t len, bool allow_nul, json_t **ret,
                           struct serve_error *err);

/* Parsers: 0, or -EINVAL with @err (SERVE_ERR_INVALID_REQUEST) naming the key; -ENOMEM. A body
 * over SERVE_BODY_MAX, malformed JSON, a top level that is not an object, an unknown field, a
 * wrong type, a value over its limit: refused. The result is freed with the matching _clear()
 * (also after a failure, and on a zeroed struct). */
int serve_spec_parse(const char *body, size_t len, struct serve_spec *ret, struct serve_error *err);
void serve_spec_clear(struct serve_spec *s);
int serve_mount_parse(const char *body, size_t len, struct serve_mount *ret,
                      struct serve_error *err);
void serve_mount_clear(struct serve_mount *m);
int serve_network_policy_parse(const char *body, size_t len, struct serve_network_policy *ret,
                               struct serve_error *err);
void serve_network_policy_clear(struct serve_network_policy *p);
int serve_exec_request_parse(const char *body, size_t len, bool allow_pty,
                             struct serve_exec_request *ret, struct serve_error *err);
void serve_exec_request_clear(struct serve_exec_request *r);

/* Encoders (NULL on ENOMEM). */
struct serve_resolved_mount {
        const char *target;
        enum serve_access access;
        const char *host_path; /* NULL: null */
};
enum serve_state { SERVE_PROVISIONED, SERVE_RUNNING, SERVE_SUSPENDED, SERVE_TERMINATED };
const char *serve_state_name(enum serve_state s);
struct serve_session_view {
        const char *id;
        const char *backend;
        enum serve_state state;
        const struct serve_resolved_mount *mounts;
        size_t n_mounts;
        const struct serve_label *metadata; /* keys sorted on output, as BTreeMap does */
        size_t n_metadata;
};
json_t *serve_session_to_json(const struct serve_session_view *v);

struct serve_capabilities {
        bool local_process_sandbox, network_policy, snapshot, resume, suspend_on_idle;
};
json_t *serve_capabilities_to_json(const struct serve_capabilities *c);

struct serve_snapshot_view {
        const char *session_id, *backend, *snapshot_id;
        const struct serve_label *metadata;
        size_t n_metadata;
};
json_t *serve_snapshot_to_json(const struct serve_snapshot_view *v);

/* ExecResult. The captured bytes are made a JSON string: at most @cap bytes of input are taken
 * (then SERVE_TRUNCATED_MARKER is appended), and bytes that are not UTF-8 become U+FFFD, each
 * ill-formed sequence one replacement (as Rust's String::from_utf8_lossy does). */
#define SERVE_TRUNCATED_MARKER "\n[cordon: output truncated]\n"
/* The @cap a caller passes when it has no reason to choose another: 1 MiB of each stream. */
#define SERVE_OUTPUT_CAP_DEFAULT (1u << 20)
json_t *serve_text_to_json(const char *bytes, size_t len, size_t cap);
json_t *serve_exec_result_to_json(const char *out, size_t out_len, const char *err, size_t err_len,
                                  size_t cap, int exit_code, bool timed_out);

/* The request shapes back to JSON, as serde would write them (canonical: labels sorted, every
 * field present, null for an absent Option; cordon's own "from_snapshot" and "pty" only when
 * set). Parsing the text again gives the same struct. NULL on ENOMEM. */
json_t *serve_spec_to_json(const struct serve_spec *s);
json_t *serve_mount_to_json(const struct serve_mount *m);
json_t *serve_network_policy_to_json(const struct serve_network_policy *p);
json_t *serve_exec_request_to_json(const struct serve_exec_request *r);

/* JSON text of @j (compact, keys in insertion order), steals @j; NULL on ENOMEM. */
char *serve_json_dump(json_t *j);
