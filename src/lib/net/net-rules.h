/* The network rule matcher every mode shares: NETWORK_BLOCKLIST (blocks) and
 * NETWORK_BLOCKLIST_EXCEPT (exceptions) plus the floor that no rule lifts. The proxy asks it per
 * connection (a name first, then every address the name resolved to) and per plain HTTP request
 * (the name and the request's path); the filtered mode's resolver asks it per name and its
 * firewall lowers the address and port rules into nftables rules.
 *
 * Patterns (ASCII only; no spaces or control bytes):
 *   host, host:port            a name, normalised as by cordon_net_name_normalize()
 *   *.suffix, *.suffix:port    names strictly under suffix (not suffix itself)
 *   glob, glob:port            a host glob as bash matches it (net-glob.h): `*` any characters,
 *                              dots included, `?` one ("email.*.example.com", "api-?.example.com",
 *                              "*.s3.*.example.com"); runs of `*` are one; bracket expressions
 *                              ("[ab]") are refused, as is a glob of digits and dots only
 *                              ("10.0.0.*": write a CIDR)
 *   NAME[:port]/path           any of the three above with a URL path ("discord.com/api/webhooks",
 *                              "example.com:8080/upload"): the path and everything under it, on
 *                              a segment boundary (net-path.h); seen in plain HTTP requests only
 *   1.2.3.4, 1.2.3.4:port      a canonical dotted quad (no leading zeros, four parts)
 *   2001:db8::1, [2001:db8::1]:port   IPv6 (brackets only needed with a port)
 *   10.0.0.0/8, 10.0.0.0/8:port       IPv4 CIDR (host bits are cleared)
 *   2001:db8::/32, [2001:db8::]/32:port, [2001:db8::/32]:port   IPv6 CIDR; with a port the
 *                              prefix length goes after the brackets or inside them
 *   port                       a bare port, 1-65535, the same as *:port
 *   *, *:port                  every destination
 * Ports are decimal 1-65535 without sign or leading zeros. IPv4-mapped IPv6 patterns with a
 * prefix of at least 96 (::ffff:a.b.c.d[/n]) become the IPv4 rule they stand for.
 *
 * Precedence, most specific wins. For a name, the host part first: an exact host > host globs
 * (*.suffix among them) > * and bare ports; between two globs the one that fixes more
 * characters (its length without its `*`s; a *.suffix counts its "." too, so a longer suffix
 * beats a shorter one, and "email.*.example.com" beats "*.example.com"); then a rule with a path
 * beats one without and a longer path a shorter one; then one with a port beats one without (so
 * "example.com" beats "*:443" for example.com:443). A path rule matches only a request whose
 * path is seen (cordon_net_rules_check_request()): a block at or under its path in any case of
 * its letters, an exception at or under its path exactly as written. For an address: a longer
 * prefix beats a shorter one; with a port beats without; * and bare ports rank below every
 * CIDR, /0 included. An exception wins over a block of equal specificity; between two rules of
 * the same kind and specificity the first added decides. No matching rule: allowed. The floor
 * is outside this order: a floor rule that matches denies, whatever else matches. The
 * default-blocked ranges are ordinary blocks, so an exception of equal or higher specificity
 * (10.0.0.0/8, 10.1.2.3, 10.0.0.0/8:443) lifts them.
 *
 * Name rules decide for a name; then each address is checked against the address rules, the
 * default-blocked ranges and the floor, and a blocked address is refused even when the name was
 * excepted unless an address exception covers it.
 *
 * Admin tier: rules from the admin baseline (added with cordon_net_rules_add_admin()) are decided
 * among themselves first, below the floor and above every user rule: when the most specific
 * matching admin rule is a block, the connection is refused whatever the user excepted (an
 * admin block `*:18080` is not lifted by a user's `192.0.2.2`, although the address outranks
 * the port). An admin exception that wins there only lets the ordinary order decide.
 *
 * IPv6 forms that carry an IPv4 address (cordon_net_addr_embedded(): IPv4-compatible,
 * IPv4-translated, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32):
 * the address is decided as written and, when allowed, the embedded IPv4 address is decided
 * too (with the same port); either refusal refuses. The floor's names hold for names only: a
 * literal address of the same service is an address like any other.
 *
 * Not thread-safe for writers; a finished set may be read from several threads. Matching is a
 * linear scan (the floor is about a hundred rules; a set holds at most CORDON_NET_RULES_MAX). */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

#define CORDON_NET_NAME_MAX    253   /* a DNS name without its trailing dot */
#define CORDON_NET_PATTERN_MAX 512   /* bytes in one pattern */
#define CORDON_NET_RULES_MAX   16384 /* rules in one set, the built-in ones included */

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
        CORDON_NET_RULE_GLOB,   /* another host glob (`*`, `?` anywhere) */
};

