/* Unit tests for src/lib/net/net-rules.c: pattern syntax and its messages, name normalisation,
 * and every precedence case of the matcher, the floor and the default-blocked ranges. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net/net-rules.h"
#include "shared/macro.h"

TestSuite(net_rules);

#define ORIGIN "command line --block"

static void rules_freep(struct cordon_net_rules **r)
{
        cordon_net_rules_free(*r);
}
#define _cleanup_rules_ _cleanup_(rules_freep)

/* A set with the built-ins plus @blocks and @excepts (NULL-terminated lists). */
static struct cordon_net_rules *make(const char *const *blocks, const char *const *excepts)
{
        struct cordon_net_rules *r = NULL;
        cr_assert_eq(cordon_net_rules_new(&r), 0);
        for (size_t i = 0; blocks && blocks[i]; i++) {
                struct cordon_diag d = {0};
                cr_assert_eq(cordon_net_rules_add(r, blocks[i], false, ORIGIN, &d), 0,
                             "block %s: %s", blocks[i], d.message);
        }
        for (size_t i = 0; excepts && excepts[i]; i++) {
                struct cordon_diag d = {0};
                cr_assert_eq(cordon_net_rules_add(r, excepts[i], true, "test except", &d), 0,
                             "except %s: %s", excepts[i], d.message);
        }
        return r;
}
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* @name:@port is allowed or not, decided by the rule written @pattern (NULL: no rule). */
static void name_is(const struct cordon_net_rules *r, const char *name, uint16_t port, bool allow,
                    const char *pattern)
{
        struct cordon_net_verdict v;
        cordon_net_rules_check_name(r, name, port, &v);
        cr_assert_eq(v.allow, allow, "%s:%u: allow %d, expected %d (%s, %s)", name, port, v.allow,
                     allow, v.rule ? v.rule->pattern : "no rule", v.reason);
        cr_assert_not_null(v.reason);
        if (pattern) {
                cr_assert_not_null(v.rule, "%s:%u decided by no rule", name, port);
                cr_assert_str_eq(v.rule->pattern, pattern, "%s:%u", name, port);
        } else
                cr_assert_null(v.rule, "%s:%u decided by %s", name, port, v.rule->pattern);
}

static void addr_is(const struct cordon_net_rules *r, const char *a, uint16_t port, bool by_name,
                    bool allow, const char *pattern)
{
        struct cordon_net_addr addr;
        cr_assert_eq(cordon_net_addr_parse(a, &addr), 0, "%s", a);
        struct cordon_net_verdict v;
        cordon_net_rules_check_addr(r, &addr, port, by_name, &v);
        cr_assert_eq(v.allow, allow, "%s port %u by_name %d: allow %d, expected %d (%s, %s)", a,
                     port, by_name, v.allow, allow, v.rule ? v.rule->pattern : "no rule", v.reason);
        cr_assert_not_null(v.reason);
        if (pattern) {
                cr_assert_not_null(v.rule, "%s decided by no rule", a);
                cr_assert_str_eq(v.rule->pattern, pattern, "%s", a);
        } else
                cr_assert_null(v.rule, "%s decided by %s", a, v.rule->pattern);
}

/* A plain HTTP request to @name:@port for @path (after the authority) is allowed or not,
 * decided by the rule written @pattern (NULL: no rule); @unclear: refused as a path that
 * cannot be read one way. */
static void req_is(const struct cordon_net_rules *r, const char *name, uint16_t port,
                   const char *path, bool allow, const char *pattern, bool unclear)
{
        struct cordon_net_verdict v;
        cordon_net_rules_check_request(r, name, port, path, strlen(path), &v);
        cr_assert_eq(v.allow, allow, "%s:%u%s: allow %d, expected %d (%s, %s)", name, port, path,
                     v.allow, allow, v.rule ? v.rule->pattern : "no rule", v.reason);
        cr_assert_eq(v.unclear_path, unclear, "%s:%u%s: unclear %d (%s)", name, port, path,
                     v.unclear_path, v.reason);
        if (pattern) {
                cr_assert_not_null(v.rule, "%s%s decided by no rule", name, path);
                cr_assert_str_eq(v.rule->pattern, pattern, "%s%s", name, path);
        } else
                cr_assert_null(v.rule, "%s%s decided by %s", name, path, v.rule->pattern);
}

Test(net_rules, builtins_parse_and_are_marked)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, NULL);
        size_t n = cordon_net_rules_count(r), floor = 0, def = 0;
        cr_assert_gt(n, 80);
        for (size_t i = 0; i < n; i++) {
                const struct cordon_net_rule *rule = cordon_net_rules_get(r, i);
                cr_assert(!rule->exception);
                if (rule->floor) {
                        floor++;
                        cr_assert_str_eq(rule->origin, "built-in floor");
                } else {
                        def++;
                        cr_assert_str_eq(rule->origin, "built-in default");
                        cr_assert_eq(rule->kind, CORDON_NET_RULE_CIDR);
                }
        }
        cr_assert_eq(def, 5);
        cr_assert_eq(floor + def, n);
        cr_assert_null(cordon_net_rules_get(r, n));
}

Test(net_rules, add_refuses_and_keeps_the_set)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, NULL);
        size_t n = cordon_net_rules_count(r);
        const struct cordon_net_rule *first = cordon_net_rules_get(r, 0);
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rules_add(r, "127.1", false, "/etc/cordon.conf:3", &d), -EINVAL);
        cr_assert_str_eq(d.message, "NETWORK_BLOCKLIST entry \"127.1\" (/etc/cordon.conf:3): not "
                                    "a canonical IP address");
        cr_assert_eq(cordon_net_rules_count(r), n);
        for (int i = 0; i < 300; i++)
                cr_assert_eq(cordon_net_rules_add(r, "example.com", false, NULL, NULL), 0);
        cr_assert_eq(cordon_net_rules_get(r, 0), first, "rule pointers moved");
        const struct cordon_net_rule *last = cordon_net_rules_get(r, n + 299);
        cr_assert_str_eq(last->pattern, "example.com");
        cr_assert_null(last->origin);
}

Test(net_rules, rule_count_is_bounded)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, NULL);
        int ret = 0;
        size_t added = 0;
        while ((ret = cordon_net_rules_add(r, "*", false, NULL, NULL)) == 0)
                added++;
        cr_assert_eq(ret, -E2BIG);
        cr_assert_eq(cordon_net_rules_count(r), CORDON_NET_RULES_MAX);
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rules_add(r, "*", true, NULL, &d), -E2BIG);
        cr_assert(strstr(d.message, "NETWORK_BLOCKLIST_EXCEPT: more than"), "%s", d.message);
}

