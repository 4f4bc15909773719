/* A server address as a user writes it: ADDR, ADDR:PORT, [V6] or [V6]:PORT (NETWORK_PROXY_DNS). */
#pragma once

#include <stdint.h>

#include "lib/net/net-rules.h"

/* Parses @s, canonical addresses only (cordon_net_addr_parse()); the port defaults to 53.
 * Returns 0, or -EINVAL for anything else (a name, a lenient number, port 0 or above 65535). */
int cordon_net_parse_server(const char *s, struct cordon_net_addr *ret_addr, uint16_t *ret_port);
