/* Fuzz target for src/lib/net/net-rules.c and net-rules-parse.c. The input is split into lines;
 * each line is parsed as a pattern (even lines as blocks, odd lines as exceptions) and added
 * when well-formed, then every line is also tried as a name, as an address and as a plain HTTP
 * request's path (to a name of the set's path rules) against the finished set. A refusal must
 * be -EINVAL with a one-line message naming the variable; normalising a name is idempotent, a
 * host glob is lower case with no run of `*`, a rule's path a pattern path of its own; a
 * verdict always has a reason and a rule of the set (or none); a floor rule never allows; a
 * rule with a path never decides a name alone; a path refused as unclear is refused; every
 * rule covers and overlaps itself; and no rule set ever lets loopback or link-local through. */
#include <arpa/inet.h>
#include <string.h>

#include "fuzz.h"
#include "lib/net/net-glob.h"
#include "lib/net/net-path.h"
#include "lib/net/net-rules.h"
#include "shared/macro.h"

#define MAX_LINES 64

static bool rule_in_set(const struct cordon_net_rules *r, const struct cordon_net_rule *rule)
{
        for (size_t i = 0; i < cordon_net_rules_count(r); i++)
                if (cordon_net_rules_get(r, i) == rule)
                        return true;
        return false;
}

static void check_verdict(const struct cordon_net_rules *r, const struct cordon_net_verdict *v)
{
        FUZZ_CHECK(v->reason && v->reason[0]);
        if (!v->rule)
                return;
        FUZZ_CHECK(rule_in_set(r, v->rule));
        if (v->rule->floor)
                FUZZ_CHECK(!v->allow);
        FUZZ_CHECK(v->allow == v->rule->exception);
        /* A path refused as unclear names the block with a path that applies. */
        if (v->unclear_path)
                FUZZ_CHECK(v->rule->path);
}

static void check_pattern(const char *p, bool exception)
{
        struct cordon_net_rule rule;
        struct cordon_diag diag = {0};
        int r = cordon_net_rule_parse(p, exception, "fuzz", &rule, &diag);
        if (r == -ENOMEM)
                return;
        const char *why = NULL;
        int c = cordon_net_pattern_check(p, &why);
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL && c == -EINVAL && why);
                FUZZ_CHECK(startswith(diag.message, "NETWORK_BLOCKLIST"));
                FUZZ_CHECK(!strchr(diag.message, '\n'));
                return;
        }
        FUZZ_CHECK(c == 0);
        FUZZ_CHECK(rule.exception == exception && !rule.floor);
        FUZZ_CHECK(streq(rule.pattern, p));
        switch (rule.kind) {
        case CORDON_NET_RULE_HOST:
        case CORDON_NET_RULE_SUFFIX: {
                char n[CORDON_NET_NAME_MAX + 1];
                FUZZ_CHECK(rule.name);
                FUZZ_CHECK(cordon_net_name_normalize(rule.name, strlen(rule.name), n) == 0);
                FUZZ_CHECK(streq(n, rule.name));
                break;
        }
        case CORDON_NET_RULE_GLOB:
                FUZZ_CHECK(rule.name && strpbrk(rule.name, "*?") && !strstr(rule.name, "**"));
                FUZZ_CHECK(strlen(rule.name) <= CORDON_NET_NAME_MAX);
                for (const char *g = rule.name; *g; g++)
                        FUZZ_CHECK(!(*g >= 'A' && *g <= 'Z') && *g != '[' && *g != ']');
                break;
        case CORDON_NET_RULE_CIDR:
                FUZZ_CHECK(rule.addr.family == AF_INET || rule.addr.family == AF_INET6);
                FUZZ_CHECK(rule.prefix <= (rule.addr.family == AF_INET ? 32u : 128u));
                FUZZ_CHECK(!rule.name && !rule.path);
                break;
        case CORDON_NET_RULE_PORT:
                FUZZ_CHECK(rule.port != 0);
                FUZZ_CHECK(!rule.path);
                break;
        case CORDON_NET_RULE_ANY:
                FUZZ_CHECK(!rule.path);
                break;
        }
        if (rule.path) {
                char again[CORDON_NET_PATTERN_MAX + 1];
                FUZZ_CHECK(rule.path[0] == '/' && strlen(rule.path) > 1);
                FUZZ_CHECK(cordon_net_path_pattern(rule.path, strlen(rule.path), again, NULL) == 0);
                FUZZ_CHECK(streq(again, rule.path));
        }
        FUZZ_CHECK(cordon_net_rule_covers(&rule, &rule));
        FUZZ_CHECK(cordon_net_rule_overlaps(&rule, &rule));
        cordon_net_rule_clear(&rule);
}

