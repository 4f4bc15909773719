/* The channel between cordon-serve (the daemon) and a session's holder (cordon-serve-session,
 * one process per session, which holds the live libcordon sandbox). Issue 26.
 *
 * Transport: a SOCK_STREAM unix socket the holder listens on, $XDG_RUNTIME_DIR/cordon/sessions/
 * NAME.sock (0600, in 0700 directories), NAME being the store's internal name of the session
 * (HOLDER_NAME_*; never the user's session id). The holder checks each peer as the daemon checks
 * its own (serve_peer_check()), so a sandboxed process that reaches the socket is refused.
 *
 * Framing: each message is a 4-byte little-endian length L (1 <= L <= HOLDER_FRAME_MAX) and L
 * bytes of JSON text whose top level is an object. A frame that breaks this is a protocol error:
 * the receiver closes the connection.
 *
 * Requests (daemon -> holder): {"id": N, "op": OP, ...arguments}; N a positive integer, unique
 * per connection while in flight. Replies (holder -> daemon) come in any order, each once:
 *   {"id": N, "ok": true, "result": R}
 *   {"id": N, "ok": false, "error": E}   E the contract's error object, as serve_error_to_json()
 *                                        makes it ({"kind", "message", "backend", "operation"})
 * The holder parses every request body again with wire.h's parsers (the daemon is not trusted
 * either); the daemon sends the request shapes as serve_*_to_json() encodes them.
 *
 * OPs, their arguments and results (R):
 *   "session"          -                                     R: SandboxSession (serde shape)
 *   "exec"             "request": ExecRequest                R: ExecResult; the exec's timeout,
 *                      else limits.wall_time, kills the command's process group (timed_out true)
 *   "process_start"    "request": ExecRequest (+ "pty")      R: {"process_id": P}; P is minted by
 *                      the holder ("p1", "p2", ...), matched exactly, never a path
 *   "process_output"   "process_id", "after_seq": N (>= 0), "wait_ms": W (0..HOLDER_WAIT_MS_MAX)
 *                      R: {"records": [...], "done": bool}. Records with seq > N, in order, at
 *                      most HOLDER_OUTPUT_REPLY_MAX bytes of data in one reply; each
 *                      {"seq": S, "stream": "stdout"|"stderr", "data": BASE64} or, last,
 *                      {"seq": S, "exit_code": C, "timed_out": bool}. seq starts at 1. The reply
 *                      waits up to W ms for a first record. Asking with N acknowledges every
 *                      record <= N: the holder frees them. It keeps at most
 *                      HOLDER_PROCESS_BUFFER_MAX bytes unacknowledged per process and stops
 *                      reading that process's output meanwhile (the command blocks in write(),
 *                      as on a full pipe): a client that reconnects with its last seq loses
 *                      nothing. A pty's output is all "stdout".
 *   "process_stdin"    "process_id", "data": BASE64, "eof": bool   R: {}
 *   "process_signal"   "process_id", "signal": 1..64              R: {}
 *   "process_resize"   "process_id", "rows", "cols" (1..65535)    R: {} (lifecycle: no pty)
 *   "process_list"     -   R: [{"process_id", "command", "pty", "running", "exit_code"|null}]
 *   "mount"            "mount": FilesystemMount                    R: SandboxSession
 *   "network_policy"   "policy": NetworkPolicy                     R: SandboxSession
 *   "snapshot"         "path": the archive to write (absolute; the daemon's snapshot store)
 *                      R: {"bytes": N}; no partial file is left when it fails
 *   "suspend", "resume" -                                          R: SandboxSession
 *   "terminate"        -   R: {}; the holder then ends the sandbox, removes its socket and its
 *                      state directory, and exits
 *
 * Start: the daemon runs `cordon-serve-session --name NAME --state-dir DIR --socket PATH
 * [--output-cap BYTES] [--from-snapshot ARCHIVE]` with the SandboxSpec (as serve_spec_to_json()
 * writes it) on fd 0 and a pipe's write end as fd 3 ("ready"). The holder starts the sandbox,
 * listens, writes its record (HOLDER_RECORD_FILE in DIR, replaced atomically) and then writes one
 * frame to fd 3: {"ok": true, "result": SandboxSession} or {"ok": false, "error": E}, and closes
 * it. It runs in a session of its own (setsid) with stdio on /dev/null, so that the daemon may
 * die and be restarted without ending it.
 *
 * The record (JSON object, written by the holder, read by a restarted daemon to re-adopt):
 *   {"version": 1, "name": NAME, "session_id": ID, "holder_pid": PID,
 *    "holder_start": TICKS (field 22 of /proc/PID/stat), "socket": PATH, "backend": B,
 *    "created": UNIX_SECONDS}
 * The daemon trusts a record only when pidfd_open(PID) works, /proc/PID/stat's start time equals
 * TICKS and the socket's peer (SO_PEERCRED) is PID; else it removes the socket and the state
 * directory of the dead session. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HOLDER_FRAME_MAX          (32u << 20) /* bytes of one frame's JSON */
#define HOLDER_WAIT_MS_MAX        60000
#define HOLDER_OUTPUT_REPLY_MAX   (256u << 10) /* bytes of data (before base64) in one reply */
#define HOLDER_PROCESS_BUFFER_MAX (1u << 20)
#define HOLDER_PROCESSES_MAX      1024 /* processes a session keeps (running or not reaped) */
#define HOLDER_RECORD_FILE        "record.json"
#define HOLDER_RECORD_MAX         (64u << 10)
#define HOLDER_PROGRAM            "cordon-serve-session"
/* A store name: HOLDER_NAME_LEN lowercase hex digits, minted by the daemon from getrandom(). */
#define HOLDER_NAME_LEN 32