Test(net_rules, no_rule_allows)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, NULL);
        name_is(r, "example.com", 443, true, NULL);
        addr_is(r, "192.0.2.1", 443, false, true, NULL);
        addr_is(r, "2001:db8::1", 443, false, true, NULL);
}

Test(net_rules, exact_beats_suffix_beats_any)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("*", "*.s3.amazonaws.com"), L("mybucket.s3.amazonaws.com", "*.amazonaws.com"));
        name_is(r, "mybucket.s3.amazonaws.com", 443, true, "mybucket.s3.amazonaws.com");
        name_is(r, "other.s3.amazonaws.com", 443, false, "*.s3.amazonaws.com");
        name_is(r, "ec2.amazonaws.com", 443, true, "*.amazonaws.com");
        name_is(r, "example.com", 443, false, "*");
        /* *.suffix matches below the suffix only. */
        name_is(r, "amazonaws.com", 443, false, "*");
        name_is(r, "s3.amazonaws.com", 443, true, "*.amazonaws.com");
        /* Not a suffix match at a label boundary: xamazonaws.com. */
        name_is(r, "xamazonaws.com", 443, false, "*");
}

Test(net_rules, longer_suffix_beats_shorter_either_way)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("*.example.com"), L("*.dev.example.com"));
        name_is(r, "a.dev.example.com", 80, true, "*.dev.example.com");
        name_is(r, "a.prod.example.com", 80, false, "*.example.com");
        _cleanup_rules_ struct cordon_net_rules *s =
            make(L("*.dev.example.com"), L("*.example.com"));
        name_is(s, "a.dev.example.com", 80, false, "*.dev.example.com");
        name_is(s, "a.prod.example.com", 80, true, "*.example.com");
}

Test(net_rules, port_beats_same_rule_without)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("example.com", "*.example.org:8080", "*:22"),
                 L("example.com:443", "*.example.org", "*"));
        name_is(r, "example.com", 443, true, "example.com:443");
        name_is(r, "example.com", 80, false, "example.com");
        name_is(r, "a.example.org", 8080, false, "*.example.org:8080");
        name_is(r, "a.example.org", 80, true, "*.example.org");
        name_is(r, "other.net", 22, false, "*:22");
        name_is(r, "other.net", 80, true, "*");
        /* The host part is compared first: an excepted exact host is not caught by *:22. */
        _cleanup_rules_ struct cordon_net_rules *s = make(L("*:22"), L("github.com"));
        name_is(s, "github.com", 22, true, "github.com");
        name_is(s, "gitlab.com", 22, false, "*:22");
        /* Port 0 (unknown) matches no rule with a port. */
        name_is(s, "gitlab.com", 0, true, NULL);
}

Test(net_rules, bare_port_is_star_port)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(L("8080"), L("*:8080"));
        name_is(r, "example.com", 8080, true, "*:8080"); /* equal rank: the exception wins */
        _cleanup_rules_ struct cordon_net_rules *s = make(L("*:8080"), L("8080"));
        name_is(s, "example.com", 8080, true, "8080");
        _cleanup_rules_ struct cordon_net_rules *t = make(L("8080"), L("*"));
        name_is(t, "example.com", 8080, false, "8080");
        name_is(t, "example.com", 8081, true, "*");
        addr_is(t, "192.0.2.1", 8080, false, false, "8080");
        addr_is(t, "192.0.2.1", 8081, false, true, "*");
}

Test(net_rules, exception_wins_a_tie)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("example.com", "*.example.net", "*", "192.0.2.0/24"),
                 L("example.com", "*.example.net", "192.0.2.0/24"));
        name_is(r, "example.com", 443, true, "example.com");
        name_is(r, "a.example.net", 443, true, "*.example.net");
        name_is(r, "example.org", 443, false, "*");
        addr_is(r, "192.0.2.7", 443, false, true, "192.0.2.0/24");
        /* Order does not matter. */
        _cleanup_rules_ struct cordon_net_rules *s = make(NULL, L("example.com"));
        cr_assert_eq(cordon_net_rules_add(s, "EXAMPLE.com.", false, ORIGIN, NULL), 0);
        name_is(s, "example.com", 443, true, "example.com");
}

Test(net_rules, check_name_normalises)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(L("*"), L("github.com"));
        name_is(r, "github.com", 443, true, "github.com");
        name_is(r, "GitHub.COM", 443, true, "github.com");
        name_is(r, "github.com.", 443, true, "github.com");
        name_is(r, "github.com..", 443, false, NULL);
        name_is(r, "", 443, false, NULL);
        name_is(r, "127.1", 443, false, NULL);
        name_is(r, "github.com\x01", 443, false, NULL);
        struct cordon_net_verdict v;
        cordon_net_rules_check_name(r, NULL, 443, &v);
        cr_assert(!v.allow);
}

/* ---- the floor ---- */

Test(net_rules, floor_hosts_and_ports_are_not_liftable)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(NULL, L("hooks.slack.com", "hooks.slack.com:443", "*.slack.com", "*", "*:25", "25",
                         "example.com:25", "*.webhook.office.com", "x.webhook.office.com:443",
                         "dns.google:443", "0.0.0.0/0:25", "[::/0]:25", "192.0.2.1:853"));
        name_is(r, "hooks.slack.com", 443, false, "hooks.slack.com");
        name_is(r, "HOOKS.slack.com.", 443, false, "hooks.slack.com");
        name_is(r, "x.webhook.office.com", 443, false, "*.webhook.office.com");
        name_is(r, "webhook.office.com", 443, true, "*"); /* *.x is strictly below x */
        name_is(r, "dns.google", 443, false, "dns.google");
        name_is(r, "pastebin.com", 443, false, "pastebin.com");
        name_is(r, "api.sendgrid.com", 443, false, "api.sendgrid.com");
        name_is(r, "transfer.sh", 443, false, "transfer.sh");
        name_is(r, "security.cloudflare-dns.com", 443, false, "*.cloudflare-dns.com");
        name_is(r, "example.com", 25, false, "25");
        name_is(r, "example.com", 587, false, "587");
        name_is(r, "example.com", 853, false, "853");
        name_is(r, "example.com", 513, false, "513");
        name_is(r, "example.com", 443, true, "*");
        addr_is(r, "192.0.2.1", 25, false, false, "25");
        addr_is(r, "192.0.2.1", 25, true, false, "25");
        addr_is(r, "192.0.2.1", 853, false, false, "853");
        addr_is(r, "2001:db8::1", 465, true, false, "465");
        addr_is(r, "192.0.2.1", 443, false, true, "*");

        struct cordon_net_verdict v;
        cordon_net_rules_check_name(r, "hooks.slack.com", 443, &v);
        cr_assert(v.rule->floor);
        cr_assert_str_eq(v.rule->origin, "built-in floor");
        cr_assert_str_eq(v.reason, "floor: webhook");
        cordon_net_rules_check_name(r, "example.com", 25, &v);
        cr_assert_str_eq(v.reason, "floor: mail port");
}

