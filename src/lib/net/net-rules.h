/* The network rule matcher every mode shares: NETWORK_BLOCKLIST (blocks) and
 * NETWORK_BLOCKLIST_EXCEPT (exceptions) plus the floor that no rule lifts. The proxy asks it per
 * connection (a name first, then every address the name resolved to); the filtered mode lowers
 * its address and port rules into nftables rules.
 *
 * Patterns: `host`, `*.suffix`, `host:port`, an IPv4/IPv6 address (`[v6]:port` with a port),
 * `CIDR`, `CIDR:port`, a bare port, `*`. Most specific wins: exact host > longer `*.suffix` >
 * shorter > `*`; with a port > without; longer prefix > shorter. An exception wins over a block
 * of equal specificity. Name rules decide for a name; then each address is checked against the
 * address rules, the default-blocked ranges and the floor, and a blocked address is refused even
 * when the name was excepted unless an address exception covers it.
 *
 * Not thread-safe for writers; a finished set may be read from several threads. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

#define CORDON_NET_NAME_MAX 253 /* a DNS name without its trailing dot */

/* An address, IPv4 kept as such (not mapped). */
struct cordon_net_addr {
        int family; /* AF_INET or AF_INET6 */
        union {
                struct in_addr v4;
                struct in6_addr v6;
        };
};

enum cordon_net_rule_kind {
        CORDON_NET_RULE_ANY,    /* `*` (with a port: `*:port`, same as a bare port) */
        CORDON_NET_RULE_PORT,   /* a bare port */
        CORDON_NET_RULE_HOST,   /* an exact name */
        CORDON_NET_RULE_SUFFIX, /* `*.suffix` (matches names under it, not the suffix itself) */
        CORDON_NET_RULE_CIDR,   /* an address (a full-length prefix) or a CIDR */
};

/* One parsed rule. */
struct cordon_net_rule {
        enum cordon_net_rule_kind kind;
        bool exception; /* from NETWORK_BLOCKLIST_EXCEPT */
        bool floor;     /* built in and never liftable */
        uint16_t port;  /* 0: every port */
        char *name;     /* HOST: the normalised name; SUFFIX: the suffix without "*." */
        struct cordon_net_addr addr; /* CIDR: the network (host bits cleared) */
        unsigned prefix;             /* CIDR: prefix length */
        char *pattern;               /* as written */
        char *origin;                /* where it came from ("NETWORK_BLOCKLIST built-in floor",
                                      * "command line --block", a file:line, ...) */
};

struct cordon_net_rules;

/* What decided a connection: the rule (NULL: no rule matched, allowed by default) and verdict. */
struct cordon_net_verdict {
        bool allow;
        const struct cordon_net_rule *rule; /* owned by the rule set */
        const char *reason;                 /* static text: "floor: loopback", "blocked by rule",
                                             * "private range (liftable by an exception)", ... */
};

/* A new rule set holding the floor (loopback, link-local, unspecified, multicast, their
 * IPv4-mapped forms, the SMTP/DoT/r-service ports and the built-in mail, webhook, paste,
 * file-drop and DoH hosts) and the default-blocked ranges (RFC 1918, fc00::/7, 100.64.0.0/10).
 * Returns 0 or -ENOMEM. */
int cordon_net_rules_new(struct cordon_net_rules **ret);
void cordon_net_rules_free(struct cordon_net_rules *r);

/* Parses @pattern and adds it as a block or, with @exception, an exception. A malformed pattern
 * is -EINVAL with @diag naming the pattern and @origin. Returns 0 or -errno. */
int cordon_net_rules_add(struct cordon_net_rules *r, const char *pattern, bool exception,
                         const char *origin, struct cordon_diag *diag);

/* Parses one pattern into @ret without adding it (its strings owned by @ret; free with
 * cordon_net_rule_clear()). Returns 0 or -EINVAL with @diag naming pattern and origin. */
int cordon_net_rule_parse(const char *pattern, bool exception, const char *origin,
                          struct cordon_net_rule *ret, struct cordon_diag *diag);
void cordon_net_rule_clear(struct cordon_net_rule *rule);

/* The rules in the set, floor and defaults included, in the order they were added. */
size_t cordon_net_rules_count(const struct cordon_net_rules *r);
const struct cordon_net_rule *cordon_net_rules_get(const struct cordon_net_rules *r, size_t i);

/* Normalises a host name of @len bytes (not NUL-terminated necessarily) into @out (at least
 * CORDON_NET_NAME_MAX + 1 bytes): lowercase, one trailing dot removed. Refuses (-EINVAL) NUL and
 * control bytes, spaces, empty labels, labels over 63 bytes, names over 253, bytes >= 0x80 (IDN
 * only as punycode), and names that are IP literals in any lenient form ("127.1", "2130706433",
 * "0x7f000001", "0177.0.0.1"): those are not names. */
int cordon_net_name_normalize(const char *name, size_t len, char *out);

/* Parses a canonical IP literal (dotted-quad IPv4 without leading zeros, or IPv6 as inet_pton
 * takes it, without brackets or zone). Returns 0, -EINVAL for anything else. */
int cordon_net_addr_parse(const char *s, struct cordon_net_addr *ret);
/* Formats @a into @buf (INET6_ADDRSTRLEN). */
const char *cordon_net_addr_format(const struct cordon_net_addr *a, char *buf, size_t size);

/* Decides a connection to the normalised name @name on @port by the name rules alone (exact,
 * suffix, `*`, port rules, the floor's hosts and ports). */
void cordon_net_rules_check_name(const struct cordon_net_rules *r, const char *name, uint16_t port,
                                 struct cordon_net_verdict *ret);

/* Decides a connection to @addr on @port. @by_name: the address came from resolving a name the
 * name rules allowed, so `*` and bare-port rules (already decided for the name) are not
 * consulted again, only the address rules, the default-blocked ranges and the floor; without
 * it (an IP literal) every rule kind applies. IPv4-mapped IPv6 addresses are checked as IPv4. */
void cordon_net_rules_check_addr(const struct cordon_net_rules *r,
                                 const struct cordon_net_addr *addr, uint16_t port, bool by_name,
                                 struct cordon_net_verdict *ret);
