/* The network rules' pattern syntax (see net-rules.h): host names and host globs, ports,
 * addresses and CIDRs (bracketed IPv6 with a port either way), and a URL path after a host. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/net-glob.h"
#include "lib/net/net-path.h"
#include "lib/net/net-rules-internal.h"
#include "lib/policy/diag.h"
#include "shared/macro.h"

/* ---- names and host globs ---- */

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_wild(char c)
{
        return c == '*' || c == '?';
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

/* Whether every label of the glob @s is digits and wildcards, with a digit somewhere: an
 * address with a wildcard ("10.0.0.*"), which would only ever match names. */
static bool glob_is_address(const char *s, size_t len)
{
        bool digit = false;
        for (size_t i = 0; i < len; i++) {
                if (is_digit(s[i]))
                        digit = true;
                else if (s[i] != '.' && !is_wild(s[i]))
                        return false;
        }
        return digit;
}

/* A name, or with @glob a host glob (`*` and `?` allowed), into @out: lower case, one trailing
 * dot removed, runs of `*` made one (bash reads them the same). */
static int normalize(const char *name, size_t len, bool glob, char *out, const char **ret_reason)
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
                else if (glob && (c == '[' || c == ']'))
                        why = "bracket expressions (\"[...]\") are not supported in a host name; "
                              "use \"?\" for one character or \"*\" for any";
                else if (!(c == '.' || c == '-' || c == '_' || is_digit((char)c) ||
                           (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (glob && is_wild((char)c))))
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
        if (!why && glob && glob_is_address(name, len))
                why = "a wildcard in an address (write a CIDR, such as 10.0.0.0/24)";
        if (!why && label_is_numeric(name + last, len - last))
                why = "not a canonical IP address";
        if (why) {
                if (ret_reason)
                        *ret_reason = why;
                return -EINVAL;
        }
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                char c = name[i];
                if (c == '*' && o > 0 && out[o - 1] == '*')
                        continue;
                out[o++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
        }
        out[o] = 0;
        return 0;
}

int cordon_net_name_normalize_why(const char *name, size_t len, char *out, const char **ret_reason)
{
        return normalize(name, len, false, out, ret_reason);
}

int cordon_net_name_normalize(const char *name, size_t len, char *out)
{
        if (!name || !out)
                return -EINVAL;
        return normalize(name, len, false, out, NULL);
}

const char *cordon_net_rule_glob(const struct cordon_net_rule *rule, char *buf, size_t size)
{
        switch (rule->kind) {
        case CORDON_NET_RULE_HOST:
        case CORDON_NET_RULE_GLOB:
                snprintf(buf, size, "%s", rule->name);
                return buf;
        case CORDON_NET_RULE_SUFFIX:
                snprintf(buf, size, "*.%s", rule->name);
                return buf;
        default:
                return NULL;
        }
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
                return family == AF_INET6 ? "not a canonical IPv6 address"
                                          : "not a canonical IP address";
        memcpy(buf, s, len);
        buf[len] = 0;
        char *slash = strchr(buf, '/');
        if (slash)
                *slash = 0;
        struct cordon_net_addr a;
        if (cordon_net_addr_parse(buf, &a) < 0 || (family && a.family != family))
                return family == AF_INET6 ? "not a canonical IPv6 address"
                                          : "not a canonical IP address";
        unsigned bits = cordon_net_addr_bits(a.family), prefix = bits;
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
                cordon_net_addr_unmap(&a);
                prefix -= 96;
        }
        cordon_net_clear_host_bits(&a, prefix);
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

/* Digits and dots only: an IPv4 address or CIDR (or a bare port), never a name. */
static bool looks_numeric(const char *s, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (!is_digit(s[i]) && s[i] != '.')
                        return false;
        return len > 0;
}

/* The host part of a host[:port][/path] pattern (no brackets, no '/'): an IPv4 address, a
 * bare port, `*`, *.suffix, a host glob or a name. @name receives the normalised name, suffix
 * or glob. */
static const char *parse_host(const char *h, size_t len, bool has_port,
                              struct cordon_net_rule *rule, char *name)
{
        const char *why = NULL;
        if (len == 0)
                return "empty host";
        if (all_digits(h, len)) {
                if (has_port || len > 5)
                        return "not a canonical IP address";
                rule->kind = CORDON_NET_RULE_PORT;
                return parse_port(h, len, &rule->port);
        }
        if (!parse_cidr(h, len, AF_INET, rule))
                return NULL;
        bool wild = false;
        for (size_t i = 0; i < len; i++)
                wild = wild || is_wild(h[i]) || h[i] == '[' || h[i] == ']';
        if (!wild) {
                if (normalize(h, len, false, name, &why) < 0)
                        return why;
                rule->kind = CORDON_NET_RULE_HOST;
                return NULL;
        }
        /* "*." is nothing (the trailing dot of a name is the root, and `*` alone is written
         * so); "**" is `*`. */
        size_t stars = 0;
        while (stars < len && h[stars] == '*')
                stars++;
        if (stars == len - 1 && h[len - 1] == '.')
                return "empty host name";
        if (normalize(h, len, true, name, &why) < 0)
                return why;
        if (streq(name, "*")) {
                rule->kind = CORDON_NET_RULE_ANY;
                return NULL;
        }
        if (startswith(name, "*.") && !strpbrk(name + 2, "*?")) {
                /* *.suffix: the names strictly under suffix, kept as the suffix. */
                memmove(name, name + 2, strlen(name + 2) + 1);
                rule->kind = CORDON_NET_RULE_SUFFIX;
                return NULL;
        }
        rule->kind = CORDON_NET_RULE_GLOB;
        return NULL;
}

/* [v6], [v6]:port, [v6/len], [v6/len]:port, [v6]/len, [v6]/len:port. */
static const char *parse_bracketed(const char *p, struct cordon_net_rule *rule)
{
        const char *close = strchr(p, ']');
        if (!close)
                return "\"[\" without \"]\"";
        const char *in = p + 1, *after = close + 1, *port = NULL;
        size_t in_len = (size_t)(close - in);
        char buf[INET6_ADDRSTRLEN + 8];
        if (*after == '/') {
                /* The prefix length after the brackets, then maybe the port. */
                if (memchr(in, '/', in_len))
                        return "two prefix lengths, inside and after \"]\"";
                const char *colon = strchr(after, ':');
                size_t n = colon ? (size_t)(colon - after) : strlen(after);
                if (in_len + n >= sizeof(buf))
                        return "malformed CIDR prefix length";
                memcpy(buf, in, in_len);
                memcpy(buf + in_len, after, n);
                in = buf;
                in_len += n;
                port = colon;
        } else if (*after == ':')
                port = after;
        else if (*after)
                return "expected \":PORT\" or \"/LENGTH\" after \"]\"";
        const char *why = parse_cidr(in, in_len, AF_INET6, rule);
        if (why || !port)
                return why;
        return parse_port(port + 1, strlen(port + 1), &rule->port);
}

/* Parses @p into @rule (kind, port, addr, prefix), @name and @path ("" without one); the
 * reason on failure. */
static const char *parse_pattern(const char *p, struct cordon_net_rule *rule, char *name,
                                 char *path)
{
        size_t len = strlen(p);
        *rule = (struct cordon_net_rule){0};
        name[0] = path[0] = 0;
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

        if (p[0] == '*' && (p[1] == 0 || (p[1] == ':' && !strchr(p, '/')))) {
                rule->kind = CORDON_NET_RULE_ANY;
                return p[1] ? parse_port(p + 2, len - 2, &rule->port) : NULL;
        }
        if (p[0] == '[')
                return parse_bracketed(p, rule);

        /* What comes before the first '/' tells an address (a CIDR's length follows) from a
         * host name (a path follows). */
        const char *slash = strchr(p, '/');
        size_t before = slash ? (size_t)(slash - p) : len;
        const char *colon = memchr(p, ':', before);
        if (colon && memchr(colon + 1, ':', before - (size_t)(colon + 1 - p))) {
                /* Two colons or more: IPv6 (or a v6 CIDR), no port without brackets. */
                if (strchr(p, ']'))
                        return "\"]\" without \"[\"";
                return parse_cidr(p, len, AF_INET6, rule);
        }
        if (slash && looks_numeric(p, colon ? (size_t)(colon - p) : before)) {
                /* ADDR/LEN[:PORT]: the port after the length. */
                if (colon)
                        return "a path entry needs a host name, not an address";
                const char *c = strchr(slash, ':');
                size_t hlen = c ? (size_t)(c - p) : len;
                const char *why = parse_cidr(p, hlen, AF_INET, rule);
                if (why)
                        return why;
                return c ? parse_port(c + 1, len - hlen - 1, &rule->port) : NULL;
        }
        /* HOST[:PORT][/PATH] */
        size_t hlen = colon ? (size_t)(colon - p) : before;
        const char *why = parse_host(p, hlen, colon != NULL, rule, name);
        if (!why && colon)
                why = parse_port(colon + 1, before - hlen - 1, &rule->port);
        if (why || !slash)
                return why;
        if (rule->kind != CORDON_NET_RULE_HOST && rule->kind != CORDON_NET_RULE_SUFFIX &&
            rule->kind != CORDON_NET_RULE_GLOB)
                return "a path entry needs a host name (not an address, a port or \"*\")";
        return cordon_net_path_pattern(slash, len - before, path, &why) < 0 ? why : NULL;
}

int cordon_net_pattern_check(const char *pattern, const char **ret_reason)
{
        struct cordon_net_rule rule;
        char name[CORDON_NET_PATTERN_MAX + 1], path[CORDON_NET_PATTERN_MAX + 1];
        const char *why = pattern ? parse_pattern(pattern, &rule, name, path) : "empty pattern";
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

static bool kind_has_name(enum cordon_net_rule_kind kind)
{
        return kind == CORDON_NET_RULE_HOST || kind == CORDON_NET_RULE_SUFFIX ||
               kind == CORDON_NET_RULE_GLOB;
}

int cordon_net_rule_parse(const char *pattern, bool exception, const char *origin,
                          struct cordon_net_rule *ret, struct cordon_diag *diag)
{
        struct cordon_net_rule rule;
        char name[CORDON_NET_PATTERN_MAX + 1], path[CORDON_NET_PATTERN_MAX + 1];
        const char *why = pattern ? parse_pattern(pattern, &rule, name, path) : "empty pattern";
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
        if (kind_has_name(rule.kind))
                rule.name = strdup(name);
        if (path[0])
                rule.path = strdup(path);
        if (!rule.pattern || (origin && !rule.origin) || (kind_has_name(rule.kind) && !rule.name) ||
            (path[0] && !rule.path)) {
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
        free(rule->path);
        free(rule->pattern);
        free(rule->origin);
        rule->name = rule->path = rule->pattern = rule->origin = NULL;
}