Test(net_rules, floor_addresses_are_not_liftable)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(NULL, L("127.0.0.1", "127.0.0.1:8080", "127.0.0.0/8", "::1", "[::1]:80",
                         "169.254.169.254", "fe80::/10", "0.0.0.0/0", "::/0", "224.0.0.1",
                         "ff02::1", "255.255.255.255", "0.0.0.0", "::", "::ffff:127.0.0.1", "*"));
        const char *floor[] = {"127.0.0.1",       "127.255.255.254",  "::1",
                               "169.254.169.254", "fe80::1",          "febf::1",
                               "0.0.0.0",         "0.1.2.3",          "::",
                               "224.0.0.1",       "239.255.255.250",  "ff02::1",
                               "255.255.255.255", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
                               "::ffff:0.0.0.0",  "::ffff:224.0.0.1"};
        for (size_t i = 0; i < ELEMENTSOF(floor); i++) {
                for (int by_name = 0; by_name < 2; by_name++) {
                        struct cordon_net_addr a;
                        cr_assert_eq(cordon_net_addr_parse(floor[i], &a), 0);
                        struct cordon_net_verdict v;
                        cordon_net_rules_check_addr(r, &a, 8080, by_name, &v);
                        cr_assert(!v.allow, "%s allowed", floor[i]);
                        cr_assert(v.rule && v.rule->floor, "%s not decided by the floor", floor[i]);
                        cr_assert(startswith(v.reason, "floor: "), "%s", v.reason);
                }
        }
        addr_is(r, "::ffff:127.0.0.1", 80, true, false, "127.0.0.0/8");
        addr_is(r, "127.0.0.1", 80, false, false, "127.0.0.0/8");
        addr_is(r, "fec0::1", 80, false, true, "::/0"); /* just past fe80::/10 */
        addr_is(r, "192.0.2.1", 80, false, true, "0.0.0.0/0");

        struct cordon_net_addr a;
        struct cordon_net_verdict v;
        cordon_net_addr_parse("::ffff:127.0.0.1", &a);
        cordon_net_rules_check_addr(r, &a, 80, false, &v);
        cr_assert_str_eq(v.reason, "floor: loopback");
        cordon_net_addr_parse("169.254.169.254", &a);
        cordon_net_rules_check_addr(r, &a, 80, false, &v);
        cr_assert_str_eq(v.reason, "floor: link-local");
        cordon_net_addr_parse("ff02::1", &a);
        cordon_net_rules_check_addr(r, &a, 80, false, &v);
        cr_assert_str_eq(v.reason, "floor: multicast");
}

Test(net_rules, invalid_queries_fail_closed)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, NULL);
        struct cordon_net_addr a = {.family = AF_UNIX};
        struct cordon_net_verdict v;
        cordon_net_rules_check_addr(r, &a, 80, false, &v);
        cr_assert(!v.allow);
        cr_assert_null(v.rule);
        cordon_net_rules_check_addr(r, NULL, 80, false, &v);
        cr_assert(!v.allow);
        cordon_net_rules_check_addr(NULL, &a, 80, false, &v);
        cr_assert(!v.allow);
}

/* ---- the default-blocked ranges ---- */

Test(net_rules, default_ranges_blocked)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(NULL, L("*", "0.0.0.0/0", "::/0", "10.0.0.0/7"));
        const char *def[] = {"10.0.0.1",        "10.255.255.255",    "172.16.0.1",
                             "172.31.255.255",  "192.168.1.1",       "100.64.0.1",
                             "100.127.255.255", "fc00::1",           "fd12:3456::1",
                             "::ffff:10.0.0.1", "::ffff:192.168.0.1"};
        for (size_t i = 0; i < ELEMENTSOF(def); i++) {
                struct cordon_net_addr a;
                cr_assert_eq(cordon_net_addr_parse(def[i], &a), 0);
                struct cordon_net_verdict v;
                cordon_net_rules_check_addr(r, &a, 443, false, &v);
                cr_assert(!v.allow, "%s allowed", def[i]);
                cr_assert(v.rule && !v.rule->floor && !v.rule->exception, "%s", def[i]);
                cr_assert_str_eq(v.rule->origin, "built-in default");
                cr_assert(strstr(v.reason, "liftable by an exception"), "%s", v.reason);
        }
        addr_is(r, "172.32.0.1", 443, false, true, "0.0.0.0/0");
        addr_is(r, "172.15.255.255", 443, false, true, "0.0.0.0/0");
        addr_is(r, "100.128.0.1", 443, false, true, "0.0.0.0/0");
        addr_is(r, "fe00::1", 443, false, true, "::/0");
        addr_is(r, "11.0.0.1", 443, false, true, "10.0.0.0/7");
}

Test(net_rules, exception_lifts_a_default_range)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(NULL, L("10.0.0.0/8", "192.168.1.0/24:443", "fd00::/8", "[fc00::1]:22"));
        addr_is(r, "10.1.2.3", 443, false, true, "10.0.0.0/8"); /* equal: the exception wins */
        addr_is(r, "10.1.2.3", 443, true, true, "10.0.0.0/8");
        addr_is(r, "192.168.1.5", 443, true, true, "192.168.1.0/24:443");
        addr_is(r, "192.168.1.5", 80, true, false, "192.168.0.0/16");
        addr_is(r, "192.168.2.5", 443, true, false, "192.168.0.0/16");
        addr_is(r, "fd00::5", 443, false, true, "fd00::/8");
        addr_is(r, "fc00::1", 22, false, true, "[fc00::1]:22");
        addr_is(r, "fc00::1", 23, false, false, "23"); /* the floor's port still closes */
        addr_is(r, "fc00::2", 22, false, false, "fc00::/7");
        /* A user block inside the lifted range is more specific again. */
        cr_assert_eq(cordon_net_rules_add(r, "10.9.0.0/16", false, ORIGIN, NULL), 0);
        addr_is(r, "10.9.1.1", 443, true, false, "10.9.0.0/16");
        addr_is(r, "10.8.1.1", 443, true, true, "10.0.0.0/8");
}

