/* cordon-serve's listening sockets: the unix socket in a private runtime directory (or the one
 * systemd passes), and the optional TCP one on 127.0.0.1. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct serve_socket {
        int fd;      /* listening, close-on-exec, non-blocking */
        int lock_fd; /* flock of PATH.lock, held while we listen; -EBADF when activated */
        char *path;  /* the socket's path; NULL when activated */
        dev_t dev;   /* of the socket file we made, to remove only ours at exit */
        ino_t ino;
};
#define SERVE_SOCKET_NULL ((struct serve_socket){.fd = -EBADF, .lock_fd = -EBADF})

/* The default path, $XDG_RUNTIME_DIR/cordon/serve.sock, with $XDG_RUNTIME_DIR checked (ours,
 * 0700, not a symlink). 0 with *@ret (malloc'd), or -errno with @err filled. */
int serve_socket_default_path(char **ret, char *err, size_t n);
/* A socket passed by systemd (LISTEN_PID, LISTEN_FDS): 1 and @ret filled, 0 when none was
 * passed, -errno with @err when what was passed is not one listening unix socket. Unsets the
 * variables, so that nothing started later takes them. */
int serve_socket_from_activation(struct serve_socket *ret, char *err, size_t n);
/* Creates the socket at @path: its directory created 0700 when missing and refused when not
 * ours, not 0700 or a symlink; a stale socket (nobody listening) replaced, a live one refused;
 * the socket 0600. 0 or -errno with @err naming the path. */
int serve_socket_listen(const char *path, struct serve_socket *ret, char *err, size_t n);
/* A TCP socket listening on 127.0.0.1:@port (0: a port the kernel picks; the one bound is
 * stored back in *@port). */
int serve_socket_listen_tcp(uint16_t *port, struct serve_socket *ret, char *err, size_t n);
/* Closes, and removes the socket file when it is still the one we made. */
void serve_socket_close(struct serve_socket *s);
