/* The network rule matcher: parses NETWORK_BLOCKLIST / NETWORK_BLOCKLIST_EXCEPT patterns,
 * normalises names and decides connections by the most specific matching rule, below the floor
 * (see net-rules.h for the syntax and the precedence; net-rules-floor.c for the built-ins). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/net-rules-floor.h"
#include "lib/net/net-rules.h"
#include "lib/policy/diag.h"
#include "shared/macro.h"

#define QUOTE_CUT 160

/* A rule and, for the built-in ones, the reason a verdict gives. Allocated one by one so that
 * rule pointers survive later additions. */
struct entry {
        struct cordon_net_rule rule;
        const char *reason; /* NULL for user rules */
};

struct cordon_net_rules {
        struct entry **v;
        size_t n, cap;
};

static const char R_NONE[] = "no rule matched";
static const char R_BLOCK[] = "blocked by rule";
static const char R_EXCEPT[] = "allowed by exception";
static const char R_ADMIN[] = "blocked by an admin rule (no exception lifts it)";

void cordon_net_quote(char *buf, size_t size, const char *s, size_t len)
{
        static const char hex[] = "0123456789abcdef";
        size_t o = 0;
        if (size == 0)
                return;
        bool cut = len > QUOTE_CUT;
        if (cut)
                len = QUOTE_CUT;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)s[i];
                char t[4];
                size_t k = 0;
                if (c < 0x20 || c >= 0x7f) {
                        t[k++] = '\\';
                        t[k++] = 'x';
                        t[k++] = hex[c >> 4];
                        t[k++] = hex[c & 15];
                } else if (c == '"' || c == '\\') {
                        t[k++] = '\\';
                        t[k++] = (char)c;
                } else
                        t[k++] = (char)c;
                if (o + k + 4 > size) { /* keep room for "..." and the NUL */
                        cut = true;
                        break;
                }
                memcpy(buf + o, t, k);
                o += k;
        }
        if (cut && o + 4 <= size) {
                memcpy(buf + o, "...", 3);
                o += 3;
        }
        buf[o] = 0;
}

/* ---- addresses ---- */

/* A dotted quad: four decimal parts 0-255, no sign, no leading zeros. inet_aton's other forms
 * ("127.1", "2130706433", "0x7f000001", "0177.0.0.1") are refused, never read leniently. */
static int parse_v4(const char *s, struct in_addr *ret)
{
        uint32_t a = 0;
        for (int part = 0; part < 4; part++) {
                if (part > 0) {
                        if (*s != '.')
                                return -EINVAL;
                        s++;
                }
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                unsigned v = 0;
                int digits = 0;
                const char *start = s;
                while (*s >= '0' && *s <= '9') {
                        v = v * 10 + (unsigned)(*s - '0');
                        if (++digits > 3)
                                return -EINVAL;
                        s++;
                }
                if (v > 255 || (digits > 1 && *start == '0'))
                        return -EINVAL;
                a = a << 8 | v;
        }
        if (*s)
                return -EINVAL;
        ret->s_addr = htonl(a);
        return 0;
}

int cordon_net_addr_parse(const char *s, struct cordon_net_addr *ret)
{
        struct cordon_net_addr a = {0};
        if (!s)
                return -EINVAL;
        if (strchr(s, ':')) {
                /* glibc's inet_pton refuses zones, and leading zeros in an embedded quad. */
                if (strlen(s) >= INET6_ADDRSTRLEN || inet_pton(AF_INET6, s, &a.v6) != 1)
                        return -EINVAL;
                a.family = AF_INET6;
        } else {
                if (parse_v4(s, &a.v4) < 0)
                        return -EINVAL;
                a.family = AF_INET;
        }
        *ret = a;
        return 0;
}

const char *cordon_net_addr_format(const struct cordon_net_addr *a, char *buf, size_t size)
{
        if (size == 0)
                return buf;
        if (!a || (a->family != AF_INET && a->family != AF_INET6) ||
            !inet_ntop(a->family,
                       a->family == AF_INET ? (const void *)&a->v4 : (const void *)&a->v6, buf,
                       (socklen_t)size))
                snprintf(buf, size, "?");
        return buf;
}