Test(net_rules, shorter_or_any_exception_cannot_lift_a_range)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(NULL, L("*", "8443", "0.0.0.0/0", "8.0.0.0/7"));
        addr_is(r, "10.0.0.1", 8443, false, false, "10.0.0.0/8");
        addr_is(r, "10.0.0.1", 8443, true, false, "10.0.0.0/8");
        /* A CIDR of /0 still outranks * and bare ports. */
        _cleanup_rules_ struct cordon_net_rules *s = make(L("0.0.0.0/0"), L("*", "443"));
        addr_is(s, "192.0.2.1", 443, false, false, "0.0.0.0/0");
}

Test(net_rules, longer_prefix_beats_shorter)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("198.18.0.0/15", "198.18.1.128/25", "2001:db8::/32", "[2001:db8:1::/48]:443"),
                 L("198.18.1.0/24", "198.18.1.200", "2001:db8:1::/48"));
        addr_is(r, "198.18.0.1", 80, false, false, "198.18.0.0/15");
        addr_is(r, "198.18.1.1", 80, false, true, "198.18.1.0/24");
        addr_is(r, "198.18.1.129", 80, false, false, "198.18.1.128/25");
        addr_is(r, "198.18.1.200", 80, false, true, "198.18.1.200");
        addr_is(r, "2001:db8::1", 80, false, false, "2001:db8::/32");
        addr_is(r, "2001:db8:1::1", 80, false, true, "2001:db8:1::/48");
        addr_is(r, "2001:db8:1::1", 443, false, false, "[2001:db8:1::/48]:443");
        addr_is(r, "2001:db9::1", 80, false, true, NULL);
        /* Families do not mix. */
        addr_is(r, "::ffff:198.18.0.1", 80, false, false, "198.18.0.0/15");
}

Test(net_rules, by_name_skips_any_and_port_rules)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("*", "8080", "203.0.113.0/24"), L("github.com", "198.18.0.0/15:22"));
        /* The name decides github.com; its addresses are checked by address rules only. */
        name_is(r, "github.com", 443, true, "github.com");
        addr_is(r, "192.0.2.10", 443, true, true, NULL);
        addr_is(r, "192.0.2.10", 8080, true, true, NULL);
        addr_is(r, "203.0.113.9", 443, true, false, "203.0.113.0/24");
        /* An IP literal meets every rule. */
        addr_is(r, "192.0.2.10", 443, false, false, "*");
        addr_is(r, "192.0.2.10", 8080, false, false, "8080");
        addr_is(r, "198.18.0.1", 22, false, true, "198.18.0.0/15:22");
}

Test(net_rules, excepted_name_into_blocked_range_is_refused)
{
        /* DNS rebinding: a name excepted by the user resolves into a blocked range. */
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("*", "203.0.113.0/24"), L("rebind.test", "*.internal.test"));
        name_is(r, "rebind.test", 443, true, "rebind.test");
        addr_is(r, "10.0.0.5", 443, true, false, "10.0.0.0/8");
        addr_is(r, "127.0.0.1", 443, true, false, "127.0.0.0/8");
        addr_is(r, "::ffff:127.0.0.1", 443, true, false, "127.0.0.0/8");
        addr_is(r, "169.254.169.254", 80, true, false, "169.254.0.0/16");
        addr_is(r, "203.0.113.1", 443, true, false, "203.0.113.0/24");
        addr_is(r, "fd00::1", 443, true, false, "fc00::/7");
        /* ... unless an address exception covers it. */
        cr_assert_eq(cordon_net_rules_add(r, "10.0.0.5", true, "test except", NULL), 0);
        addr_is(r, "10.0.0.5", 443, true, true, "10.0.0.5");
        addr_is(r, "10.0.0.6", 443, true, false, "10.0.0.0/8");
        cr_assert_eq(cordon_net_rules_add(r, "127.0.0.1", true, "test except", NULL), 0);
        addr_is(r, "127.0.0.1", 443, true, false, "127.0.0.0/8");
}

Test(net_rules, verdict_reasons)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(L("example.com"), L("example.org"));
        struct cordon_net_verdict v;
        cordon_net_rules_check_name(r, "example.com", 443, &v);
        cr_assert_str_eq(v.reason, "blocked by rule");
        cr_assert_str_eq(v.rule->origin, ORIGIN);
        cordon_net_rules_check_name(r, "example.org", 443, &v);
        cr_assert_str_eq(v.reason, "allowed by exception");
        cr_assert_str_eq(v.rule->origin, "test except");
        cordon_net_rules_check_name(r, "example.net", 443, &v);
        cr_assert_str_eq(v.reason, "no rule matched");
        struct cordon_net_addr a;
        cordon_net_addr_parse("10.0.0.1", &a);
        cordon_net_rules_check_addr(r, &a, 443, true, &v);
        cr_assert_str_eq(v.reason, "private range (liftable by an exception)");
}

Test(net_rules, quote)
{
        char buf[CORDON_NET_QUOTE_MAX];
        cordon_net_quote(buf, sizeof(buf), "a\"b\\c\n\xff", 7);
        cr_assert_str_eq(buf, "a\\\"b\\\\c\\x0a\\xff");
        char small[8];
        cordon_net_quote(small, sizeof(small), "abcdefghij", 10);
        cr_assert_str_eq(small, "abcd...");
        cordon_net_quote(small, 2, "abc", 3);
        cr_assert_str_eq(small, "");
        char big[400];
        memset(big, 'x', sizeof(big));
        cordon_net_quote(buf, sizeof(buf), big, sizeof(big));
        cr_assert_eq(strlen(buf), 163);
}

