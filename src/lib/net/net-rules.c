/* The network rule matcher: the rule set, and the decision of a connection (or a plain HTTP
 * request) by the most specific matching rule, below the floor (see net-rules.h for the syntax
 * and the precedence; net-rules-parse.c parses, net-rules-floor.c holds the built-ins). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/net-glob.h"
#include "lib/net/net-path.h"
#include "lib/net/net-rules-floor.h"
#include "lib/net/net-rules-internal.h"
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

/* Whether @rule's host part takes @name (any name for `*` and bare ports). */
static bool host_matches(const struct cordon_net_rule *rule, const char *name)
{
        switch (rule->kind) {
        case CORDON_NET_RULE_ANY:
        case CORDON_NET_RULE_PORT:
                return true;
        case CORDON_NET_RULE_SUFFIX:
                return name_under(name, rule->name);
        case CORDON_NET_RULE_HOST:
                return streq(name, rule->name);
        case CORDON_NET_RULE_GLOB:
                return cordon_net_glob_match(rule->name, name);
        case CORDON_NET_RULE_CIDR:
                break;
        }
        return false;
}

/* The rank of @rule for @name on @port with the request path @path (NULL: not seen), or -1 when
 * it does not match. The host part first: an exact name (class 2) > a host glob, *.suffix
 * included (class 1), by its weight, the characters it fixes (cordon_net_glob_weight(); a
 * suffix counts its "." too) > * and bare ports (class 0). Then a rule with a path > one without,
 * a longer path > a shorter one; then with a port > without. A rule with a path matches only
 * a path seen at or under it: letters compared without regard to case for a block (it catches
 * every spelling a server may fold), exactly for an exception (it lifts only what it names). */
static long name_rank(const struct cordon_net_rule *rule, const char *name, uint16_t port,
                      const char *path)
{
        if (!port_matches(rule, port) || !host_matches(rule, name))
                return -1;
        if (rule->path && (!path || !cordon_net_path_under(path, rule->path, !rule->exception)))
                return -1;
        long has_port = rule->port != 0;
        long by_path = rule->path ? (long)strlen(rule->path) << 1 : 0;
        switch (rule->kind) {
        case CORDON_NET_RULE_ANY:
        case CORDON_NET_RULE_PORT:
                return has_port;
        case CORDON_NET_RULE_SUFFIX:
                return 1L << 22 | (long)(strlen(rule->name) + 1) << 11 | by_path | has_port;
        case CORDON_NET_RULE_GLOB:
                return 1L << 22 | (long)cordon_net_glob_weight(rule->name) << 11 | by_path |
                       has_port;
        case CORDON_NET_RULE_HOST:
                return 2L << 22 | by_path | has_port;
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
                    !cordon_net_prefix_equal(&rule->addr, addr, rule->prefix))
                        return -1;
                return 1L << 16 | (long)rule->prefix << 1 | has_port;
        case CORDON_NET_RULE_HOST:
        case CORDON_NET_RULE_SUFFIX:
        case CORDON_NET_RULE_GLOB:
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
        *ret = (struct cordon_net_verdict){.rule = &best->rule};
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
        const char *path;                   /* check_request: the normalised path */
        const struct cordon_net_addr *addr; /* check_addr, unmapped */
        uint16_t port;
        bool by_name;
};