/* One parsed rule. */
struct cordon_net_rule {
        enum cordon_net_rule_kind kind;
        bool exception; /* from NETWORK_BLOCKLIST_EXCEPT */
        bool floor;     /* built in and never liftable */
        bool admin;     /* from the admin baseline: its blocks no user exception lifts */
        uint16_t port;  /* 0: every port */
        char *name; /* HOST: the normalised name; SUFFIX: the suffix without "*."; GLOB: the glob
                     * (lower case, no trailing dot, runs of `*` made one) */
        char *path; /* HOST, SUFFIX, GLOB: the URL path as written without a trailing '/'
                     * ("/api/webhooks"), or NULL */
        struct cordon_net_addr addr; /* CIDR: the network (host bits cleared) */
        unsigned prefix;             /* CIDR: prefix length */
        char *pattern;               /* as written */
        char *origin;                /* where it came from ("built-in floor", "built-in default",
                                      * "command line --block", a file:line, ...) */
};

struct cordon_net_rules;

/* What decided a connection: the rule and the verdict. rule NULL with allow: no rule matched
 * (allowed by default, reason "no rule matched"); rule NULL without allow: the query itself was
 * refused (reason "not a host name" / "not an address"). A floor rule that matched is reported
 * even when a more specific floor rule matched too (the first in the floor's order). */
struct cordon_net_verdict {
        bool allow;
        const struct cordon_net_rule *rule; /* owned by the rule set */
        const char *reason;                 /* static text: "floor: loopback", "blocked by rule",
                                             * "private range (liftable by an exception)", ... */
        /* cordon_net_rules_check_request(): refused because a block with a path (@rule) applies
         * to the host and the request's path cannot be read one way only (@reason says why). */
        bool unclear_path;
};

/* A new rule set holding the floor (loopback, link-local, unspecified, multicast, their
 * IPv4-mapped forms, the SMTP/DoT/r-service ports and the built-in mail, webhook, paste,
 * file-drop and DoH hosts) and the default-blocked ranges (RFC 1918, fc00::/7, 100.64.0.0/10).
 * Returns 0 or -ENOMEM. */
int cordon_net_rules_new(struct cordon_net_rules **ret);
void cordon_net_rules_free(struct cordon_net_rules *r);

/* Parses @pattern and adds it as a block or, with @exception, an exception. A malformed pattern
 * is -EINVAL with @diag naming the pattern and @origin, e.g.
 *   NETWORK_BLOCKLIST entry "127.1" (command line --block): not a canonical IP address
 * (NETWORK_BLOCKLIST_EXCEPT for an exception). More than CORDON_NET_RULES_MAX rules: -E2BIG.
 * Returns 0, -EINVAL, -E2BIG or -ENOMEM. Rule pointers handed out before stay valid. */
int cordon_net_rules_add(struct cordon_net_rules *r, const char *pattern, bool exception,
                         const char *origin, struct cordon_diag *diag);

/* cordon_net_rules_add() for a rule of the admin baseline (the admin tier, above). */
int cordon_net_rules_add_admin(struct cordon_net_rules *r, const char *pattern, bool exception,
                               const char *origin, struct cordon_diag *diag);

/* Parses one pattern into @ret without adding it (its strings owned by @ret; free with
 * cordon_net_rule_clear()). @origin may be NULL. Returns 0, -ENOMEM, or -EINVAL with @diag
 * naming pattern and origin; @ret is set only on success. */
int cordon_net_rule_parse(const char *pattern, bool exception, const char *origin,
                          struct cordon_net_rule *ret, struct cordon_diag *diag);
void cordon_net_rule_clear(struct cordon_net_rule *rule);

/* Whether block @block covers every destination exception @except can allow, so that the
 * exception could lift nothing but @block's own ground (an admin baseline's NETWORK_BLOCKLIST
 * strips such exceptions). `*` covers everything; a name rule (host, `*.suffix`, glob) the name
 * rules whose every name it takes (cordon_net_glob_includes(): `*.suffix` covers the names
 * strictly under suffix and `*.suffix` patterns at or under it, not the suffix itself), and
 * with a path only exceptions at or under that path; a CIDR the addresses and CIDRs inside it
 * (same family). A block with a port covers only exceptions with that port; without one, any
 * port; a bare port (`*:port`) that port on anything. Names and addresses are never compared
 * with each other (a name's addresses are not known here). Thread-safe. */
bool cordon_net_rule_covers(const struct cordon_net_rule *block,
                            const struct cordon_net_rule *except);

/* Whether some destination matches both @a and @b (symmetric): the ports agree (either has
 * none, or the same), and `*` or a bare port is either of them, or both are name rules that can
 * match one name (cordon_net_glob_intersects() of their globs) on one path (either has none,
 * or one path is at or under the other), or both are CIDRs of one family that intersect. A
 * name rule and a CIDR never overlap: a name's addresses are not known here, and an excepted
 * name does not lift an address block (see above). The resolver uses it to find exceptions
 * that lift nothing. Thread-safe. */
bool cordon_net_rule_overlaps(const struct cordon_net_rule *a, const struct cordon_net_rule *b);