/* The floor holds what the spec lists, under an allow-everything exception. */
Test(net_rules, floor_contents)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, L("*", "0.0.0.0/0", "::/0"));
        static const char *const hosts[] = {"api.mailgun.net",
                                            "api.eu.mailgun.net",
                                            "api.sendgrid.com",
                                            "api.postmarkapp.com",
                                            "api.mailjet.com",
                                            "api.sparkpost.com",
                                            "api.eu.sparkpost.com",
                                            "api.brevo.com",
                                            "api.sendinblue.com",
                                            "mandrillapp.com",
                                            "api.resend.com",
                                            "api.smtp2go.com",
                                            "api.elasticemail.com",
                                            "api.mailersend.com",
                                            "hooks.slack.com",
                                            "outlook.webhook.office.com",
                                            "hooks.zapier.com",
                                            "maker.ifttt.com",
                                            "webhook.site",
                                            "abc.webhook.site",
                                            "transfer.sh",
                                            "0x0.st",
                                            "file.io",
                                            "temp.sh",
                                            "bashupload.com",
                                            "oshi.at",
                                            "catbox.moe",
                                            "litter.catbox.moe",
                                            "tmpfiles.org",
                                            "gofile.io",
                                            "store1.gofile.io",
                                            "pixeldrain.com",
                                            "uguu.se",
                                            "keep.sh",
                                            "pastebin.com",
                                            "paste.ee",
                                            "hastebin.com",
                                            "ix.io",
                                            "sprunge.us",
                                            "termbin.com",
                                            "dpaste.com",
                                            "dpaste.org",
                                            "paste.rs",
                                            "rentry.co",
                                            "ghostbin.co",
                                            "controlc.com",
                                            "privatebin.net",
                                            "cloudflare-dns.com",
                                            "mozilla.cloudflare-dns.com",
                                            "dns.google",
                                            "dns.google.com",
                                            "dns.quad9.net",
                                            "dns9.quad9.net",
                                            "dns10.quad9.net",
                                            "dns11.quad9.net",
                                            "doh.opendns.com",
                                            "dns.adguard.com",
                                            "dns.adguard-dns.com",
                                            "dns.nextdns.io",
                                            "doh.cleanbrowsing.org",
                                            "doh.mullvad.net",
                                            "dns.mullvad.net",
                                            "one.one.one.one",
                                            "1dot1dot1dot1.cloudflare-dns.com",
                                            "security.cloudflare-dns.com",
                                            "family.cloudflare-dns.com"};
        for (size_t i = 0; i < ELEMENTSOF(hosts); i++) {
                struct cordon_net_verdict v;
                cordon_net_rules_check_name(r, hosts[i], 443, &v);
                cr_assert(!v.allow && v.rule && v.rule->floor, "%s not in the floor", hosts[i]);
        }
        /* Near misses stay open. */
        name_is(r, "slack.com", 443, true, "*");
        name_is(r, "discord.com", 443, true, "*");
        name_is(r, "notpastebin.com", 443, true, "*");
        name_is(r, "google.com", 443, true, "*");

        static const uint16_t ports[] = {24, 25, 465, 587, 2525, 853, 23, 79, 113, 512, 513, 514};
        for (size_t i = 0; i < ELEMENTSOF(ports); i++) {
                struct cordon_net_verdict v;
                cordon_net_rules_check_name(r, "example.com", ports[i], &v);
                cr_assert(!v.allow && v.rule->floor, "port %u", ports[i]);
                struct cordon_net_addr a;
                cordon_net_addr_parse("2001:db8::1", &a);
                cordon_net_rules_check_addr(r, &a, ports[i], true, &v);
                cr_assert(!v.allow && v.rule->floor, "port %u", ports[i]);
        }
        name_is(r, "example.com", 22, true, "*");
        name_is(r, "example.com", 443, true, "*");
}

/* Whether block @b covers exception @e (cordon_net_rule_covers()). */
static bool covers(const char *b, const char *e)
{
        struct cordon_net_rule block, except;
        cr_assert_eq(cordon_net_rule_parse(b, false, NULL, &block, NULL), 0, "%s", b);
        cr_assert_eq(cordon_net_rule_parse(e, true, NULL, &except, NULL), 0, "%s", e);
        bool c = cordon_net_rule_covers(&block, &except);
        cordon_net_rule_clear(&block);
        cordon_net_rule_clear(&except);
        return c;
}