/* ::ffff:a.b.c.d becomes a.b.c.d: the kernel sends it to the IPv4 address. */
static void addr_unmap(struct cordon_net_addr *a)
{
        if (a->family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&a->v6))
                return;
        struct in_addr v4;
        memcpy(&v4, &a->v6.s6_addr[12], 4);
        a->family = AF_INET;
        a->v4 = v4;
}

static const uint8_t *addr_bytes(const struct cordon_net_addr *a)
{
        return a->family == AF_INET ? (const uint8_t *)&a->v4 : a->v6.s6_addr;
}

static unsigned addr_bits(int family)
{
        return family == AF_INET ? 32 : 128;
}

/* Whether the first @prefix bits of @a and @b agree (same family assumed). */
static bool prefix_equal(const struct cordon_net_addr *a, const struct cordon_net_addr *b,
                         unsigned prefix)
{
        const uint8_t *x = addr_bytes(a), *y = addr_bytes(b);
        unsigned full = prefix / 8, rest = prefix % 8;
        if (memcmp(x, y, full) != 0)
                return false;
        if (rest == 0)
                return true;
        uint8_t mask = (uint8_t)(0xff << (8 - rest));
        return ((x[full] ^ y[full]) & mask) == 0;
}

static void clear_host_bits(struct cordon_net_addr *a, unsigned prefix)
{
        uint8_t *x = a->family == AF_INET ? (uint8_t *)&a->v4 : a->v6.s6_addr;
        unsigned n = addr_bits(a->family) / 8;
        for (unsigned i = 0; i < n; i++) {
                if (prefix >= (i + 1) * 8)
                        continue;
                if (prefix <= i * 8)
                        x[i] = 0;
                else
                        x[i] &= (uint8_t)(0xff << (8 - (prefix - i * 8)));
        }
}

/* ---- names ---- */

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A label inet_aton would read as a number: decimal (octal with a leading 0) or 0x-hex. A name
 * whose last label is one is an address in disguise ("127.1", "0x7f000001"), not a host name. */
static bool label_is_numeric(const char *s, size_t len)
{
        if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                for (size_t i = 2; i < len; i++)
                        if (!is_hex(s[i]))
                                return false;
                return true;
        }
        for (size_t i = 0; i < len; i++)
                if (!is_digit(s[i]))
                        return false;
        return len > 0;
}

