/* Unit tests for src/lib/launch/net-rules-note.c: the one line about the caller's network rules
 * a mode cannot apply in full, its counts, and when it says nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/launch/launch.h"
#include "lib/launch/net-rules-note.h"
#include "lib/net/net-rules.h"
#include "lib/policy/policy.h"

TestSuite(net_rules_note);

static char line[1024];
static int n_lines;

static void collect(void *userdata, const char *message)
{
        (void)userdata;
        snprintf(line, sizeof(line), "%s", message);
        n_lines++;
}

/* The note for a policy with @blocks and @excepts, delivered mode @mode. */
static void note(const char *const *blocks, const char *const *excepts, enum cordon_net_mode mode,
                 bool dry_run)
{
        struct cordon_policy *p = cordon_policy_new();
        cr_assert_not_null(p);
        cr_assert_eq(cordon_net_rules_new(&p->net.rules), 0);
        for (size_t i = 0; blocks && blocks[i]; i++)
                cr_assert_eq(cordon_net_rules_add(p->net.rules, blocks[i], false, "t", NULL), 0);
        for (size_t i = 0; excepts && excepts[i]; i++)
                cr_assert_eq(cordon_net_rules_add(p->net.rules, excepts[i], true, "t", NULL), 0);
        struct cordon_launch l = {.p = p, .net_mode = mode, .warn = collect, .dry_run = dry_run};
        n_lines = 0;
        line[0] = 0;
        cordon_net_rules_note(&l);
        cordon_net_rules_note(&l); /* once per launch */
        cordon_policy_free(p);
}
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(net_rules_note, filtered_counts_host_names)
{
        note(L("api.example.com", "*.example.net", "email.*.example.org", "discord.example/api",
               "10.0.0.0/8:25", "853", "[::]/0:25"),
             NULL, CORDON_NET_FILTERED, false);
        cr_expect_eq(n_lines, 1);
        cr_expect_str_eq(line, "filtered mode: 4 NETWORK_BLOCKLIST host-name entries apply to the "
                               "names its resolver answers, not to connections by address (1 with "
                               "a path: not at all); NETWORK_FILTER_MODE=proxied applies them to "
                               "connections; listed by the explanation of NETWORK_BLOCKLIST");
        note(NULL, L("api.example.com"), CORDON_NET_FILTERED, false);
        cr_expect_str_eq(line, "filtered mode: 1 NETWORK_BLOCKLIST_EXCEPT host-name entry applies "
                               "to the names its resolver answers, not to connections by address; "
                               "NETWORK_FILTER_MODE=proxied applies it to connections; listed by "
                               "the explanation of NETWORK_BLOCKLIST_EXCEPT");
        note(L("discord.example/api/webhooks"), NULL, CORDON_NET_PROXIED, false);
        cr_expect_str_eq(line, "proxied mode: 1 NETWORK_BLOCKLIST entry with a URL path applies to "
                               "plain HTTP requests only, not to HTTPS or other tunnels to its "
                               "host; listed by the explanation of NETWORK_BLOCKLIST");
}

Test(net_rules_note, proxied_says_path_entries_only)
{
        note(L("api.example.com", "discord.example/api/webhooks", "outlook.example/webhook"),
             L("discord.example/api/webhooks/1"), CORDON_NET_PROXIED, false);
        cr_expect_eq(n_lines, 1);
        cr_expect_str_eq(line, "proxied mode: 2 NETWORK_BLOCKLIST and 1 NETWORK_BLOCKLIST_EXCEPT "
                               "entries with a URL path apply to plain HTTP requests only, not to "
                               "HTTPS or other tunnels to their hosts; listed by the explanation "
                               "of NETWORK_BLOCKLIST and the explanation of "
                               "NETWORK_BLOCKLIST_EXCEPT");
}

Test(net_rules_note, silent_when_nothing_is_left_out)
{
        /* Addresses and ports only; the floor's names; a proxied mode without path entries; a
         * dry run; the open and isolated modes. */
        note(L("10.0.0.0/8", "853"), NULL, CORDON_NET_FILTERED, false);
        cr_expect_eq(n_lines, 0, "%s", line);
        note(NULL, NULL, CORDON_NET_FILTERED, false);
        cr_expect_eq(n_lines, 0, "%s", line);
        note(L("api.example.com", "*.example.net"), NULL, CORDON_NET_PROXIED, false);
        cr_expect_eq(n_lines, 0, "%s", line);
        note(L("api.example.com"), NULL, CORDON_NET_FILTERED, true);
        cr_expect_eq(n_lines, 0, "%s", line);
        note(L("api.example.com/x"), NULL, CORDON_NET_OPEN, false);
        cr_expect_eq(n_lines, 0, "%s", line);
        note(L("api.example.com/x"), NULL, CORDON_NET_ISOLATED, false);
        cr_expect_eq(n_lines, 0, "%s", line);
}