static long rank(const struct cordon_net_rule *rule, const struct query *q)
{
        return q->name ? name_rank(rule, q->name, q->port, q->path)
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

/* @name normalised into @n (CORDON_NET_NAME_MAX + 1), or a refusal in @ret. Normalised again:
 * a caller's slip (an uppercase letter, a trailing dot) must not slide past an exact rule, and
 * what is not a name is refused. */
static bool query_name(const struct cordon_net_rules *r, const char *name, char *n,
                       struct cordon_net_verdict *ret)
{
        if (r && name && cordon_net_name_normalize_why(name, strlen(name), n, NULL) >= 0)
                return true;
        *ret = (struct cordon_net_verdict){.allow = false, .reason = "not a host name"};
        return false;
}

void cordon_net_rules_check_name(const struct cordon_net_rules *r, const char *name, uint16_t port,
                                 struct cordon_net_verdict *ret)
{
        char n[CORDON_NET_NAME_MAX + 1];
        if (query_name(r, name, n, ret))
                decide(pick(r, &(struct query){.name = n, .port = port}), ret);
}

/* The first rule with a path whose host part and port take @name on @port (with @block: a
 * block), or NULL. */
static const struct cordon_net_rule *path_rule_for(const struct cordon_net_rules *r,
                                                   const char *name, uint16_t port, bool block)
{
        for (size_t i = 0; i < r->n; i++) {
                const struct cordon_net_rule *rule = &r->v[i]->rule;
                if (rule->path && (!block || !rule->exception) && port_matches(rule, port) &&
                    host_matches(rule, name))
                        return rule;
        }
        return NULL;
}

void cordon_net_rules_check_request(const struct cordon_net_rules *r, const char *name,
                                    uint16_t port, const char *path, size_t len,
                                    struct cordon_net_verdict *ret)
{
        char n[CORDON_NET_NAME_MAX + 1];
        if (!query_name(r, name, n, ret))
                return;
        decide(pick(r, &(struct query){.name = n, .port = port}), ret);
        if ((ret->rule && ret->rule->floor) || !path_rule_for(r, n, port, false))
                return; /* refused whatever the path, or no path rule here */
        _cleanup_free_ char *normal = malloc(len + 2);
        const char *why = "out of memory";
        if (!normal ||
            cordon_net_path_normalize(path ? path : "", path ? len : 0, normal, &why) < 0) {
                /* A path servers may read differently could slip past a block's prefix: refused
                 * (a refusal of the host stands as it is: it says more). An exception with a
                 * path lifts nothing for it, so with none but those the name decides. */
                const struct cordon_net_rule *block = path_rule_for(r, n, port, true);
                if (block && ret->allow)
                        *ret = (struct cordon_net_verdict){
                            .allow = false, .rule = block, .reason = why, .unclear_path = true};
                return;
        }
        decide(pick(r, &(struct query){.name = n, .port = port, .path = normal}), ret);
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
        cordon_net_addr_unmap(&a);
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

static bool is_name_rule(const struct cordon_net_rule *rule)
{
        return rule->kind == CORDON_NET_RULE_HOST || rule->kind == CORDON_NET_RULE_SUFFIX ||
               rule->kind == CORDON_NET_RULE_GLOB;
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
                return cordon_net_prefix_equal(&a->addr, &b->addr,
                                               a->prefix < b->prefix ? a->prefix : b->prefix);
        }
        /* Two name rules: some name both globs take (an exact name is a glob without
         * wildcards, *.suffix the glob it is), on some path both take. */
        char ga[CORDON_NET_NAME_MAX + 3], gb[CORDON_NET_NAME_MAX + 3];
        if (!is_name_rule(a) || !is_name_rule(b) ||
            !cordon_net_glob_intersects(cordon_net_rule_glob(a, ga, sizeof(ga)),
                                        cordon_net_rule_glob(b, gb, sizeof(gb))))
                return false;
        return !a->path || !b->path || cordon_net_path_nested(a->path, b->path);
}

bool cordon_net_rule_covers(const struct cordon_net_rule *block,
                            const struct cordon_net_rule *except)
{
        /* A block without a port covers every port of its destinations; with one, only an
         * exception for that same port (an exception without a port reaches other ports too). */
        if (block->port && block->port != except->port)
                return false;
        char gb[CORDON_NET_NAME_MAX + 3], ge[CORDON_NET_NAME_MAX + 3];
        switch (block->kind) {
        case CORDON_NET_RULE_ANY:
        case CORDON_NET_RULE_PORT: /* `*:port`: the port decided above */
                return true;
        case CORDON_NET_RULE_HOST:
        case CORDON_NET_RULE_SUFFIX:
        case CORDON_NET_RULE_GLOB:
                /* Every name the exception takes, the block takes (`*.a.com` covers `x.a.com`
                 * and `*.x.a.com`, not `a.com`); a block with a path covers only exceptions at
                 * or under that path (a block's path takes every case of its letters). */
                if (!is_name_rule(except) ||
                    !cordon_net_glob_includes(cordon_net_rule_glob(block, gb, sizeof(gb)),
                                              cordon_net_rule_glob(except, ge, sizeof(ge))))
                        return false;
                return !block->path ||
                       (except->path && cordon_net_path_under(except->path, block->path, true));
        case CORDON_NET_RULE_CIDR:
                return except->kind == CORDON_NET_RULE_CIDR &&
                       except->addr.family == block->addr.family &&
                       except->prefix >= block->prefix &&
                       cordon_net_prefix_equal(&block->addr, &except->addr, block->prefix);
        }
        return false;
}