Test(net_rules, covers)
{
        static const struct {
                const char *block, *except;
                bool covered;
        } cases[] = {
            /* `*` covers everything. */
            {"*", "github.com", true},
            {"*", "*.github.com:443", true},
            {"*", "10.1.2.3", true},
            {"*", "443", true},
            {"*", "*", true},
            /* A suffix: names strictly under it, and suffixes at or under it. */
            {"*.evil.com", "a.evil.com", true},
            {"*.evil.com", "a.b.evil.com:443", true},
            {"*.evil.com", "*.evil.com", true},
            {"*.evil.com", "*.a.evil.com", true},
            {"*.evil.com", "evil.com", false},
            {"*.evil.com", "notevil.com", false},
            {"*.evil.com", "a.notevil.com", false},
            {"*.evil.com", "*", false},
            {"*.evil.com", "10.0.0.1", false},
            /* A host: the same host, any port of it. */
            {"evil.com", "evil.com", true},
            {"evil.com", "EVIL.com.:8080", true},
            {"evil.com", "a.evil.com", false},
            {"evil.com", "*.evil.com", false},
            /* CIDRs: contained addresses and CIDRs of the same family. */
            {"10.0.0.0/8", "10.1.2.3", true},
            {"10.0.0.0/8", "10.1.0.0/16:22", true},
            {"10.0.0.0/8", "10.0.0.0/8", true},
            {"10.0.0.0/8", "0.0.0.0/0", false},
            {"10.0.0.0/8", "11.0.0.1", false},
            {"10.0.0.0/8", "::ffff:10.0.0.1", true},
            {"2001:db8::/32", "2001:db8:1::1", true},
            {"2001:db8::/32", "10.0.0.1", false},
            {"10.0.0.0/8", "intranet.example", false},
            /* Ports: a block with one covers only that port; without one, any port. */
            {"evil.com:443", "evil.com:443", true},
            {"evil.com:443", "evil.com", false},
            {"evil.com:443", "evil.com:80", false},
            {"10.0.0.0/8:22", "10.1.2.3:22", true},
            {"10.0.0.0/8:22", "10.1.2.3", false},
            /* A bare port (and `*:port`): that port on anything. */
            {"25", "smtp.example.com:25", true},
            {"25", "10.0.0.1:25", true},
            {"*:25", "25", true},
            {"25", "*.example.com:25", true},
            {"25", "smtp.example.com", false},
            {"25", "smtp.example.com:587", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_assert_eq(covers(cases[i].block, cases[i].except), cases[i].covered,
                             "%s covers %s: expected %s", cases[i].block, cases[i].except,
                             cases[i].covered ? "yes" : "no");
}

/* Each IPv6 form that carries an IPv4 address is judged as the IPv4 address too: the floor
 * and the default ranges hold inside NAT64, 6to4, Teredo, IPv4-compatible and -translated. */
Test(net_rules, embedded_ipv4_is_judged)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, NULL);
        addr_is(r, "64:ff9b::7f00:1", 80, false, false, "127.0.0.0/8");
        addr_is(r, "64:ff9b::a9fe:a9fe", 80, true, false, "169.254.0.0/16");
        addr_is(r, "64:ff9b::10.1.2.3", 80, false, false, "10.0.0.0/8");
        addr_is(r, "64:ff9b:1:7f00:0:100::", 80, false, false, "127.0.0.0/8");
        addr_is(r, "64:ff9b:1:c0a8:1:100::", 80, false, false, "192.168.0.0/16");
        addr_is(r, "2002:7f00:1::", 80, false, false, "127.0.0.0/8");
        addr_is(r, "2002:6440:1::1", 80, false, false, "100.64.0.0/10");
        addr_is(r, "2001:0:4136:e378:8000:63bf:80ff:fffe", 80, false, false, "127.0.0.0/8");
        addr_is(r, "2001:0:4136:e378:8000:63bf:f5fe:fdfc", 80, false, false, "10.0.0.0/8");
        addr_is(r, "::127.0.0.1", 80, false, false, "127.0.0.0/8");
        addr_is(r, "::ffff:0:127.0.0.1", 80, false, false, "127.0.0.0/8");
        addr_is(r, "64:ff9b::e000:1", 80, false, false, "224.0.0.0/4");
        /* A public IPv4 address inside is allowed, as the address itself would be. */
        addr_is(r, "64:ff9b::c633:6407", 80, false, true, NULL);
        addr_is(r, "2002:c633:6407::1", 80, false, true, NULL);
}

Test(net_rules, embedded_ipv4_obeys_rules_both_ways)
{
        /* A block of the IPv4 address holds inside; an exception of the IPv6 form does not lift
         * the floor or a block of what it carries; an exception of the IPv4 address lifts its
         * default range inside too (the same as the address written plainly). */
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("203.0.113.0/24"), L("64:ff9b::/96", "2002::/16", "10.9.9.9"));
        addr_is(r, "64:ff9b::203.0.113.5", 443, false, false, "203.0.113.0/24");
        addr_is(r, "64:ff9b::127.0.0.1", 443, false, false, "127.0.0.0/8");
        addr_is(r, "2002:a00:1::", 443, false, false, "10.0.0.0/8");
        addr_is(r, "64:ff9b::10.9.9.9", 443, false, true, "64:ff9b::/96");
        addr_is(r, "64:ff9b::198.51.100.7", 443, false, true, "64:ff9b::/96");
}

/* An admin block is a tier no user exception lifts: port-only blocks against address or name
 * exceptions, suffix blocks against exact names; an admin exception inside an admin block
 * lifts it, and the user's own blocks still apply below it. */
Test(net_rules, admin_blocks_beat_user_exceptions)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, NULL);
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rules_add_admin(r, "*:18080", false, "admin", &d), 0);
        cr_assert_eq(cordon_net_rules_add_admin(r, "*.x.test:443", false, "admin", &d), 0);
        cr_assert_eq(cordon_net_rules_add_admin(r, "198.18.0.0/15", false, "admin", &d), 0);
        cr_assert_eq(cordon_net_rules_add_admin(r, "198.18.7.0/24", true, "admin", &d), 0);
        cr_assert_eq(cordon_net_rules_add(r, "192.0.2.2", true, "user", &d), 0);
        cr_assert_eq(cordon_net_rules_add(r, "a.x.test", true, "user", &d), 0);
        cr_assert_eq(cordon_net_rules_add(r, "198.18.3.3", true, "user", &d), 0);
        cr_assert_eq(cordon_net_rules_add(r, "198.18.7.7", false, "user", &d), 0);
        cr_assert_eq(cordon_net_rules_add(r, "*", true, "user", &d), 0);

        addr_is(r, "192.0.2.2", 18080, false, false, "*:18080");
        addr_is(r, "192.0.2.2", 443, false, true, "192.0.2.2");
        name_is(r, "a.x.test", 443, false, "*.x.test:443");
        name_is(r, "a.x.test", 80, true, "a.x.test");
        addr_is(r, "198.18.3.3", 80, false, false, "198.18.0.0/15");
        addr_is(r, "198.18.7.1", 80, false, true, "198.18.7.0/24");
        addr_is(r, "198.18.7.7", 80, false, false, "198.18.7.7");
        /* A resolved name's addresses: the admin's address blocks still hold. */
        addr_is(r, "198.18.3.3", 80, true, false, "198.18.0.0/15");

        struct cordon_net_verdict v;
        struct cordon_net_addr a;
        cordon_net_addr_parse("192.0.2.2", &a);
        cordon_net_rules_check_addr(r, &a, 18080, false, &v);
        cr_expect_str_eq(v.reason, "blocked by an admin rule (no exception lifts it)");
        cr_expect(v.rule->admin);

        /* The same rules without the admin tier: the user's exceptions win (today's order). */
        _cleanup_rules_ struct cordon_net_rules *u =
            make(L("*:18080", "*.x.test:443"), L("192.0.2.2", "a.x.test"));
        addr_is(u, "192.0.2.2", 18080, false, true, "192.0.2.2");
        name_is(u, "a.x.test", 443, true, "a.x.test");
}

/* Whether @a and @b can match one destination (cordon_net_rule_overlaps()), both ways round. */
static bool overlaps(const char *a, const char *b)
{
        struct cordon_net_rule x, y;
        cr_assert_eq(cordon_net_rule_parse(a, false, NULL, &x, NULL), 0, "%s", a);
        cr_assert_eq(cordon_net_rule_parse(b, true, NULL, &y, NULL), 0, "%s", b);
        bool o = cordon_net_rule_overlaps(&x, &y);
        cr_assert_eq(o, cordon_net_rule_overlaps(&y, &x), "%s / %s: not symmetric", a, b);
        cordon_net_rule_clear(&x);
        cordon_net_rule_clear(&y);
        return o;
}

