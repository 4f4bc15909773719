/* What a NETWORK_BLOCKLIST or NETWORK_BLOCKLIST_EXCEPT entry means, in one line for a person:
 * what it matches, and in which network mode it is applied and where not (the settings' item
 * description, cordon_settings_describe_item()). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/net/net-rules.h"

/* The destinations @r matches, into @buf. */
static void what(const struct cordon_net_rule *r, char *buf, size_t size)
{
        char port[32] = "", addr[INET6_ADDRSTRLEN];
        if (r->port)
                snprintf(port, sizeof(port), " on port %u", (unsigned)r->port);
        switch (r->kind) {
        case CORDON_NET_RULE_ANY:
                snprintf(buf, size, "every destination%s", port);
                break;
        case CORDON_NET_RULE_PORT:
                snprintf(buf, size, "port %u of every destination", (unsigned)r->port);
                break;
        case CORDON_NET_RULE_HOST:
                snprintf(buf, size, "the host name %s%s", r->name, port);
                break;
        case CORDON_NET_RULE_SUFFIX:
                snprintf(buf, size, "the host names under %s (not %s itself)%s", r->name, r->name,
                         port);
                break;
        case CORDON_NET_RULE_GLOB:
                snprintf(buf, size,
                         "the host names that match %s (\"*\" any characters, dots included; "
                         "\"?\" one)%s",
                         r->name, port);
                break;
        case CORDON_NET_RULE_CIDR: {
                unsigned bits = r->addr.family == AF_INET ? 32 : 128;
                cordon_net_addr_format(&r->addr, addr, sizeof(addr));
                if (r->prefix == bits)
                        snprintf(buf, size, "the address %s%s", addr, port);
                else
                        snprintf(buf, size, "the addresses in %s/%u%s", addr, r->prefix, port);
                break;
        }
        }
}

int cordon_net_pattern_describe(const char *pattern, bool exception, char *buf, size_t size)
{
        struct cordon_net_rule r;
        struct cordon_diag diag = {0};
        int k = cordon_net_rule_parse(pattern, exception, NULL, &r, &diag);
        if (k < 0) {
                snprintf(buf, size, "%s", diag.message);
                return k;
        }
        char dest[CORDON_NET_PATTERN_MAX + 160];
        what(&r, dest, sizeof(dest));
        const char *verb = exception ? "lifts the blocks of" : "blocks";
        int n;
        if (r.path)
                /* A path is seen in a plain HTTP request to the proxy only. */
                n = snprintf(buf, size,
                             "%s plain HTTP requests to %s whose path is %s or under it (%s), in "
                             "proxied mode only; HTTPS and other tunnels (CONNECT, SOCKS5) and "
                             "filtered mode do not show the path, and there this entry %s",
                             verb, dest, r.path,
                             exception ? "exactly as written" : "any case of its letters",
                             exception ? "lifts nothing" : "does not block the host");
        else if (r.kind == CORDON_NET_RULE_HOST || r.kind == CORDON_NET_RULE_SUFFIX ||
                 r.kind == CORDON_NET_RULE_GLOB)
                n = snprintf(buf, size,
                             "%s %s, applied in proxied mode to connections by name, in filtered "
                             "mode to the names the sandbox's resolver answers (not to "
                             "connections by address)",
                             verb, dest);
        else
                n = snprintf(buf, size, "%s %s, in filtered and proxied mode", verb, dest);
        cordon_net_rule_clear(&r);
        return n < 0 ? -EINVAL : n;
}
