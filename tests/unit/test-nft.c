/* Unit tests for src/lib/mech/nft.c: the filtered mode's ruleset text, pinned line by line (the
 * order of the rules is how most-specific-wins is enforced), the rules it cannot apply, and, as
 * root, that nftables accepts the text and that it loads into a fresh network namespace. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/mech/nft.h"

static struct cordon_net_rule cidr(const char *a, unsigned prefix, uint16_t port, bool exception,
                                   bool floor)
{
        struct cordon_net_rule r = {.kind = CORDON_NET_RULE_CIDR,
                                    .exception = exception,
                                    .floor = floor,
                                    .port = port,
                                    .prefix = prefix};
        if (inet_pton(AF_INET, a, &r.addr.v4) == 1)
                r.addr.family = AF_INET;
        else if (inet_pton(AF_INET6, a, &r.addr.v6) == 1)
                r.addr.family = AF_INET6;
        else
                cr_assert_fail("bad address %s", a);
        return r;
}

static struct cordon_net_rule port(uint16_t p, bool exception, bool floor)
{
        return (struct cordon_net_rule){
            .kind = CORDON_NET_RULE_PORT, .port = p, .exception = exception, .floor = floor};
}

static const char head[] =
    "table inet cordon {\n"
    "\tchain output {\n"
    "\t\ttype filter hook output priority filter; policy accept;\n"
    "\t\t# the sandbox's own loopback (and its own copy of the host's address)\n"
    "\t\toif \"lo\" accept\n"
    "\t\t# neighbour discovery with pasta, which answers it itself\n"
    "\t\ticmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert } accept\n"
    "\t\t# the floor: never lifted\n";

#define REJ "reject with icmpx type admin-prohibited"

/* A floor, the default-blocked ranges, user rules in a scrambled order, and name rules. */
static struct cordon_net_rule sample[14];
static char smtp_name[] = "smtp.example", org_suffix[] = "example.org";
static const struct cordon_net_rule *sample_ptrs[14];

static void make_sample(void)
{
        size_t i = 0;
        sample[i++] = cidr("127.0.0.0", 8, 0, false, true);
        sample[i++] = cidr("::1", 128, 0, false, true);
        sample[i++] = port(25, false, true);
        sample[i++] = (struct cordon_net_rule){
            .kind = CORDON_NET_RULE_HOST, .floor = true, .name = smtp_name};
        sample[i++] = cidr("10.0.0.0", 8, 0, false, false); /* default-blocked */
        sample[i++] = cidr("fc00::", 7, 0, false, false);   /* default-blocked */
        sample[i++] = cidr("10.1.2.0", 24, 0, true, false); /* lifts a part of 10/8 */
        sample[i++] = port(22, false, false);               /* bare port block */
        sample[i++] = cidr("198.19.255.0", 24, 0, false, false);
        sample[i++] = cidr("198.19.255.7", 32, 0, true, false);
        sample[i++] = cidr("198.18.0.0", 15, 443, true, false);
        sample[i++] = cidr("198.18.0.0", 15, 0, false, false); /* equal specificity below */
        sample[i++] = (struct cordon_net_rule){.kind = CORDON_NET_RULE_SUFFIX, .name = org_suffix};
        sample[i++] = (struct cordon_net_rule){.kind = CORDON_NET_RULE_ANY, .exception = false};
        for (size_t k = 0; k < i; k++)
                sample_ptrs[k] = &sample[k];
}

/* @text without the lines of the embedded IPv4 forms (pinned in their own test below). */
static char *without_embedded(const char *text)
{
        char *out = calloc(1, strlen(text) + 1), *o = out;
        cr_assert_not_null(out);
        for (const char *l = text; *l;) {
                const char *nl = strchr(l, '\n');
                size_t len = nl ? (size_t)(nl - l + 1) : strlen(l);
                char line[1024];
                snprintf(line, sizeof(line), "%.*s", (int)len, l);
                if (!strstr(line, "@nh,") && !strstr(line, "# IPv4 blocks and the host's")) {
                        memcpy(o, l, len);
                        o += len;
                }
                l += len;
        }
        return out;
}

