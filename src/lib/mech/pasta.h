/* pasta (Debian package passt) attached to the sandbox's network namespace: the filtered mode's
 * way out. The supervisor finds it, probes whether it can work here, starts it attached to the
 * ns backend's PID 1 in the parent phase, owns its daemon by a pidfd and kills it on teardown. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/cordon.h"

/* The directories searched when no path is configured: fixed system directories, never the
 * caller's PATH (a sandboxed caller's PATH could name a pasta of its choosing). */
#define CORDON_PASTA_SEARCH_PATH "/usr/local/bin:/usr/bin:/usr/sbin:/bin"
/* How long pasta may take to configure the namespace and daemonize. */
#define CORDON_PASTA_START_TIMEOUT_MS 3000

struct cordon_pasta_config {
        const char *path;    /* NULL: search CORDON_PASTA_SEARCH_PATH */
        unsigned timeout_ms; /* 0: CORDON_PASTA_START_TIMEOUT_MS */
        /* NULL, or an IP address whose DNS queries from inside pasta forwards to the host's
         * first resolver (--dns-forward): the way to a resolver on the host's loopback, which
         * the sandbox cannot reach otherwise. The sandbox's resolv.conf must then name it. */
        const char *dns_forward;
};

/* A running pasta: our child, in the foreground, with SIGKILL as its parent-death signal (it
 * dies with the thread that started it). */
struct cordon_pasta {
        pid_t pid; /* 0: none */
        int pidfd; /* -EBADF: none */
        int errfd; /* the read end of its error output, kept so that it never writes to a closed
                    * pipe */
        /* Until it has said it is ready (cordon_pasta_wait_ready()): the pipe it writes its pid
         * to, when it must have by, and its path for messages; -EBADF and NULL after. */
        int readyfd;
        uint64_t deadline_ms; /* CLOCK_MONOTONIC */
        unsigned timeout_ms;
        char *path;
};

#define CORDON_PASTA_NONE                                                                          \
        ((struct cordon_pasta){.pid = 0, .pidfd = -EBADF, .errfd = -EBADF, .readyfd = -EBADF})

/* The absolute path of an executable pasta: @path itself when set (it must be absolute and
 * executable), else the first in CORDON_PASTA_SEARCH_PATH. Returns 0 with *@ret_path malloc'ed,
 * -ENOENT (none found), -EINVAL (a relative @path), -EACCES (@path not executable), -ENOMEM. */
int cordon_pasta_find(const char *path, char **ret_path);

/* Whether the filtered mode can be delivered here with @backend (CORDON_BACKEND_NS or
 * CORDON_BACKEND_LANDLOCK): pasta found, /dev/net/tun the tun device (10:200) and openable
 * read-write, a kernel that lets an unprivileged pasta bind to a device (SO_BINDTODEVICE needs
 * Linux 5.7 without CAP_NET_RAW), a backend with a network namespace. With @skip_probes
 * (NETWORK_FILTER_SKIP_HELPER_PROBE) only the facts that need no probe are checked (pasta
 * exists, the backend). Runs nothing. Returns 0, or a negative errno with @diag saying why and
 * naming the fix: -ENOENT (no pasta), -EACCES (/dev/net/tun not openable), -EOPNOTSUPP (no tun
 * device, kernel, backend). Thread-safe. */
int cordon_pasta_probe(const struct cordon_pasta_config *cfg, enum cordon_backend backend,
                       bool skip_probes, struct cordon_diag *diag);

/* Starts pasta attached to the user and network namespaces of @child (configuring its eth0 and
 * default route, no port forwarded either way, the gateway not mapped to the host), as the
 * caller's uid and gid. Waits at most the configured bound for it to say it is ready; on
 * failure or timeout it is killed and reaped. Returns 0 with @ret owning the daemon, or
 * -errno with @diag naming pasta (its own error output included). Not async-signal-safe: call
 * it from the supervisor. */
int cordon_pasta_start(const struct cordon_pasta_config *cfg, pid_t child, struct cordon_pasta *ret,
                       struct cordon_diag *diag);
/* cordon_pasta_start() in two halves, so that the caller can do other work while pasta starts
 * (the launcher releases the sandbox's child meanwhile: pasta's ~10-20 ms of start-up then
 * overlap the child's own steps). cordon_pasta_spawn() runs pasta and returns at once with @ret
 * owning it (not ready yet); cordon_pasta_wait_ready() waits, within the bound counted from the
 * spawn, for it to say it is ready, and on failure kills and reaps it (@p is then
 * CORDON_PASTA_NONE) and says why in @diag. Errors as cordon_pasta_start(). */
int cordon_pasta_spawn(const struct cordon_pasta_config *cfg, pid_t child, struct cordon_pasta *ret,
                       struct cordon_diag *diag);
int cordon_pasta_wait_ready(struct cordon_pasta *p, struct cordon_diag *diag);
/* The same, and it also stops waiting when @other (a pipe's read end; -EBADF: none) gives a
 * byte: returns 1 then, with pasta still starting (its readiness is not awaited again; a pasta
 * that fails later leaves the namespace without its network). */
int cordon_pasta_wait_ready_or(struct cordon_pasta *p, int other, struct cordon_diag *diag);

/* Once @p's pidfd is readable (pasta exited on its own): why, in @buf (its exit status or
 * signal, and what it wrote to its error output), without waiting. */
void cordon_pasta_describe_exit(const struct cordon_pasta *p, char *buf, size_t size);

/* Sends pasta SIGKILL through its pidfd without waiting for it: its exit takes tens of
 * milliseconds (closing its tap device unregisters a network device, which waits for RCU grace
 * periods). cordon_pasta_stop() reaps it later. */
void cordon_pasta_kill(const struct cordon_pasta *p);

/* Kills pasta (SIGKILL through its pidfd), reaps it and closes its descriptors. Idempotent; @p
 * may be CORDON_PASTA_NONE or zeroed (pid 0: nothing owned). */
void cordon_pasta_stop(struct cordon_pasta *p);
/* Reaps the pastas earlier stops killed but did not wait for (their exit takes tens of
 * milliseconds: the tap device is unregistered); each stop and start does it without waiting.
 * With @wait, waits for each. Thread-safe. */
void cordon_pasta_reap(bool wait);
