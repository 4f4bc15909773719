/* What serve-holders.c and serve-holders-adopt.c share: the table's structures. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "serve/holder-proto.h"
#include "serve/serve-holders.h"

enum serve_session_state {
        SESSION_STARTING, /* spawned, its ready frame not read yet */
        SESSION_READY,    /* connected */
        SESSION_DYING,    /* out of the table, its holder's exit awaited */
};

struct serve_call {
        uint64_t id;
        serve_reply_fn fn; /* NULL: cancelled */
        void *userdata;
        struct serve_call *next;
};

struct serve_session {
        struct serve_holders *h;
        enum serve_session_state state;
        char name[HOLDER_NAME_LEN + 1];
        char *id;      /* the user's session id */
        char *backend; /* NULL until ready */
        pid_t pid;
        int pidfd;
        bool child; /* spawned by us (reaped at SIGCHLD) rather than adopted */
        struct serve_loop_source *pidfd_src, *ready_src, *conn_src;
        int ready_fd;
        char *ready_buf;
        size_t ready_len, ready_cap;
        struct holder_conn conn;
        bool want_out;
        uint64_t next_id;
        struct serve_call *calls; /* waiting for their replies */
        struct serve_call *start; /* the start's callback, until ready */
        uint64_t deadline;        /* CLOCK_MONOTONIC µs: start or end; 0 none */
        void *slot;
        void (*slot_free)(void *);
        struct serve_session *prev, *next; /* in the table, or in the dying list */
};

struct serve_holders {
        struct serve_loop *loop;
        struct serve_store *store;
        struct serve_holders_options o;
        char *program;                      /* o.program's copy */
        struct serve_session *first, *last; /* the table, in creation order */
        size_t n;
        struct serve_session *dying;
        struct rlimit nofile; /* what we were started with, given to each holder */
};

uint64_t serve_now_usec(void);
int serve_pidfd_open(pid_t pid);
int serve_pidfd_signal(int pidfd, int sig);
bool serve_pidfd_exited(int pidfd);
struct serve_session *serve_session_new(struct serve_holders *h, const char *name, const char *id);
/* Frees @s, out of every list, and closes what it holds. */
void serve_session_free(struct serve_session *s);
void serve_holders_table_add(struct serve_holders *h, struct serve_session *s);
/* Watches the holder's pidfd (its exit). */
int serve_session_watch(struct serve_session *s);
/* A connection to the holder's socket at @path whose peer is @pid, of our uid: its descriptor,
 * or -errno (-EPERM: another process listens there). */
int serve_holder_connect(const char *path, pid_t pid);
/* serve_holder_connect() to @s's holder, then serve_session_attach(). */
int serve_session_connect(struct serve_session *s, const char *path);
/* Makes @s ready on connection @fd (taken, also on failure). */
int serve_session_attach(struct serve_session *s, int fd);
/* The session's holder is gone or broken: out of the table, its waiting calls answered with
 * io, the holder asked to end. */
void serve_session_lost(struct serve_session *s, const char *why);