static void check_name(const struct cordon_net_rules *r, const char *s, size_t len)
{
        char n[CORDON_NET_NAME_MAX + 1], n2[CORDON_NET_NAME_MAX + 1];
        if (cordon_net_name_normalize(s, len, n) < 0)
                return;
        size_t l = strlen(n);
        FUZZ_CHECK(l > 0 && l <= CORDON_NET_NAME_MAX);
        for (size_t i = 0; i < l; i++)
                FUZZ_CHECK(!(n[i] >= 'A' && n[i] <= 'Z') && n[i] > ' ' && n[i] < 0x7f);
        FUZZ_CHECK(cordon_net_name_normalize(n, l, n2) == 0 && streq(n, n2));
        struct cordon_net_addr a;
        FUZZ_CHECK(cordon_net_addr_parse(n, &a) < 0); /* a name is never an address */
        static const uint16_t ports[] = {0, 25, 443};
        for (size_t i = 0; i < ELEMENTSOF(ports); i++) {
                struct cordon_net_verdict v;
                cordon_net_rules_check_name(r, n, ports[i], &v);
                check_verdict(r, &v);
                if (ports[i] == 25)
                        FUZZ_CHECK(!v.allow);
        }
}

/* @s as the path of a plain HTTP request to the hosts of the set's path rules (a glob's
 * wildcards read as letters): a request refused as unclear is refused, and a rule with a path
 * never decides the name alone. */
static void check_path(const struct cordon_net_rules *r, const char *s, size_t len)
{
        for (size_t i = 0; i < cordon_net_rules_count(r); i++) {
                const struct cordon_net_rule *rule = cordon_net_rules_get(r, i);
                if (!rule->path || !rule->name)
                        continue;
                char host[CORDON_NET_NAME_MAX + 1];
                size_t n = 0;
                for (const char *c = rule->name; *c && n < CORDON_NET_NAME_MAX; c++)
                        host[n++] = *c == '*' || *c == '?' ? 'x' : *c;
                host[n] = 0;
                struct cordon_net_verdict v, by_name;
                cordon_net_rules_check_request(r, host, 80, s, len, &v);
                check_verdict(r, &v);
                if (v.unclear_path)
                        FUZZ_CHECK(!v.allow && v.rule && v.rule->path && !v.rule->exception);
                cordon_net_rules_check_name(r, host, 80, &by_name);
                check_verdict(r, &by_name);
                FUZZ_CHECK(!by_name.rule || !by_name.rule->path);
        }
}

static void check_addr(const struct cordon_net_rules *r, const char *s)
{
        struct cordon_net_addr a, b;
        if (cordon_net_addr_parse(s, &a) < 0)
                return;
        char buf[INET6_ADDRSTRLEN];
        cordon_net_addr_format(&a, buf, sizeof(buf));
        FUZZ_CHECK(cordon_net_addr_parse(buf, &b) == 0);
        FUZZ_CHECK(a.family == b.family &&
                   memcmp(a.family == AF_INET ? (void *)&a.v4 : (void *)&a.v6,
                          b.family == AF_INET ? (void *)&b.v4 : (void *)&b.v6,
                          a.family == AF_INET ? 4 : 16) == 0);
        for (int by_name = 0; by_name < 2; by_name++) {
                struct cordon_net_verdict v;
                cordon_net_rules_check_addr(r, &a, 443, by_name, &v);
                check_verdict(r, &v);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        struct cordon_net_rules *r = NULL;
        if (cordon_net_rules_new(&r) < 0)
                return 0;

        /* Lines as C strings (a NUL byte ends a pattern early, as it would for a caller). */
        char *lines[MAX_LINES];
        size_t starts[MAX_LINES], lens[MAX_LINES], n = 0;
        for (size_t start = 0; start <= size && n < MAX_LINES;) {
                const uint8_t *nl = memchr(data + start, '\n', size - start);
                size_t end = nl ? (size_t)(nl - data) : size;
                lines[n] = strndup((const char *)data + start, end - start);
                if (!lines[n])
                        break;
                starts[n] = start;
                lens[n] = end - start;
                n++;
                start = end + 1;
                if (!nl)
                        break;
        }

        for (size_t i = 0; i < n; i++) {
                check_pattern(lines[i], i % 2);
                struct cordon_diag diag = {0};
                int k = cordon_net_rules_add(r, lines[i], i % 2, "fuzz", &diag);
                FUZZ_CHECK(k == 0 || k == -EINVAL || k == -ENOMEM);
        }
        for (size_t i = 0; i < n; i++) {
                /* The raw bytes, NULs included, as a name. */
                check_name(r, (const char *)data + starts[i], lens[i]);
                check_name(r, lines[i], strlen(lines[i]));
                check_addr(r, lines[i]);
                check_path(r, (const char *)data + starts[i], lens[i]);
        }

        static const char *const never[] = {
            "127.0.0.1", "::1", "::ffff:127.0.0.1", "169.254.169.254", "fe80::1",
            "0.0.0.0",   "::",  "224.0.0.1"};
        for (size_t i = 0; i < ELEMENTSOF(never); i++) {
                struct cordon_net_addr a;
                FUZZ_CHECK(cordon_net_addr_parse(never[i], &a) == 0);
                for (int by_name = 0; by_name < 2; by_name++) {
                        struct cordon_net_verdict v;
                        cordon_net_rules_check_addr(r, &a, 80, by_name, &v);
                        FUZZ_CHECK(!v.allow && v.rule && v.rule->floor);
                }
        }

        for (size_t i = 0; i < n; i++)
                free(lines[i]);
        cordon_net_rules_free(r);
        return 0;
}