/* cordon_net_name_normalize() with the reason for a refusal. */
static int name_normalize(const char *name, size_t len, char *out, const char **ret_reason)
{
        const char *why = NULL;
        if (len > 0 && name[len - 1] == '.')
                len--; /* one trailing dot: the root, the same name */
        if (len == 0)
                why = "empty host name";
        else if (len > CORDON_NET_NAME_MAX)
                why = "host name longer than 253 bytes";
        for (size_t i = 0; !why && i < len; i++) {
                unsigned char c = (unsigned char)name[i];
                if (c == 0 || c < 0x20 || c == 0x7f || c == ' ')
                        why = "NUL, control byte or space in host name";
                else if (c >= 0x80)
                        why = "non-ASCII byte in host name (IDN only as punycode)";
                else if (!(c == '.' || c == '-' || c == '_' || is_digit((char)c) ||
                           (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                        why = "character not allowed in a host name (letters, digits, '-', '_')";
        }
        size_t label = 0, last = 0;
        for (size_t i = 0; !why && i <= len; i++) {
                if (i == len || name[i] == '.') {
                        if (i == label)
                                why = "empty label in host name";
                        else if (i - label > 63)
                                why = "label longer than 63 bytes in host name";
                        last = label;
                        label = i + 1;
                }
        }
        if (!why && label_is_numeric(name + last, len - last))
                why = "not a canonical IP address";
        if (why) {
                if (ret_reason)
                        *ret_reason = why;
                return -EINVAL;
        }
        for (size_t i = 0; i < len; i++) {
                char c = name[i];
                out[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
        }
        out[len] = 0;
        return 0;
}

int cordon_net_name_normalize(const char *name, size_t len, char *out)
{
        if (!name || !out)
                return -EINVAL;
        return name_normalize(name, len, out, NULL);
}

/* ---- patterns ---- */

/* A port: decimal 1-65535, no sign, no leading zeros. */
static const char *parse_port(const char *s, size_t len, uint16_t *ret)
{
        if (len == 0)
                return "empty port";
        for (size_t i = 0; i < len; i++)
                if (!is_digit(s[i]))
                        return "port is not a decimal number";
        if (s[0] == '0')
                return len == 1 ? "port out of range (1-65535)" : "port with a leading zero";
        if (len > 5)
                return "port out of range (1-65535)";
        unsigned v = 0;
        for (size_t i = 0; i < len; i++)
                v = v * 10 + (unsigned)(s[i] - '0');
        if (v > 65535)
                return "port out of range (1-65535)";
        *ret = (uint16_t)v;
        return NULL;
}

/* An address or ADDR/LEN of @family (0: either) into @rule as a CIDR rule. */
static const char *parse_cidr(const char *s, size_t len, int family, struct cordon_net_rule *rule)
{
        char buf[INET6_ADDRSTRLEN + 8];
        if (len >= sizeof(buf))
                return "not a canonical IP address";
        memcpy(buf, s, len);
        buf[len] = 0;
        char *slash = strchr(buf, '/');
        if (slash)
                *slash = 0;
        struct cordon_net_addr a;
        if (cordon_net_addr_parse(buf, &a) < 0 || (family && a.family != family))
                return family == AF_INET6 ? "not a canonical IPv6 address"
                                          : "not a canonical IP address";
        unsigned bits = addr_bits(a.family), prefix = bits;
        if (slash) {
                const char *p = slash + 1;
                size_t n = strlen(p);
                if (n == 0 || n > 3 || (n > 1 && p[0] == '0'))
                        return "malformed CIDR prefix length";
                prefix = 0;
                for (size_t i = 0; i < n; i++) {
                        if (!is_digit(p[i]))
                                return "malformed CIDR prefix length";
                        prefix = prefix * 10 + (unsigned)(p[i] - '0');
                }
                if (prefix > bits)
                        return a.family == AF_INET ? "CIDR prefix length out of range (0-32)"
                                                   : "CIDR prefix length out of range (0-128)";
        }
        /* ::ffff:0:0/96 and below: the IPv4 rule it stands for, so that it matches the mapped
         * addresses that the matcher checks as IPv4. */
        if (a.family == AF_INET6 && prefix >= 96 && IN6_IS_ADDR_V4MAPPED(&a.v6)) {
                addr_unmap(&a);
                prefix -= 96;
        }
        clear_host_bits(&a, prefix);
        rule->kind = CORDON_NET_RULE_CIDR;
        rule->addr = a;
        rule->prefix = prefix;
        return NULL;
}

static bool all_digits(const char *s, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (!is_digit(s[i]))
                        return false;
        return len > 0;
}

/* The host part of a host[:port] pattern (no brackets): CIDR, IPv4, *.suffix or a name.
 * @name receives the normalised name or suffix. */
static const char *parse_host(const char *h, size_t len, bool has_port,
                              struct cordon_net_rule *rule, char *name)
{
        const char *why = NULL;
        if (len == 0)
                return "empty host";
        if (memchr(h, '/', len))
                return parse_cidr(h, len, AF_INET, rule);
        if (all_digits(h, len)) {
                if (has_port || len > 5)
                        return "not a canonical IP address";
                rule->kind = CORDON_NET_RULE_PORT;
                return parse_port(h, len, &rule->port);
        }
        if (!parse_cidr(h, len, AF_INET, rule))
                return NULL;
        if (len >= 2 && h[0] == '*' && h[1] == '.') {
                if (memchr(h + 2, '*', len - 2))
                        return "a wildcard is allowed only as \"*\" or a leading \"*.\"";
                if (name_normalize(h + 2, len - 2, name, &why) < 0)
                        return why;
                /* "*.x." is "*.x", but "*." is nothing. */
                rule->kind = CORDON_NET_RULE_SUFFIX;
                return NULL;
        }
        if (memchr(h, '*', len))
                return "a wildcard is allowed only as \"*\" or a leading \"*.\"";
        if (name_normalize(h, len, name, &why) < 0)
                return why;
        rule->kind = CORDON_NET_RULE_HOST;
        return NULL;
}

/* Parses @p into @rule (kind, port, addr, prefix) and @name; the reason on failure. */
static const char *parse_pattern(const char *p, struct cordon_net_rule *rule, char *name)
{
        size_t len = strlen(p);
        *rule = (struct cordon_net_rule){0};
        name[0] = 0;
        if (len == 0)
                return "empty pattern";
        if (len > CORDON_NET_PATTERN_MAX)
                return "pattern longer than 512 bytes";
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)p[i];
                if (c <= ' ' || c == 0x7f)
                        return "control byte or space in pattern";
                if (c >= 0x80)
                        return "non-ASCII byte in pattern (IDN only as punycode)";
        }

        if (p[0] == '*' && (p[1] == 0 || p[1] == ':')) {
                rule->kind = CORDON_NET_RULE_ANY;
                return p[1] ? parse_port(p + 2, len - 2, &rule->port) : NULL;
        }

        if (p[0] == '[') {
                const char *close = strchr(p, ']');
                if (!close)
                        return "\"[\" without \"]\"";
                const char *why = parse_cidr(p + 1, (size_t)(close - p - 1), AF_INET6, rule);
                if (why)
                        return why;
                if (close[1] == 0)
                        return NULL;
                if (close[1] == '/')
                        return "an IPv6 CIDR with a port is written [ADDRESS/LENGTH]:PORT";
                if (close[1] != ':')
                        return "expected \":PORT\" after \"]\"";
                return parse_port(close + 2, strlen(close + 2), &rule->port);
        }

        const char *colon = strchr(p, ':');
        if (colon && strchr(colon + 1, ':')) {
                if (strchr(p, ']'))
                        return "\"]\" without \"[\"";
                /* Two colons or more: IPv6 (or a v6 CIDR), no port without brackets. */
                return parse_cidr(p, len, AF_INET6, rule);
        }
        size_t hlen = colon ? (size_t)(colon - p) : len;
        const char *why = parse_host(p, hlen, colon != NULL, rule, name);
        if (why)
                return why;
        return colon ? parse_port(colon + 1, len - hlen - 1, &rule->port) : NULL;
}

int cordon_net_pattern_check(const char *pattern, const char **ret_reason)
{
        struct cordon_net_rule rule;
        char name[CORDON_NET_PATTERN_MAX + 1];
        const char *why = pattern ? parse_pattern(pattern, &rule, name) : "empty pattern";
        if (!why)
                return 0;
        if (ret_reason)
                *ret_reason = why;
        return -EINVAL;
}

static char *strdup_or_null(const char *s)
{
        return s ? strdup(s) : NULL;
}

int cordon_net_rule_parse(const char *pattern, bool exception, const char *origin,
                          struct cordon_net_rule *ret, struct cordon_diag *diag)
{
        struct cordon_net_rule rule;
        char name[CORDON_NET_PATTERN_MAX + 1];
        const char *why = pattern ? parse_pattern(pattern, &rule, name) : "empty pattern";
        if (why) {
                char q[CORDON_NET_QUOTE_MAX];
                cordon_net_quote(q, sizeof(q), strempty(pattern), strlen(strempty(pattern)));
                return cordon_diag_set(diag, -EINVAL, "%s entry \"%s\"%s%s%s: %s",
                                       exception ? "NETWORK_BLOCKLIST_EXCEPT" : "NETWORK_BLOCKLIST",
                                       q, origin ? " (" : "", strempty(origin), origin ? ")" : "",
                                       why);
        }
        rule.exception = exception;
        rule.pattern = strdup(pattern);
        rule.origin = strdup_or_null(origin);
        if (rule.kind == CORDON_NET_RULE_HOST || rule.kind == CORDON_NET_RULE_SUFFIX)
                rule.name = strdup(name);
        if (!rule.pattern || (origin && !rule.origin) ||
            ((rule.kind == CORDON_NET_RULE_HOST || rule.kind == CORDON_NET_RULE_SUFFIX) &&
             !rule.name)) {
                cordon_net_rule_clear(&rule);
                return -ENOMEM;
        }
        *ret = rule;
        return 0;
}

void cordon_net_rule_clear(struct cordon_net_rule *rule)
{
        if (!rule)
                return;
        free(rule->name);
        free(rule->pattern);
        free(rule->origin);
        rule->name = rule->pattern = rule->origin = NULL;
}

/* ---- the set ---- */

static int push(struct cordon_net_rules *r, struct entry *e)
{
        if (r->n >= CORDON_NET_RULES_MAX)
                return -E2BIG;
        if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 128;
                struct entry **v = realloc(r->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                r->v = v;
                r->cap = cap;
        }
        r->v[r->n++] = e;
        return 0;
}

static int add(struct cordon_net_rules *r, const char *pattern, bool exception, const char *origin,
               bool floor, bool admin, const char *reason, struct cordon_diag *diag)
{
        if (r->n >= CORDON_NET_RULES_MAX)
                return cordon_diag_set(diag, -E2BIG, "%s: more than %d rules (the limit)",
                                       exception ? "NETWORK_BLOCKLIST_EXCEPT" : "NETWORK_BLOCKLIST",
                                       CORDON_NET_RULES_MAX);
        struct entry *e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        int ret = cordon_net_rule_parse(pattern, exception, origin, &e->rule, diag);
        if (ret < 0) {
                free(e);
                return ret;
        }
        e->rule.floor = floor;
        e->rule.admin = admin;
        e->reason = reason;
        ret = push(r, e);
        if (ret < 0) {
                cordon_net_rule_clear(&e->rule);
                free(e);
        }
        return ret;
}

int cordon_net_rules_new(struct cordon_net_rules **ret)
{
        struct cordon_net_rules *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        for (size_t i = 0; i < cordon_net_n_builtins; i++) {
                const struct cordon_net_builtin *b = &cordon_net_builtins[i];
                int k = add(r, b->pattern, false,
                            b->floor ? CORDON_NET_ORIGIN_FLOOR : CORDON_NET_ORIGIN_DEFAULT,
                            b->floor, false, b->reason, NULL);
                if (k < 0) {
                        cordon_net_rules_free(r);
                        /* Only allocation can fail: the unit tests parse every built-in. */
                        return k == -ENOMEM ? k : -EINVAL;
                }
        }
        *ret = r;
        return 0;
}

void cordon_net_rules_free(struct cordon_net_rules *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n; i++) {
                cordon_net_rule_clear(&r->v[i]->rule);
                free(r->v[i]);
        }
        free(r->v);
        free(r);
}

int cordon_net_rules_add(struct cordon_net_rules *r, const char *pattern, bool exception,
                         const char *origin, struct cordon_diag *diag)
{
        if (!r)
                return -EINVAL;
        return add(r, pattern, exception, origin, false, false, NULL, diag);
}

int cordon_net_rules_add_admin(struct cordon_net_rules *r, const char *pattern, bool exception,
                               const char *origin, struct cordon_diag *diag)
{
        if (!r)
                return -EINVAL;
        return add(r, pattern, exception, origin, false, true, NULL, diag);
}

size_t cordon_net_rules_count(const struct cordon_net_rules *r)
{
        return r ? r->n : 0;
}

const struct cordon_net_rule *cordon_net_rules_get(const struct cordon_net_rules *r, size_t i)
{
        return r && i < r->n ? &r->v[i]->rule : NULL;
}

/* ---- matching ---- */

static bool port_matches(const struct cordon_net_rule *rule, uint16_t port)
{
        return rule->port == 0 || rule->port == port;
}

/* Whether @name lies strictly under @suffix. */
static bool name_under(const char *name, const char *suffix)
{
        size_t n = strlen(name), s = strlen(suffix);
        return n > s + 1 && name[n - s - 1] == '.' && streq(name + n - s, suffix);
}

/* The rank of @rule for @name on @port, or -1 when it does not match. Host part first (exact >
 * longer suffix > shorter suffix > * and bare ports), then with a port > without. */
static long name_rank(const struct cordon_net_rule *rule, const char *name, uint16_t port)
{
        if (!port_matches(rule, port))
                return -1;
        long has_port = rule->port != 0;
        switch (rule->kind) {
        case CORDON_NET_RULE_ANY:
        case CORDON_NET_RULE_PORT:
                return has_port;
        case CORDON_NET_RULE_SUFFIX:
                if (!name_under(name, rule->name))
                        return -1;
                return 1L << 16 | (long)strlen(rule->name) << 1 | has_port;
        case CORDON_NET_RULE_HOST:
                if (!streq(name, rule->name))
                        return -1;
                return 2L << 16 | has_port;
        case CORDON_NET_RULE_CIDR:
                break;
        }
        return -1;
}

/* The rank of @rule for @addr (unmapped) on @port, or -1. Every CIDR (/0 included) > * and bare
 * ports; then the longer prefix; then with a port > without. */
static long addr_rank(const struct cordon_net_rule *rule, const struct cordon_net_addr *addr,
                      uint16_t port, bool by_name)
{
        if (!port_matches(rule, port))
                return -1;
        long has_port = rule->port != 0;
        switch (rule->kind) {
        case CORDON_NET_RULE_ANY:
        case CORDON_NET_RULE_PORT:
                /* For a resolved name these were decided with the name; the floor's ports are
                 * checked again all the same (they are never liftable, so nothing changes). */
                return by_name && !rule->floor ? -1 : has_port;
        case CORDON_NET_RULE_CIDR:
                if (rule->addr.family != addr->family ||
                    !prefix_equal(&rule->addr, addr, rule->prefix))
                        return -1;
                return 1L << 16 | (long)rule->prefix << 1 | has_port;
        case CORDON_NET_RULE_HOST:
        case CORDON_NET_RULE_SUFFIX:
                break;
        }
        return -1;
}

static void decide(const struct entry *best, struct cordon_net_verdict *ret)
{
        if (!best) {
                *ret = (struct cordon_net_verdict){.allow = true, .reason = R_NONE};
                return;
        }
        ret->rule = &best->rule;
        ret->allow = best->rule.exception && !best->rule.floor;
        if (best->reason)
                ret->reason = best->reason;
        else if (best->rule.admin && !ret->allow)
                ret->reason = R_ADMIN;
        else
                ret->reason = ret->allow ? R_EXCEPT : R_BLOCK;
}

struct query {
        const char *name;                   /* check_name */
        const struct cordon_net_addr *addr; /* check_addr, unmapped */
        uint16_t port;
        bool by_name;
};

static long rank(const struct cordon_net_rule *rule, const struct query *q)
{
        return q->name ? name_rank(rule, q->name, q->port)
                       : addr_rank(rule, q->addr, q->port, q->by_name);
}

/* Whether @e (of rank @k) beats the best so far: a higher rank, or an exception tying a block
 * (the first added wins among equals). */
static bool beats(const struct entry *e, long k, const struct entry *best, long best_rank)
{
        return k > best_rank || (k == best_rank && e->rule.exception && !best->rule.exception);
}

/* The deciding entry: a matching floor rule, whatever its rank; else an admin block that wins
 * among the admin rules (the admin tier); else the highest rank over all rules. NULL: none. */
static const struct entry *pick(const struct cordon_net_rules *r, const struct query *q)
{
        const struct entry *best = NULL, *admin = NULL;
        long best_rank = -1, admin_rank = -1;
        for (size_t i = 0; i < r->n; i++) {
                const struct entry *e = r->v[i];
                long k = rank(&e->rule, q);
                if (k < 0)
                        continue;
                if (e->rule.floor)
                        return e;
                if (e->rule.admin && beats(e, k, admin, admin_rank)) {
                        admin = e;
                        admin_rank = k;
                }
                if (beats(e, k, best, best_rank)) {
                        best = e;
                        best_rank = k;
                }
        }
        return admin && !admin->rule.exception ? admin : best;
}

void cordon_net_rules_check_name(const struct cordon_net_rules *r, const char *name, uint16_t port,
                                 struct cordon_net_verdict *ret)
{
        /* Normalised again: a caller's slip (an uppercase letter, a trailing dot) must not
         * slide past an exact rule, and what is not a name is refused. */
        char n[CORDON_NET_NAME_MAX + 1];
        if (!r || !name || name_normalize(name, strlen(name), n, NULL) < 0) {
                *ret = (struct cordon_net_verdict){.allow = false, .reason = "not a host name"};
                return;
        }
        decide(pick(r, &(struct query){.name = n, .port = port}), ret);
}

void cordon_net_rules_check_addr(const struct cordon_net_rules *r,
                                 const struct cordon_net_addr *addr, uint16_t port, bool by_name,
                                 struct cordon_net_verdict *ret)
{
        if (!r || !addr || (addr->family != AF_INET && addr->family != AF_INET6)) {
                *ret = (struct cordon_net_verdict){.allow = false, .reason = "not an address"};
                return;
        }
        struct cordon_net_addr a = *addr, v4;
        addr_unmap(&a);
        decide(pick(r, &(struct query){.addr = &a, .port = port, .by_name = by_name}), ret);
        /* The IPv4 address a NAT64, 6to4 or Teredo form carries must pass on its own too: a
         * translator or relay delivers the connection there. */
        if (ret->allow && cordon_net_addr_embedded(&a, &v4, NULL)) {
                struct cordon_net_verdict inner;
                decide(pick(r, &(struct query){.addr = &v4, .port = port, .by_name = by_name}),
                       &inner);
                if (!inner.allow)
                        *ret = inner;
        }
}

bool cordon_net_rule_overlaps(const struct cordon_net_rule *a, const struct cordon_net_rule *b)
{
        if (a->port && b->port && a->port != b->port)
                return false;
        /* `*` and bare ports take names and addresses alike. */
        if (a->kind == CORDON_NET_RULE_ANY || a->kind == CORDON_NET_RULE_PORT ||
            b->kind == CORDON_NET_RULE_ANY || b->kind == CORDON_NET_RULE_PORT)
                return true;
        if (a->kind == CORDON_NET_RULE_CIDR || b->kind == CORDON_NET_RULE_CIDR) {
                if (a->kind != b->kind || a->addr.family != b->addr.family)
                        return false;
                return prefix_equal(&a->addr, &b->addr,
                                    a->prefix < b->prefix ? a->prefix : b->prefix);
        }
        /* Two name rules: the same host, a host under a suffix, or nested suffixes. */
        if (a->kind == CORDON_NET_RULE_HOST && b->kind == CORDON_NET_RULE_HOST)
                return streq(a->name, b->name);
        if (a->kind == CORDON_NET_RULE_HOST)
                return name_under(a->name, b->name);
        if (b->kind == CORDON_NET_RULE_HOST)
                return name_under(b->name, a->name);
        return streq(a->name, b->name) || name_under(a->name, b->name) ||
               name_under(b->name, a->name);
}

bool cordon_net_rule_covers(const struct cordon_net_rule *block,
                            const struct cordon_net_rule *except)
{
        /* A block without a port covers every port of its destinations; with one, only an
         * exception for that same port (an exception without a port reaches other ports too). */
        if (block->port && block->port != except->port)
                return false;
        switch (block->kind) {
        case CORDON_NET_RULE_ANY:
        case CORDON_NET_RULE_PORT: /* `*:port`: the port decided above */
                return true;
        case CORDON_NET_RULE_HOST:
                return except->kind == CORDON_NET_RULE_HOST && streq(block->name, except->name);
        case CORDON_NET_RULE_SUFFIX:
                /* Names strictly under the suffix, as matching does: `*.a.com` covers
                 * `x.a.com` and `*.x.a.com` (and itself), not `a.com`. */
                if (except->kind == CORDON_NET_RULE_HOST)
                        return name_under(except->name, block->name);
                return except->kind == CORDON_NET_RULE_SUFFIX &&
                       (streq(except->name, block->name) || name_under(except->name, block->name));
        case CORDON_NET_RULE_CIDR:
                return except->kind == CORDON_NET_RULE_CIDR &&
                       except->addr.family == block->addr.family &&
                       except->prefix >= block->prefix &&
                       prefix_equal(&block->addr, &except->addr, block->prefix);
        }
        return false;
}