Test(net_rules, overlaps)
{
        static const struct {
                const char *a, *b;
                bool overlap;
        } cases[] = {
            {"*", "example.com", true},
            {"*", "10.0.0.1", true},
            {"443", "example.com", true},
            {"443", "example.com:443", true},
            {"443", "example.com:80", false},
            {"*:80", "10.0.0.0/8:80", true},
            {"example.com", "example.com:443", true},
            {"example.com:80", "example.com:443", false},
            {"example.com", "a.example.com", false},
            {"*.example.com", "a.example.com", true},
            {"*.example.com", "example.com", false},
            {"*.example.com", "*.a.example.com", true},
            {"*.a.example.com", "*.example.com", true},
            {"*.example.com", "*.example.org", false},
            {"10.0.0.0/8", "10.1.2.3", true},
            {"10.1.0.0/16", "10.0.0.0/8", true},
            {"10.0.0.0/8", "192.168.0.0/16", false},
            {"10.0.0.0/8", "::ffff:10.0.0.1", true}, /* the mapped form is the IPv4 rule */
            {"fc00::/7", "10.0.0.1", false},
            {"fc00::/7", "fd00::1", true},
            {"example.com", "10.0.0.1", false}, /* a name's addresses are not known here */
            {"*.example.com", "10.0.0.0/8", false},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                cr_expect_eq(overlaps(cases[i].a, cases[i].b), cases[i].overlap, "%s / %s",
                             cases[i].a, cases[i].b);
}

/* ---- host globs ---- */

/* `*` spans dots as bash's does; `?` is one character; the floor still wins. */
Test(net_rules, host_globs_match_as_bash)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("email.*.amazonaws.com", "api-?.example.com", "*.s3.*.amazonaws.com"), NULL);
        name_is(r, "email.eu-west-1.amazonaws.com", 443, false, "email.*.amazonaws.com");
        name_is(r, "Email.A.B.amazonaws.com.", 443, false, "email.*.amazonaws.com");
        name_is(r, "email.amazonaws.com", 443, true, NULL);
        name_is(r, "api-1.example.com", 443, false, "api-?.example.com");
        name_is(r, "api-12.example.com", 443, true, NULL);
        name_is(r, "bucket.s3.us-east-1.amazonaws.com", 443, false, "*.s3.*.amazonaws.com");
        name_is(r, "s3.us-east-1.amazonaws.com", 443, true, NULL);
        name_is(r, "api-1.example.com", 25, false, "25"); /* the floor */
        /* Names only: an address is never matched by a glob. */
        addr_is(r, "192.0.2.1", 443, false, true, NULL);
}

/* Precedence with globs: exact > glob by the characters it fixes (a *.suffix counts its dot)
 * > `*`; an exception wins a tie. */
Test(net_rules, glob_precedence)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("*.amazonaws.com", "email.eu.amazonaws.com", "api-*.example.com"),
                 L("email.*.amazonaws.com", "*.example.com", "api-?.example.com"));
        /* email.*.amazonaws.com fixes 20 characters, *.amazonaws.com 15: the exception wins. */
        name_is(r, "email.us.amazonaws.com", 443, true, "email.*.amazonaws.com");
        name_is(r, "s3.amazonaws.com", 443, false, "*.amazonaws.com");
        /* An exact name beats every glob. */
        name_is(r, "email.eu.amazonaws.com", 443, false, "email.eu.amazonaws.com");
        /* api-*.example.com (16) beats *.example.com (13); api-? (17) beats api-* (16). */
        name_is(r, "api-12.example.com", 443, false, "api-*.example.com");
        name_is(r, "api-1.example.com", 443, true, "api-?.example.com");
        name_is(r, "www.example.com", 443, true, "*.example.com");

        /* Equal weight: the exception wins whatever the order. */
        _cleanup_rules_ struct cordon_net_rules *t = make(L("a*.example.com"), L("*a.example.com"));
        name_is(t, "aa.example.com", 443, true, "*a.example.com");
        name_is(t, "ab.example.com", 443, false, "a*.example.com");
}

/* ---- URL paths ---- */

Test(net_rules, path_block_holds_for_plain_http_only)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("discord.com/api/webhooks", "outlook.office.com/webhook"), NULL);
        const char *b = "discord.com/api/webhooks";
        /* A connection (CONNECT, SOCKS5, filtered mode) does not show its path: the host is
         * not blocked by a path entry. */
        name_is(r, "discord.com", 443, true, NULL);
        name_is(r, "discord.com", 80, true, NULL);
        req_is(r, "discord.com", 80, "/api/webhooks", false, b, false);
        req_is(r, "discord.com", 80, "/api/webhooks/123/abc?wait=true", false, b, false);
        req_is(r, "discord.com", 80, "/api/webhooks/", false, b, false);
        req_is(r, "Discord.COM.", 8080, "/api/webhooks/1", false, b, false);
        req_is(r, "discord.com", 80, "/API/WebHooks/1", false, b, false); /* any case */
        req_is(r, "discord.com", 80, "/api/%77ebhooks/1", false, b, false);
        req_is(r, "discord.com", 80, "/api/webhooksX", true, NULL, false);
        req_is(r, "discord.com", 80, "/api/webhook", true, NULL, false);
        req_is(r, "discord.com", 80, "/api", true, NULL, false);
        req_is(r, "discord.com", 80, "", true, NULL, false);
        req_is(r, "discord.com", 80, "?/api/webhooks", true, NULL, false);
        req_is(r, "cdn.discord.com", 80, "/api/webhooks", true, NULL, false);
        req_is(r, "outlook.office.com", 80, "/webhook/x", false, "outlook.office.com/webhook",
               false);
        /* Spellings servers read two ways are refused where a path rule applies, and only
         * there. */
        req_is(r, "discord.com", 80, "/api//webhooks", false, b, true);
        req_is(r, "discord.com", 80, "/x/../api/webhooks", false, b, true);
        req_is(r, "discord.com", 80, "/api%2fwebhooks", false, b, true);
        req_is(r, "discord.com", 80, "/api/%2577ebhooks", false, b, true);
        req_is(r, "discord.com", 80, "/anything//else", false, b, true);
        req_is(r, "example.com", 80, "/api//webhooks", true, NULL, false);
        req_is(r, "example.com", 80, "/x/../y", true, NULL, false);
}

