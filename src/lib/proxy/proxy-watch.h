/* What an epoll event of the proxy points at: every descriptor the proxy polls (listeners,
 * client and upstream sockets, the resolver's sockets) is registered with a pointer to one of
 * these, so one epoll fd serves them all. Internal to src/lib/proxy. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum cordon_proxy_watch_kind {
        CORDON_PROXY_WATCH_LISTENER,
        CORDON_PROXY_WATCH_CLIENT,
        CORDON_PROXY_WATCH_UPSTREAM,
        CORDON_PROXY_WATCH_DNS,
};

struct cordon_proxy_watch {
        enum cordon_proxy_watch_kind kind;
        int fd;
        uint32_t events; /* what is registered now (0: registered, nothing wanted) */
        bool registered;
        void *owner;
};

/* Registers @w or changes its events in @epfd, skipping the system call
 * when nothing changes. Returns 0 or -errno. */
int cordon_proxy_watch_set(int epfd, struct cordon_proxy_watch *w, uint32_t events);
void cordon_proxy_watch_remove(int epfd, struct cordon_proxy_watch *w);