/* Whether @s is a store name (exactly HOLDER_NAME_LEN of [0-9a-f]). */
bool holder_name_valid(const char *s);

/* One frame of @j (compact JSON; @j is not stolen) in a malloc'd buffer: 0, -EMSGSIZE, -ENOMEM. */
int holder_frame_encode(const json_t *j, char **ret, size_t *ret_len);
/* The first frame of @buf: > 0 the bytes it took, with the object in *@ret; 0 when @buf does not
 * hold a whole frame yet; -EMSGSIZE (length 0 or over the max), -EBADMSG (not JSON, or not an
 * object). */
ssize_t holder_frame_decode(const char *buf, size_t len, json_t **ret);

/* A non-blocking connection's buffers, for either end. */
struct holder_conn {
        int fd;
        char *in;
        size_t in_len, in_cap;
        char *out;
        size_t out_len, out_off, out_cap;
};
#define HOLDER_CONN_NULL ((struct holder_conn){.fd = -EBADF})

/* Reads what @c->fd has (until EAGAIN): 1 when the peer hung up (after the bytes before it),
 * 0 otherwise, -errno (-EMSGSIZE: more than a frame's worth buffered without a frame). */
int holder_conn_read(struct holder_conn *c);
/* The next whole frame read: 1 with *@ret, 0 none yet, -EMSGSIZE/-EBADMSG (close it). */
int holder_conn_next(struct holder_conn *c, json_t **ret);
/* Queues one frame of @j (not stolen) and writes what it can: 0 or -errno. */
int holder_conn_send(struct holder_conn *c, const json_t *j);
/* Writes what is queued: 1 when something is still queued (watch EPOLLOUT), 0 when all is out,
 * -errno (-EPIPE: the peer is gone). */
int holder_conn_flush(struct holder_conn *c);
/* Frees the buffers and closes the fd. */
void holder_conn_clear(struct holder_conn *c);

/* Field 22 (starttime, in clock ticks) of /proc/@pid/stat: 0 or -errno (-ESRCH: gone). The stat
 * text is parsed after the last ')' (a comm may hold any byte). */
int holder_proc_start_time(pid_t pid, uint64_t *ret);
/* The same, of a /proc/PID/stat text (for tests): 0 or -EBADMSG. */
int holder_stat_start_time(const char *text, uint64_t *ret);

/* ---- Helpers added by the holder (cordon-serve-session); the contract above is unchanged. ---- */

#include "serve/wire.h"

/* Standard base64 (RFC 4648, with padding). Encode: a malloc'd NUL-terminated text, NULL on
 * ENOMEM. Decode: 0 with a malloc'd buffer (NUL-terminated, not counted in *@ret_len), or
 * -EINVAL (a length that is not a multiple of 4, a character outside the alphabet, padding
 * anywhere but at the end, non-zero bits under the padding), -ENOMEM. */
char *holder_base64_encode(const void *data, size_t len);
int holder_base64_decode(const char *text, size_t len, char **ret, size_t *ret_len);

/* The operations of a request, as named on the wire ("session", "exec", ...). */
enum holder_op {
        HOLDER_OP_SESSION,
        HOLDER_OP_EXEC,
        HOLDER_OP_PROCESS_START,
        HOLDER_OP_PROCESS_OUTPUT,
        HOLDER_OP_PROCESS_STDIN,
        HOLDER_OP_PROCESS_SIGNAL,
        HOLDER_OP_PROCESS_RESIZE,
        HOLDER_OP_PROCESS_LIST,
        HOLDER_OP_MOUNT,
        HOLDER_OP_NETWORK_POLICY,
        HOLDER_OP_SNAPSHOT,
        HOLDER_OP_SUSPEND,
        HOLDER_OP_RESUME,
        HOLDER_OP_TERMINATE,
        _HOLDER_OP_MAX,
};
const char *holder_op_name(enum holder_op op); /* NULL for a value out of range */

/* A process id as the holder mints it: "p" and a decimal number without leading zeros. */
#define HOLDER_PROCESS_ID_MAX 24 /* bytes, with the NUL */
bool holder_process_id_valid(const char *s);

/* Stdin bytes one "process_stdin" may carry (after base64 decoding). */
#define HOLDER_STDIN_MAX (8u << 20)

/* One request, parsed strictly (unknown fields refused, every value checked against its
 * limit; the ExecRequest, FilesystemMount and NetworkPolicy by wire.h's parsers). */
struct holder_request {
        uint64_t id;
        enum holder_op op;
        struct serve_exec_request exec;     /* exec, process_start (pty only there) */
        struct serve_mount mount;           /* mount */
        struct serve_network_policy policy; /* network_policy */
        char process_id[HOLDER_PROCESS_ID_MAX];
        uint64_t after_seq;
        unsigned wait_ms;
        char *data; /* process_stdin: decoded */
        size_t data_len;
        bool eof;
        int signal;
        unsigned rows, cols;
        char *path; /* snapshot */
};

/* Parses @j (a frame's object). 0 with @ret filled; -EBADMSG when it has no usable "id" (a
 * protocol error: close the connection); -EINVAL with @err (SERVE_ERR_INVALID_REQUEST) and
 * @ret->id set, to be answered; -ENOMEM. Free @ret with holder_request_clear() in every case. */
int holder_request_parse(json_t *j, struct holder_request *ret, struct serve_error *err);
void holder_request_clear(struct holder_request *r);

/* The replies: {"id", "ok": true, "result"} (steals @result) and {"id", "ok": false, "error"}.
 * NULL on ENOMEM. */
json_t *holder_reply_ok(uint64_t id, json_t *result);
json_t *holder_reply_error(uint64_t id, const struct serve_error *err);
