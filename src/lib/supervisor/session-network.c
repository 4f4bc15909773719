/* Changing a live session's network rules (cordon/session.h): the new rule set is built in
 * full first; filtered mode's nftables ruleset is replaced inside the session's network
 * namespace in one transaction by a helper that joins its user and network namespaces (the
 * supervisor's user owns them); then the resolver and the proxy judge by the new set, and the
 * proxy closes the open connections it refuses. A weaker mode than the session's is refused. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/supervisor/dns-relay.h"
#include "lib/supervisor/egress.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/supervisor/session.h"
#include "lib/mech/nft.h"
#include "lib/net/net-host.h"
#include "lib/net/net-rules.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "lib/proxy/proxy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

static void rules_freep(struct cordon_net_rules **r)
{
        cordon_net_rules_free(*r);
}

/* The ruleset for @rules, as the start builds it (net-filtered.c). */
static int build_nft(const struct cordon_net_rules *rules, struct cordon_nft_plan *ret)
{
        size_t n = cordon_net_rules_count(rules);
        _cleanup_free_ const struct cordon_net_rule **v = calloc(n ? n : 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                v[i] = cordon_net_rules_get(rules, i);
        _cleanup_free_ struct cordon_net_addr *host = NULL;
        struct cordon_nft_extra extra = {0};
        int r = cordon_net_host_addrs(&host, &extra.n_host);
        if (r < 0)
                return r;
        extra.host = host;
        r = cordon_nft_plan_build(v, n, &extra, ret);
        if (r >= 0) {
                free(ret->unapplied);
                ret->unapplied = NULL;
                ret->n_unapplied = 0;
        }
        return r;
}

/* Replaces the session's table with @text in one nftables transaction, from a helper in the
 * session's user and network namespaces. */
static int replace_nft(const struct cordon_sandbox *sb, const char *text)
{
        /* Declaring the table first makes the delete valid whether or not it is there; the
         * whole buffer is one transaction: the old rules hold until the new ones do. */
        static const char prefix[] = "table inet cordon\ndelete table inet cordon\n";
        size_t n = strlen(text);
        _cleanup_free_ char *buf = malloc(sizeof(prefix) + n);
        if (!buf)
                return -ENOMEM;
        memcpy(buf, prefix, sizeof(prefix) - 1);
        memcpy(buf + sizeof(prefix) - 1, text, n + 1);
        int pfd[2];
        if (pipe2(pfd, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                safe_close(pfd[0]);
                safe_close(pfd[1]);
                return -e;
        }
        if (pid == 0) {
                int r = 0;
                if (setns(sb->ns_fds[0], CLONE_NEWUSER) < 0 ||
                    setns(sb->ns_fds[2], CLONE_NEWNET) < 0)
                        r = -errno;
                if (r >= 0)
                        r = cordon_nft_load(buf);
                (void)!write(pfd[1], &r, sizeof(r));
                _exit(r < 0 ? 1 : 0);
        }
        safe_close(pfd[1]);
        int r = -EIO;
        if (read(pfd[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
                r = -EIO;
        safe_close(pfd[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        return r;
}

_public_ int cordon_sandbox_set_network(struct cordon_sandbox *sb, const struct cordon_policy *p,
                                        struct cordon_diag *diag)
{
        if (!sb || !p)
                return -EINVAL;
        if (diag)
                diag->step = CORDON_STEP_NETWORK;
        struct cordon_session *s = sb->sess;
        if (!sb->session || !s || s->ended || atomic_load(&sb->ended))
                return cordon_diag_set(diag, -ENOTCONN, "the sandbox is not a live session");
        /* The session's mode as the report has it: a change to isolated stays. */
        const enum cordon_net_mode cur = sb->report.net_mode, want = p->net_mode;
        /* open < filtered < proxied < isolated, as NETWORK_FILTER_FALLBACK's "stricter". */
        if (want < cur)
                return cordon_diag_set(
                    diag, -EPERM, "network mode %s is weaker than the session's %s",
                    cordon_net_mode_traits(want)->name, cordon_net_mode_traits(cur)->name);
        /* Isolated from filtered or proxied: the same machinery with every destination
         * refused (the proxy closes what it carries; the firewall lets only the loopback
         * through; the resolver answers nothing). Any other change of mode would need what the
         * session was not started with (a proxy inside, a namespace of its own). */
        const enum cordon_net_mode run = sb->l.net_mode;
        const struct cordon_net_mode_traits *t = cordon_net_mode_traits(run);
        const bool isolate = want == CORDON_NET_ISOLATED && (t->proxy || t->dns);
        if (want != cur && !isolate)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "a live %s session can change its rules "
                                       "(NETWORK_BLOCKLIST, NETWORK_BLOCKLIST_EXCEPT) or become "
                                       "isolated, not become %s",
                                       cordon_net_mode_traits(cur)->name,
                                       cordon_net_mode_traits(want)->name);
        if (!t->proxy && !t->dns)
                return 0; /* open and isolated have no rules to change */
        _cleanup_(rules_freep) struct cordon_net_rules *rules = NULL;
        int r =
            isolate ? cordon_net_rules_new(&rules) : cordon_egress_copy_rules(p->net.rules, &rules);
        if (r >= 0 && isolate)
                r = cordon_net_rules_add(rules, "*", false, "isolated by a network change", NULL);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to copy the network rules: %s",
                                       strerror(-r));
        if (t->dns) {
                /* Filtered: the firewall first; only once it holds does the resolver follow. */
                if (sb->ns_fds[0] < 0 || sb->ns_fds[2] < 0)
                        return cordon_diag_set(diag, -EOPNOTSUPP,
                                               "the session's network namespace is not at hand");
                struct cordon_nft_plan plan = {0};
                r = build_nft(rules, &plan);
                if (r >= 0)
                        r = replace_nft(sb, plan.text);
                cordon_nft_plan_clear(&plan);
                if (r < 0)
                        return cordon_diag_set(
                            diag, r, "failed to replace the session's firewall: %s", strerror(-r));
                if (sb->dns)
                        cordon_dns_relay_set_rules(sb->dns, rules);
        }
        if (t->proxy && sb->proxy)
                (void)cordon_proxy_set_rules(sb->proxy, rules);
        /* The old set is no one's any more. */
        cordon_net_rules_free(sb->net_rules);
        sb->net_rules = TAKE_PTR(rules);
        if (isolate) {
                sb->report.net_mode = CORDON_NET_ISOLATED;
                sb->report.net_note = "isolated by a network change: every destination refused";
        }
        return 0;
}
