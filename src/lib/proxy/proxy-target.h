/* Where a proxy client wants to go: a normalised host name or a canonical IP literal, and a
 * port. Shared by the HTTP and SOCKS5 parsers; pure (no I/O), thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/net/net-rules.h"

struct cordon_proxy_target {
        char host[CORDON_NET_NAME_MAX + 1]; /* the normalised name, or the address formatted */
        bool is_addr;                       /* an IP literal: @addr holds it */
        struct cordon_net_addr addr;
        uint16_t port;
};

/* Parses a host of @len bytes: `[v6]` (only when @brackets), a canonical IPv4 or (without
 * brackets, only when !@brackets) IPv6 literal, or a name normalised by
 * cordon_net_name_normalize() (which refuses lenient numeric forms such as "127.1"). The port
 * is left alone. Returns 0 or -EINVAL. */
int cordon_proxy_target_set_host(struct cordon_proxy_target *t, const char *s, size_t len,
                                 bool brackets);

/* Parses a decimal port of @len bytes, 1..65535, digits only. Returns 0 or -EINVAL. */
int cordon_proxy_port_parse(const char *s, size_t len, uint16_t *ret);

/* Parses an authority `host[:port]` (`[v6][:port]` for IPv6). Without a port, @default_port
 * is used, or the authority is refused when @default_port is 0. Returns 0 or -EINVAL. */
int cordon_proxy_target_parse_authority(const char *s, size_t len, uint16_t default_port,
                                        struct cordon_proxy_target *ret);

/* Whether two targets name the same host and port. */
bool cordon_proxy_target_equal(const struct cordon_proxy_target *a,
                               const struct cordon_proxy_target *b);