Test(nft, ordering_pinned)
{
        make_sample();
        struct cordon_net_addr host = {.family = AF_INET};
        inet_pton(AF_INET, "192.0.2.2", &host.v4);
        struct cordon_nft_extra extra = {.host = &host, .n_host = 1};
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(sample_ptrs, 14, &extra, &plan), 0);

        char want[4096];
        snprintf(want, sizeof(want),
                 "%s"
                 "\t\tip daddr 127.0.0.0/8 " REJ "\n"
                 "\t\tip6 daddr ::1 " REJ "\n"
                 "\t\tmeta l4proto { tcp, udp } th dport 25 " REJ "\n"
                 "\t\t# DNS: only cordon's resolver, on the loopback\n"
                 "\t\tmeta l4proto { tcp, udp } th dport 53 " REJ "\n"
                 "\t\t# the host's own addresses: its services are not reached through pasta\n"
                 "\t\tip daddr 192.0.2.2 " REJ "\n"
                 "\t\t# the rules, most specific first\n"
                 "\t\tip daddr 198.19.255.7 accept\n"
                 "\t\tip daddr 10.1.2.0/24 accept\n"
                 "\t\tip daddr 198.19.255.0/24 " REJ "\n"
                 "\t\tip daddr 198.18.0.0/15 meta l4proto { tcp, udp } th dport 443 accept\n"
                 "\t\tip daddr 198.18.0.0/15 " REJ "\n"
                 "\t\tip daddr 10.0.0.0/8 " REJ "\n"
                 "\t\tip6 daddr fc00::/7 " REJ "\n"
                 "\t\tmeta l4proto { tcp, udp } th dport 22 " REJ "\n"
                 "\t\t" REJ "\n"
                 "\t}\n}\n",
                 head);
        char *got = without_embedded(plan.text);
        cr_expect_str_eq(got, want);
        free(got);
        /* The suffix rule is not applied; the floor's host is never listed. */
        cr_assert_eq(plan.n_unapplied, 1);
        cr_expect_eq(plan.unapplied[0], &sample[12]);
        cordon_nft_plan_clear(&plan);
        cr_expect_null(plan.text);
}

Test(nft, exception_first_at_equal_specificity)
{
        struct cordon_net_rule r[] = {port(8080, false, false), port(8080, true, false)};
        const struct cordon_net_rule *p[] = {&r[0], &r[1]};
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(p, 2, NULL, &plan), 0);
        const char *accept = strstr(plan.text, "th dport 8080 accept");
        const char *reject = strstr(plan.text, "th dport 8080 " REJ);
        cr_assert(accept && reject && accept < reject, "%s", plan.text);
        cordon_nft_plan_clear(&plan);
}

Test(nft, floor_exception_never_accepts)
{
        /* A floor rule is a block whatever its flags say: it is never lifted. */
        struct cordon_net_rule r = cidr("169.254.0.0", 16, 0, true, true);
        const struct cordon_net_rule *p[] = {&r};
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(p, 1, NULL, &plan), 0);
        cr_expect(strstr(plan.text, "ip daddr 169.254.0.0/16 " REJ "\n"), "%s", plan.text);
        cr_expect_null(strstr(plan.text, "accept\n\t}"), "%s", plan.text);
        cordon_nft_plan_clear(&plan);
}

Test(nft, resolvers_parsed)
{
        char path[] = "/tmp/cordon-test-resolv-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        const char text[] = "# comment\nsearch example\nnameserver 10.255.255.53\n"
                            "nameserver fe80::1%eth0\nnameserver 2001:db8::53\n"
                            "nameserver 10.255.255.53\nnameserver bogus\n";
        cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
        close(fd);
        struct cordon_net_addr *v = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_nft_resolvers(path, &v, &n), 0);
        unlink(path);
        cr_assert_eq(n, 2);
        cr_expect_eq(v[0].family, AF_INET);
        cr_expect_eq(v[1].family, AF_INET6);
        free(v);
        cr_assert_eq(cordon_nft_resolvers("/nonexistent/resolv.conf", &v, &n), 0);
        cr_expect_eq(n, 0);
        free(v);
}

/* As root: nft itself accepts the text (-c: check only, nothing loaded). */
Test(nft, nftables_accepts_it)
{
        if (geteuid() != 0) {
                cr_skip_test("needs root (nft -c and a network namespace)");
                return;
        }
        make_sample();
        struct cordon_net_addr host = {.family = AF_INET6};
        inet_pton(AF_INET6, "2001:db8::2", &host.v6);
        struct cordon_nft_extra extra = {.host = &host, .n_host = 1};
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(sample_ptrs, 14, &extra, &plan), 0);

        char path[] = "/tmp/cordon-test-nft-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        cr_assert_eq(write(fd, plan.text, strlen(plan.text)), (ssize_t)strlen(plan.text));
        close(fd);
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "nft -c -f %s", path);
        int st = system(cmd);
        unlink(path);
        cr_expect_eq(st, 0, "nft -c refused:\n%s", plan.text);

        cordon_nft_plan_clear(&plan);
}

