/* The landlock backend's notified socket calls (notify-net.c), for the dispatcher in notify.c:
 * the notifier's state and its answers. Internal to lib/supervisor/notify*.c. */
#pragma once

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/mech/seccomp-filter.h"

/* How long the supervisor waits for a blocking socket's connect to the proxy to complete. On
 * loopback the handshake is done by the kernel at once (the proxy need not accept first);
 * only a full listen backlog drops the SYN, and then the caller gets ETIMEDOUT instead of the
 * event loop stalling for the kernel's one-second retransmission. */
#define CONNECT_WAIT_MS 200

struct cordon_notify {
        int listener;
        int shm_dirfd;
        char **writable;
        size_t n_writable;
        void (*warn)(void *userdata, const char *message);
        void *userdata;
        enum cordon_seccomp_net socket_rule;
        bool tmpdir;
        uint16_t proxy_port;
        bool warned_tmp;
        bool warned_unix;
        bool warned_unix_full;
        /* cordon_seccomp_unix_supervised(): the unix sockets the command bound, which are the
         * only ones its connects may reach (notify-unix.h); NULL otherwise. */
        struct cordon_unix_socks *socks;
        struct cordon_loop_io *io; /* the listener's source, once attached */
        struct cordon_loop *loop;  /* the loop it is attached to */
        /* OPEN_UNIX: the connects of blocking sockets made here whose handshake is awaited,
         * each answered when its socket is writable (notify-net.c). */
        struct cordon_pending_connect *pending;
        size_t n_pending;
};

/* At most this many connects awaited at once; one beyond answers EAGAIN (the kernel's answer
 * when it has no port left to connect from). */
#define CONNECTS_PENDING_MAX 256

/* Forgets every awaited connect (their callers get no answer from here: the listener's close
 * ends their calls). */
void cordon_notify_pending_free(struct cordon_notify *n);

/* What to answer; ANSWER_DROP: the caller is gone, nothing to answer. */
enum { ANSWER_CONTINUE = 1, ANSWER_DONE = 0, ANSWER_DROP = -ENOENT };

/* Answers notification @id with return value @v (an -errno or a result). */
int cordon_notify_answer_value(struct cordon_notify *n, uint64_t id, int64_t v);

/* socket(AF_UNIX) under a rule that refuses it; bind(), listen() and connect() of the command's
 * unix sockets (with the record), and proxied mode's connect() made here to the proxy only. */
int cordon_notify_on_unix_socket(struct cordon_notify *n, const struct seccomp_notif *req);
int cordon_notify_on_bind(struct cordon_notify *n, const struct seccomp_notif *req);
int cordon_notify_on_listen(struct cordon_notify *n, const struct seccomp_notif *req);
int cordon_notify_on_connect(struct cordon_notify *n, const struct seccomp_notif *req);
