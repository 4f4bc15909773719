/* A descriptor of the egress proxy on the loop: every socket the proxy polls (listeners, client
 * and upstream sockets, the resolver's sockets) is one of these, and its io source's userdata
 * points back at it. Internal to src/lib/proxy. */
#pragma once

#include <stdint.h>

#include "lib/loop/loop.h"

enum cordon_proxy_watch_kind {
        CORDON_PROXY_WATCH_LISTENER,
        CORDON_PROXY_WATCH_CLIENT,
        CORDON_PROXY_WATCH_UPSTREAM,
        CORDON_PROXY_WATCH_DNS,
};

struct cordon_proxy_watch {
        enum cordon_proxy_watch_kind kind;
        int fd;
        struct cordon_loop_io *io; /* made the first time something is wanted; NULL before */
        void *owner;               /* the proxy (listener), connection or resolver */
};

/* Wants @events on @w->fd (0: nothing, which takes it out of the epoll set), its io source
 * made on @loop with @fn the first time. Returns 0 or -errno. */
int cordon_proxy_watch_set(struct cordon_loop *loop, struct cordon_proxy_watch *w, uint32_t events,
                           cordon_loop_io_fn fn);
/* Wants nothing on @w for now. */
void cordon_proxy_watch_remove(struct cordon_proxy_watch *w);
/* Frees @w's source, then closes its descriptor. */
void cordon_proxy_watch_close(struct cordon_proxy_watch *w);