/* Whether @pattern is well-formed; on -EINVAL *@ret_reason (may be NULL) is the static reason
 * ("not a canonical IP address", ...) without pattern or origin, for callers that word the
 * message themselves (the NetworkPolicy parser names a JSON pointer). Returns 0 or -EINVAL. */
int cordon_net_pattern_check(const char *pattern, const char **ret_reason);

/* What @pattern means as a block or, with @exception, an exception, in one line of text into
 * @buf (always terminated, cut at @size): the destinations it matches, and the network modes
 * that apply it and where not (a path entry: plain HTTP through the proxy only). Returns the
 * length it would have, or -EINVAL with the parser's message in @buf. Thread-safe. */
int cordon_net_pattern_describe(const char *pattern, bool exception, char *buf, size_t size);

/* The rules in the set, floor and defaults included, in the order they were added (the
 * built-in ones first). Pointers stay valid until the set is freed. */
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
/* Whether the IPv6 address @a carries an IPv4 address a translator, a relay or the kernel may
 * send the packet on to: IPv4-mapped ::ffff:0:0/96 and IPv4-translated ::ffff:0:0:0/96 (the last
 * 32 bits), IPv4-compatible ::/96 (the last 32 bits; :: and ::1 excluded), NAT64 64:ff9b::/96
 * (the last 32 bits) and the local-use 64:ff9b:1::/48 (RFC 8215, RFC 6052's /48 layout: bits
 * 48-63 and 72-87), 6to4 2002::/16 (bits 16-47) and Teredo 2001::/32 (the client: the last 32
 * bits inverted). On true *@ret (may be NULL) is the IPv4 address and *@ret_form (may be NULL)
 * the form's name. An IPv4 @a is none. Thread-safe. */
bool cordon_net_addr_embedded(const struct cordon_net_addr *a, struct cordon_net_addr *ret,
                              const char **ret_form);

/* The embedding forms as data, for the firewall that matches them by payload (nft.c): the
 * prefix, and where the IPv4 address's bits lie in the IPv6 address. */
struct cordon_net_embedding {
        const char *name;
        const char *prefix; /* an IPv6 CIDR */
        unsigned prefix_len;
        uint8_t at[4]; /* the byte of the IPv6 address holding each IPv4 byte */
        bool inverted; /* Teredo stores the client address inverted */
};
extern const struct cordon_net_embedding cordon_net_embeddings[];
extern const size_t cordon_net_n_embeddings;

/* Formats @a into @buf (INET6_ADDRSTRLEN). */
const char *cordon_net_addr_format(const struct cordon_net_addr *a, char *buf, size_t size);

/* Writes @len bytes of @s into @buf for a message inside "...": control bytes, bytes >= 0x80,
 * '"' and '\\' escaped as \xNN / \" / \\, cut with "..." past 160 bytes. Always terminated. */
void cordon_net_quote(char *buf, size_t size, const char *s, size_t len);
#define CORDON_NET_QUOTE_MAX (160 * 4 + 8) /* a buffer size cordon_net_quote() never cuts */

/* Decides a connection to the normalised name @name on @port by the name rules alone (exact,
 * suffix, glob, `*`, port rules, the floor's hosts and ports). @port 0 (unknown) matches no
 * rule with a port. The path of a connection is not seen, so rules with a path take no part:
 * a path block does not block its host, a path exception lifts nothing. An IP literal is not a
 * name: check it with cordon_net_rules_check_addr(). */
void cordon_net_rules_check_name(const struct cordon_net_rules *r, const char *name, uint16_t port,
                                 struct cordon_net_verdict *ret);

/* Decides a plain HTTP request to @name on @port whose target has @len bytes @path after the
 * authority (the path and the query as received; may be empty). Without a rule with a path
 * whose host part and port take the name, the same as cordon_net_rules_check_name(). With one,
 * the path is normalised (cordon_net_path_normalize()) and the rules with a path take part. A
 * path that cannot be normalised matches no rule with a path, and where a block with a path
 * applies to the host it is refused, whatever an exception says (fail closed:
 * @ret->unclear_path, @ret->rule that block, @ret->reason why), unless the name is refused
 * anyway (that verdict is kept). */
void cordon_net_rules_check_request(const struct cordon_net_rules *r, const char *name,
                                    uint16_t port, const char *path, size_t len,
                                    struct cordon_net_verdict *ret);

/* Decides a connection to @addr on @port. @by_name: the address came from resolving a name the
 * name rules allowed, so `*` and bare-port rules (already decided for the name) are not
 * consulted again, only the address rules, the default-blocked ranges and the floor; without
 * it (an IP literal) every rule kind applies. IPv4-mapped IPv6 addresses are checked as IPv4;
 * other forms that embed an IPv4 address are checked as written and as the embedded address. */
void cordon_net_rules_check_addr(const struct cordon_net_rules *r,
                                 const struct cordon_net_addr *addr, uint16_t port, bool by_name,
                                 struct cordon_net_verdict *ret);
