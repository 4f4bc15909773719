/* The proxied network mode's hooks in the launcher (see net-proxied.h): where the egress proxy
 * listens for the landlock backend, a random port of the host's loopback. */
#include <errno.h>
#include <string.h>
#include <stddef.h>
#include <sys/random.h>

#include "lib/launch/backend.h"
#include "lib/launch/launch.h"
#include "lib/launch/net-proxied.h"
#include "lib/launch/net-rules-note.h"
#include "lib/mech/ns-net.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

static int system_random(void *buf, size_t n)
{
        ssize_t k = getrandom(buf, n, 0);
        if (k < 0)
                return -errno;
        return (size_t)k == n ? 0 : -EIO;
}

int cordon_net_proxied_listen_host(int (*rand_bytes)(void *buf, size_t n), uint16_t *ret_port)
{
        const uint32_t span = CORDON_PROXY_HOST_PORT_MAX - CORDON_PROXY_HOST_PORT_MIN + 1;
        if (!rand_bytes)
                rand_bytes = system_random;
        for (unsigned i = 0; i < CORDON_PROXY_HOST_PORT_TRIES; i++) {
                uint32_t x;
                int r = rand_bytes(&x, sizeof(x));
                if (r < 0)
                        return r;
                /* A fixed port would be one a program on the host (or another sandbox) could
                 * take first, or wait on; a random one per run is not known beforehand. The
                 * modulo's bias over 2^32 is below 2^-15. */
                uint16_t port = (uint16_t)(CORDON_PROXY_HOST_PORT_MIN + x % span);
                int fd = cordon_ns_net_listen_loopback(port);
                if (fd == -EADDRINUSE)
                        continue;
                if (fd < 0)
                        return fd;
                *ret_port = port;
                return fd;
        }
        return -EADDRINUSE;
}

int cordon_net_proxied_prepare(struct cordon_launch *l, struct cordon_diag *diag)
{
        cordon_net_rules_note(l);
        /* In a network namespace of its own the proxy's port is fixed. */
        if (cordon_backend_ops(l->backend)->net_ns) {
                l->proxy_port = CORDON_PROXY_PORT;
                return 0;
        }
        /* Again after a fallback: the socket made the first time stays. */
        if (l->proxy_fd >= 0)
                return 0;
        l->proxy_port = 0;
        if (l->dry_run)
                return 0;
        uint16_t port = 0;
        int fd = cordon_net_proxied_listen_host(NULL, &port);
        if (fd < 0)
                return cordon_diag_set(diag, fd,
                                       "failed to open the egress proxy's port on the host's "
                                       "loopback (127.0.0.1): %s",
                                       strerror(-fd));
        l->proxy_fd = fd;
        l->proxy_port = port;
        return 0;
}

void cordon_net_proxied_teardown(struct cordon_launch *l)
{
        l->proxy_fd = safe_close(l->proxy_fd);
}