/* For everyone: the library loads the ruleset into a network namespace of a forked child's own
 * (in a user namespace of its own, as the sandbox's child does), and refuses garbage. */
static int load_in_child(const char *text)
{
        /* As the supervisor does before the clone: the library is opened, not linked. */
        cr_assert_eq(cordon_nft_open(NULL), 0);
        pid_t pid = fork();
        if (pid == 0) {
                if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
                        _exit(2);
                _exit(-cordon_nft_load(text) & 0xff);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
                return -1;
        return WEXITSTATUS(st);
}

Test(nft, loads_in_a_namespace)
{
        make_sample();
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(sample_ptrs, 14, NULL, &plan), 0);
        int r = load_in_child(plan.text);
        if (r == 2) {
                cr_skip_test("no user namespaces here");
                return;
        }
        cr_expect_eq(r, 0, "loading failed: errno %d", r);
        cr_expect_eq(load_in_child("table inet cordon { chain x { bogus } }"), EINVAL);
        cordon_nft_plan_clear(&plan);
}

/* The real rule set (the floor and the default-blocked ranges, as net-rules.c holds them, plus a
 * user's rules of every kind) lowers into a ruleset that loads, and only the user's name rules
 * are listed as not applied. */
Test(nft, real_floor_loads)
{
        struct cordon_net_rules *set = NULL;
        cr_assert_eq(cordon_net_rules_new(&set), 0);
        static const char *const patterns[] = {"example.com",
                                               "*.example.org",
                                               "22",
                                               "*",
                                               "203.0.113.0/24:443",
                                               "2001:db8::/32",
                                               "email.*.example.net",
                                               "[2001:db8::]/32:25",
                                               "discord.example/api/webhooks"};
        struct cordon_diag d = {0};
        for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
                cr_assert_eq(cordon_net_rules_add(set, patterns[i], i % 2, "test", &d), 0, "%s",
                             d.message);
        cr_assert_eq(cordon_net_rules_add(set, "10.1.0.0/16", true, "test", &d), 0);
        size_t n = cordon_net_rules_count(set);
        const struct cordon_net_rule **v = calloc(n, sizeof(*v));
        cr_assert_not_null(v);
        for (size_t i = 0; i < n; i++)
                v[i] = cordon_net_rules_get(set, i);
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(v, n, NULL, &plan), 0);
        /* The names, the glob and the path entry are not applied; [v6]/len:port is. */
        cr_expect_eq(plan.n_unapplied, 4);
        cr_expect(strstr(plan.text, "ip daddr 10.1.0.0/16 accept\n"), "%s", plan.text);
        cr_expect(strstr(plan.text, "ip6 daddr 2001:db8::/32 meta l4proto { tcp, udp } th dport "
                                    "25 accept"), /* an exception: odd index */
                  "%s", plan.text);
        cr_expect(!strstr(plan.text, "example.net") && !strstr(plan.text, "discord"), "%s",
                  plan.text);
        int r = load_in_child(plan.text);
        if (r != 2)
                cr_expect_eq(r, 0, "loading failed: errno %d\n%s", r, plan.text);
        cordon_nft_plan_clear(&plan);
        free(v);
        cordon_net_rules_free(set);
}

/* The IPv4 blocks and the host's IPv4 addresses inside each IPv6 form that carries one, matched
 * by payload (the IPv6 destination starts at bit 192 of the header); exceptions are not. */
