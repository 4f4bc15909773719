/* Network and UTS namespaces. */
#pragma once

#include <stdint.h>

/* Child side: brings the loopback interface of the current network namespace up. */
int cordon_ns_net_loopback_up(void);
/* Child side, after the loopback is up: a listening TCP socket on 127.0.0.1:@port of the current
 * network namespace, close-on-exec, for the supervisor to serve from outside. Returns the fd or
 * -errno. No allocation. */
int cordon_ns_net_listen_loopback(uint16_t port);
/* Child side, after the loopback is up: a non-blocking UDP socket bound to @addr (IPv4 text) and
 * @port of the current network namespace, close-on-exec (the filtered mode's resolver). Returns
 * the fd or -errno. No allocation. */
int cordon_ns_net_bind_udp(const char *addr, uint16_t port);
/* Child side: sets the hostname of the current UTS namespace. */
int cordon_ns_uts_set_hostname(const char *name);