/* A path exception lifts a host block for plain HTTP under its path, exactly as written, and
 * nowhere it cannot see the path; a path block beats a host exception. */
Test(net_rules, path_precedence)
{
        _cleanup_rules_ struct cordon_net_rules *r =
            make(L("*", "api.example.com/admin", "*.example.net/upload"),
                 L("example.com/public", "api.example.com", "a.example.net"));
        req_is(r, "example.com", 80, "/public/x", true, "example.com/public", false);
        req_is(r, "example.com", 80, "/PUBLIC/x", false, "*", false); /* exact case only */
        req_is(r, "example.com", 80, "/private", false, "*", false);
        /* An unclear path matches no path rule; a path exception alone refuses nothing. */
        req_is(r, "example.com", 80, "/public/../private", false, "*", false);
        req_is(r, "example.com", 80, "/public//x", false, "*", false);
        _cleanup_rules_ struct cordon_net_rules *idle = make(NULL, L("example.com/x"));
        req_is(idle, "example.com", 80, "/a//b", true, NULL, false);
        req_is(idle, "example.com", 80, "/x/../y", true, NULL, false);
        name_is(r, "example.com", 443, false, "*"); /* a tunnel: the exception lifts nothing */
        req_is(r, "api.example.com", 80, "/admin/users", false, "api.example.com/admin", false);
        req_is(r, "api.example.com", 80, "/Admin", false, "api.example.com/admin", false);
        req_is(r, "api.example.com", 80, "/v1", true, "api.example.com", false);
        name_is(r, "api.example.com", 443, true, "api.example.com");
        /* The host part first: an exact exception beats a *.suffix block with a path. */
        req_is(r, "a.example.net", 80, "/upload", true, "a.example.net", false);
        req_is(r, "b.example.net", 80, "/upload/x", false, "*.example.net/upload", false);

        /* A longer path beats a shorter one; an exception with the same path wins the tie. */
        _cleanup_rules_ struct cordon_net_rules *t =
            make(L("discord.com/api/webhooks", "example.org/a"),
                 L("discord.com/api/webhooks/123", "example.org/a"));
        req_is(t, "discord.com", 80, "/api/webhooks/123/x", true, "discord.com/api/webhooks/123",
               false);
        req_is(t, "discord.com", 80, "/api/webhooks/124", false, "discord.com/api/webhooks", false);
        req_is(t, "example.org", 80, "/a", true, "example.org/a", false);
}

/* The floor and the admin tier hold for requests as for connections. */
Test(net_rules, path_floor_and_admin)
{
        _cleanup_rules_ struct cordon_net_rules *r = make(NULL, L("hooks.slack.com/ok"));
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rules_add_admin(r, "discord.com/api/webhooks", false, "admin", &d),
                     0);
        cr_assert_eq(cordon_net_rules_add(r, "discord.com/api/webhooks/1", true, "user", &d), 0);
        req_is(r, "hooks.slack.com", 80, "/ok", false, "hooks.slack.com", false);
        req_is(r, "hooks.slack.com", 80, "//ok", false, "hooks.slack.com", false);
        req_is(r, "discord.com", 80, "/api/webhooks/1", false, "discord.com/api/webhooks", false);
        req_is(r, "discord.com", 80, "/api/x", true, NULL, false);
}

Test(net_rules, covers_globs_and_paths)
{
        static const struct {
                const char *block, *except;
                bool covered;
        } cases[] = {
            {"*.amazonaws.com", "email.*.amazonaws.com", true},
            {"email.*.amazonaws.com", "email.eu-west-1.amazonaws.com", true},
            {"email.*.amazonaws.com", "email.eu-west-1.amazonaws.com:443", true},
            {"email.*.amazonaws.com", "*.amazonaws.com", false},
            {"email.*.amazonaws.com", "email.amazonaws.com", false},
            {"api-?.example.com", "api-1.example.com", true},
            {"api-?.example.com", "api-12.example.com", false},
            {"api-?.example.com", "api-*.example.com", false},
            {"*.example.com", "api-?.example.com", true},
            {"example.com", "api-?.example.com", false},
            {"email.*.amazonaws.com:443", "email.eu.amazonaws.com", false},
            /* A path block covers exceptions at or under its path only. */
            {"discord.com/api/webhooks", "discord.com/api/webhooks/123", true},
            {"discord.com/api/webhooks", "discord.com/API/webhooks", true},
            {"discord.com/api/webhooks", "discord.com/api/webhooks", true},
            {"discord.com/api/webhooks", "discord.com/api", false},
            {"discord.com/api/webhooks", "discord.com", false},
            {"discord.com/api/webhooks", "discord.com/api/webhooksx", false},
            {"discord.com", "discord.com/api/webhooks", true},
            {"*.discord.com/api", "cdn.discord.com/api/x", true},
            {"*", "discord.com/api", true},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_assert_eq(covers(cases[i].block, cases[i].except), cases[i].covered,
                             "%s covers %s: expected %s", cases[i].block, cases[i].except,
                             cases[i].covered ? "yes" : "no");
}

Test(net_rules, overlaps_globs_and_paths)
{
        static const struct {
                const char *a, *b;
                bool overlap;
        } cases[] = {
            {"email.*.amazonaws.com", "email.eu-west-1.amazonaws.com", true},
            {"email.*.amazonaws.com", "*.eu-west-1.amazonaws.com", true},
            {"email.*.amazonaws.com", "smtp.eu.amazonaws.com", false},
            {"api-?.example.com", "*.example.com", true},
            {"api-?.example.com", "api-12.example.com", false},
            {"api-?.example.com", "10.0.0.0/8", false},
            {"discord.com/api/webhooks", "discord.com", true},
            {"discord.com/api/webhooks", "discord.com/api/webhooks/1", true},
            {"discord.com/api/webhooks", "discord.com/API", true},
            {"discord.com/api/webhooks", "discord.com/api/other", false},
            {"discord.com/api/webhooks", "example.com/api/webhooks", false},
            {"*.discord.com/a", "x.discord.com/a/b", true},
            {"*", "discord.com/api", true},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_expect_eq(overlaps(cases[i].a, cases[i].b), cases[i].overlap, "%s / %s",
                             cases[i].a, cases[i].b);
}