Test(nft, embedded_forms_pinned)
{
        struct cordon_net_rule r[4] = {
            cidr("127.0.0.0", 8, 0, false, true),
            cidr("169.254.0.0", 16, 0, false, true),
            cidr("10.1.2.0", 24, 0, true, false),
            cidr("198.18.0.0", 15, 443, false, false),
        };
        const struct cordon_net_rule *ptrs[4] = {&r[0], &r[1], &r[2], &r[3]};
        struct cordon_net_addr host = {.family = AF_INET};
        inet_pton(AF_INET, "192.0.2.2", &host.v4);
        struct cordon_nft_extra extra = {.host = &host, .n_host = 1};
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(ptrs, 4, &extra, &plan), 0);
        static const char *const want[] = {
            "ip6 daddr 64:ff9b::/96 @nh,288,8 0x7f " REJ "\n",
            "ip6 daddr 64:ff9b::/96 @nh,288,16 0xa9fe " REJ "\n",
            "ip6 daddr 64:ff9b::/96 @nh,288,15 0x6309 meta l4proto { tcp, udp } th dport 443 " REJ
            "\n",
            "ip6 daddr 64:ff9b::/96 @nh,288,32 0xc0000202 " REJ "\n",
            /* RFC 6052's /48 layout: two bytes at 48, the "u" octet skipped, two at 72 */
            "ip6 daddr 64:ff9b:1::/48 @nh,240,8 0x7f " REJ "\n",
            "ip6 daddr 64:ff9b:1::/48 @nh,240,16 0xc000 @nh,264,16 0x202 " REJ "\n",
            "ip6 daddr 2002::/16 @nh,208,8 0x7f " REJ "\n",
            "ip6 daddr 2002::/16 @nh,208,32 0xc0000202 " REJ "\n",
            /* Teredo: the client address inverted */
            "ip6 daddr 2001::/32 @nh,288,8 0x80 " REJ "\n",
            "ip6 daddr 2001::/32 @nh,288,16 0x5601 " REJ "\n",
            "ip6 daddr ::/96 @nh,288,8 0x7f " REJ "\n",
            "ip6 daddr ::ffff:0:0:0/96 @nh,288,8 0x7f " REJ "\n",
        };
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
                cr_expect_not_null(strstr(plan.text, want[i]), "missing: %s\nin:\n%s", want[i],
                                   plan.text);
        /* The exception's range is not refused inside them. */
        cr_expect_null(strstr(plan.text, "0xa0102"), "%s", plan.text);
        cordon_nft_plan_clear(&plan);
}

/* The admin tier: the admin's rules in a chain of their own, jumped to after the floor; an
 * admin block rejects there whatever user exception follows, an admin exception returns. */
Test(nft, admin_tier_before_user_rules)
{
        struct cordon_net_rule r[4] = {
            port(18080, false, false),
            cidr("192.0.2.2", 32, 0, true, false),
            cidr("198.18.0.0", 15, 0, false, false),
            cidr("198.18.0.3", 32, 0, true, false),
        };
        r[0].admin = r[3].admin = true;
        const struct cordon_net_rule *ptrs[4] = {&r[0], &r[1], &r[2], &r[3]};
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(ptrs, 4, NULL, &plan), 0);
        cr_expect_eq(strncmp(plan.text,
                             "table inet cordon {\n"
                             "\tchain admin {\n"
                             "\t\tip daddr 198.18.0.3 return\n"
                             "\t\tmeta l4proto { tcp, udp } th dport 18080 " REJ "\n"
                             "\t}\n"
                             "\tchain output {\n",
                             strlen("table inet cordon {\n\tchain admin {\n")),
                     0, "%s", plan.text);
        cr_expect_not_null(strstr(plan.text,
                                  "\tchain admin {\n"
                                  "\t\tip daddr 198.18.0.3 return\n"
                                  "\t\tmeta l4proto { tcp, udp } th dport 18080 " REJ "\n"
                                  "\t}\n"),
                           "%s", plan.text);
        const char *jump = strstr(plan.text, "\t\tjump admin\n");
        const char *user = strstr(plan.text, "\t\tip daddr 192.0.2.2 accept\n");
        cr_expect(jump && user && jump < user, "%s", plan.text);
        cordon_nft_plan_clear(&plan);

        /* Without admin rules there is no chain and no jump. */
        r[0].admin = r[3].admin = false;
        cr_assert_eq(cordon_nft_plan_build(ptrs, 4, NULL, &plan), 0);
        cr_expect_null(strstr(plan.text, "chain admin"), "%s", plan.text);
        cr_expect_null(strstr(plan.text, "jump admin"), "%s", plan.text);
        cordon_nft_plan_clear(&plan);
}

/* As root: nftables accepts the admin chain and the payload matches. */
Test(nft, nftables_accepts_admin_and_embedded)
{
        if (geteuid() != 0) {
                cr_skip_test("needs root (nft -c)");
                return;
        }
        struct cordon_net_rule r[3] = {
            port(18080, false, false),
            cidr("100.64.0.0", 10, 0, false, false),
            cidr("224.0.0.0", 4, 0, false, true),
        };
        r[0].admin = true;
        const struct cordon_net_rule *ptrs[3] = {&r[0], &r[1], &r[2]};
        struct cordon_nft_plan plan;
        cr_assert_eq(cordon_nft_plan_build(ptrs, 3, NULL, &plan), 0);
        char path[] = "/tmp/cordon-test-nft-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        cr_assert_eq(write(fd, plan.text, strlen(plan.text)), (ssize_t)strlen(plan.text));
        close(fd);
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "nft -c -f %s", path);
        int st = system(cmd);
        unlink(path);
        cr_expect_eq(st, 0, "nft -c refused:\n%s", plan.text);
        cordon_nft_plan_clear(&plan);
}
