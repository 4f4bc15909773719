/* A session's supervisor side (cordon/session.h): the control channel on the sandbox's loop,
 * the commands it started, suspend and resume. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cordon/session.h"
#include "lib/loop/loop.h"
#include "lib/policy/policy.h"

struct cordon_sandbox;

struct cordon_session {
        struct cordon_sandbox *sb;
        struct cordon_env_rules env_rules; /* the policy's, copied: a command's variables */
        /* For an attach: the paths the policy hides (masked), keeps read-only (host side), and
         * the admin's DENIED_WRITABLE_PATHS, copied. */
        char **masked;
        char **readonly;
        /* For a snapshot: the guest paths of the writable trees the session owns (its tmpfs
         * mounts: /tmp, a private home), in the policy's order. */
        char **owned;
        /* And the host directories of cordon_sandbox_options.host_trees: names, paths. */
        char **host_names, **host_paths;
        struct cordon_list denied_writable;
        struct cordon_loop_io *control_io;        /* the control channel on the sandbox's loop */
        struct cordon_loop_timer *deadline_timer; /* the earliest command timeout */
        bool ended;     /* the inside is gone (the control channel's end of file) */
        bool suspended; /* by cordon_sandbox_suspend() */
        /* The landlock backend's suspend was the supervisor's walk, which stopped the server
         * too: the resume walks as well, never asking the stopped server. */
        bool walked;
        bool done_seen; /* a CORDON_CONTROL_DONE came: its err in @done_err */
        int done_err;
        uint32_t next_id;
        struct cordon_exec **execs; /* the live handles (not owned) */
        size_t n_execs, cap_execs;
};

/* Adds @path to @list, and the path with its links followed where that differs: an attach's
 * source is opened without following any, so it can only be compared with the resolved form
 * (a home under a linked /home would otherwise never match its credential stores). */
int cordon_session_add_path(char ***list, const char *path);

/* The most host trees a session's snapshots take (cordon_sandbox_options.host_trees). */
#define CORDON_SESSION_HOST_TREES_MAX 4

/* Checks @o's host trees before a start: -EINVAL with @diag for a name or path out of rule, a
 * name twice, too many, or any without CORDON_SANDBOX_SESSION. */
int cordon_session_check_host_trees(const struct cordon_sandbox_options *o,
                                    struct cordon_diag *diag);

/* Made when a session's sandbox has started: its control channel goes on the loop. Returns 0
 * or -errno. */
int cordon_session_new(struct cordon_sandbox *sb, const struct cordon_policy *p);
/* Also for a sandbox that is no session (its control channel is read for its end of file). */
void cordon_session_free(struct cordon_sandbox *sb);
/* Serves the sandbox's loop until @done(@userdata) or the session's end. Returns 0 or -errno
 * (-ENOTCONN: it ended first). */
int cordon_session_pump(struct cordon_sandbox *sb, bool (*done)(void *userdata), void *userdata);

/* Restores the archive @path (cordon_sandbox_snapshot()) into the session's trees, which must
 * be empty. Returns 0 or -errno with @diag. */
int cordon_session_restore(struct cordon_sandbox *sb, const char *path, struct cordon_diag *diag);

/* The landlock backend's stop and continue from outside: every process below @reaper (not it)
 * gets @sig, pass after pass, until a pass finds (for SIGSTOP) every one stopped. Returns 0 or
 * -errno (-EBUSY: still running after the passes). */
int cordon_session_signal_tree(pid_t reaper, int sig);
