/* The filtered network mode's hooks (see net-filtered.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/launch/launch.h"
#include "lib/launch/net-filtered.h"
#include "lib/launch/net-rules-note.h"
#include "lib/loop/loop.h"
#include "lib/mech/nft.h"
#include "lib/mech/pasta.h"
#include "lib/net/net-host.h"
#include "lib/net/net-rules.h"
#include "lib/policy/diag.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"

static void rules_freep(struct cordon_net_rules **r)
{
        cordon_net_rules_free(*r);
}

int cordon_net_filtered_prepare(struct cordon_launch *l, struct cordon_diag *diag)
{
        const struct cordon_policy *p = l->p;
        cordon_nft_plan_clear(&l->nft);
        /* Only the facts: whether pasta really works shows when it starts (and the settings'
         * fallback has probed, unless NETWORK_FILTER_SKIP_HELPER_PROBE said not to). */
        const struct cordon_pasta_config cfg = {.path = p->net.filter_helper};
        int r = cordon_pasta_probe(&cfg, l->backend, true, diag);
        if (r < 0)
                return r;
        const char *err = NULL;
        if ((r = cordon_nft_open(&err)) < 0)
                return cordon_diag_set(diag, r,
                                       "the filtered network's firewall needs libnftables, which "
                                       "cannot be loaded: %s (install libnftables1)",
                                       err);
        if (l->dry_run)
                return 0;

        _cleanup_(rules_freep) struct cordon_net_rules *own = NULL;
        const struct cordon_net_rules *set = p->net.rules;
        if (!set) {
                if ((r = cordon_net_rules_new(&own)) < 0)
                        return r;
                set = own;
        }
        size_t n = cordon_net_rules_count(set);
        _cleanup_free_ const struct cordon_net_rule **rules = calloc(n ? n : 1, sizeof(*rules));
        if (!rules)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                rules[i] = cordon_net_rules_get(set, i);

        _cleanup_free_ struct cordon_net_addr *host = NULL;
        struct cordon_nft_extra extra = {0};
        if ((r = cordon_net_host_addrs(&host, &extra.n_host)) < 0)
                return cordon_diag_set(diag, r, "failed to list the host's addresses: %s",
                                       strerror(-r));
        extra.host = host;
        if ((r = cordon_nft_plan_build(rules, n, &extra, &l->nft)) < 0)
                return r;
        cordon_net_rules_note(l);
        /* They point into the policy, which is not referenced after the start. */
        free(l->nft.unapplied);
        l->nft.unapplied = NULL;
        l->nft.n_unapplied = 0;
        return 0;
}

int cordon_net_filtered_parent(struct cordon_launch *l, pid_t child, struct cordon_diag *diag)
{
        /* No --dns-forward: the sandbox's DNS is cordon's resolver (dns-relay.h), and the
         * firewall refuses port 53 everywhere else. Started, not awaited: its start-up (the
         * longest step of a filtered launch) overlaps the child's steps, and the child waits
         * for cordon_net_filtered_ready() before its command. */
        const struct cordon_pasta_config cfg = {.path = l->p->net.filter_helper};
        return cordon_pasta_spawn(&cfg, child, &l->pasta, diag);
}

int cordon_net_filtered_ready(struct cordon_launch *l, int child_up, struct cordon_diag *diag)
{
        return cordon_pasta_wait_ready_or(&l->pasta, child_up, diag);
}

void cordon_net_filtered_lost(struct cordon_launch *l, const char *why)
{
        if (*l->net_lost)
                return;
        snprintf(l->net_lost, sizeof(l->net_lost), "filtered failed: %s", why);
        if (!l->warn)
                return;
        char line[sizeof(l->net_lost) + 128];
        snprintf(line, sizeof(line),
                 "network=isolated from now on (%s): the command has no network beyond its own "
                 "loopback",
                 l->net_lost);
        l->warn(l->userdata, line);
}

static int pasta_exited(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        struct cordon_launch *l = userdata;
        (void)fd;
        (void)revents;
        /* Said once: its pidfd stays readable. */
        (void)cordon_loop_io_set_enabled(io, false);
        char why[512], what[640];
        cordon_pasta_describe_exit(&l->pasta, why, sizeof(why));
        snprintf(what, sizeof(what),
                 "pasta, the filtered network's helper, ended while the sandbox ran (%s)", why);
        cordon_net_filtered_lost(l, what);
        l->pasta_end_said = true;
        return 0;
}

int cordon_net_filtered_watch(struct cordon_launch *l, struct cordon_loop *loop,
                              struct cordon_loop_io **ret)
{
        *ret = NULL;
        if (l->pasta.pid <= 0 || l->pasta.pidfd < 0 || l->pasta_end_said)
                return 0;
        return cordon_loop_add_io(loop, l->pasta.pidfd, EPOLLIN, pasta_exited, l, ret);
}

int cordon_net_filtered_child(const struct cordon_launch *l)
{
        return l->nft.text ? cordon_nft_load(l->nft.text) : -EINVAL;
}

void cordon_net_filtered_teardown(struct cordon_launch *l)
{
        cordon_pasta_stop(&l->pasta);
}
