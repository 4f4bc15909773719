/* The proxied network mode's hooks in the launcher (the PROXIED row of net-mode-hooks.c). The ns
 * backend's proxy port is 127.0.0.1:CORDON_PROXY_PORT inside the sandbox's own network namespace
 * (PID 1 opens it, spawn.c). The landlock backend has no namespace: the supervisor listens on
 * the host's loopback itself, on a port chosen at random for each run, which Landlock's TCP rule
 * lets the command connect to and nothing else. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

struct cordon_launch;

/* Lowest and highest port the landlock backend's proxy may get: above the well-known and
 * registered services most hosts run, so that the one TCP port the command may connect to
 * (on any address: Landlock's rule is by port) is seldom one another host serves on. */
#define CORDON_PROXY_HOST_PORT_MIN 16384
#define CORDON_PROXY_HOST_PORT_MAX 65535

/* How many random ports are tried before giving up (each taken one answers EADDRINUSE). */
#define CORDON_PROXY_HOST_PORT_TRIES 32

/* A listening TCP socket on 127.0.0.1 of the host, close-on-exec, at a port drawn with
 * getrandom(2) from [CORDON_PROXY_HOST_PORT_MIN, CORDON_PROXY_HOST_PORT_MAX]; a port in use is
 * drawn again, CORDON_PROXY_HOST_PORT_TRIES times at most. @rand_bytes: where the random bits come
 * from (NULL: getrandom(2); tests put in their own). Returns the fd with the port in @ret_port,
 * or -EADDRINUSE (every port tried was taken), or -errno. */
int cordon_net_proxied_listen_host(int (*rand_bytes)(void *buf, size_t n), uint16_t *ret_port);

/* Prepare (supervisor): the port the command is told of (@l->proxy_port). ns backend:
 * CORDON_PROXY_PORT. landlock backend: the listening socket above in @l->proxy_fd, made once per
 * launch (kept when called again after a fallback); none in a dry run (port 0). */
int cordon_net_proxied_prepare(struct cordon_launch *l, struct cordon_diag *diag);
/* Closes a listening socket the sandbox has not taken (idempotent). */
void cordon_net_proxied_teardown(struct cordon_launch *l);
