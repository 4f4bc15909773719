/* The sandbox's egress proxy (proxied mode), from the supervisor's side: its rules and log are
 * taken before the clone (the policy is not referenced after the start), the listening socket
 * PID 1 opened inside arrives over the control channel (the landlock backend's: made by the
 * launch on the host's loopback, net-proxied.c), and the proxy then runs as one source of the
 * supervisor's event loop. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/launch/egress.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/net/net-rules.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/output-file.h"
#include "lib/policy/policy.h"
#include "lib/proxy/proxy.h"
#include "shared/macro.h"

/* A copy of @from: the built-in rules come with every new set, the others are added again in
 * their order, with their origins. */
static int copy_rules(const struct cordon_net_rules *from, struct cordon_net_rules **ret)
{
        struct cordon_net_rules *to = NULL;
        int r = cordon_net_rules_new(&to);
        if (r < 0)
                return r;
        size_t builtin = cordon_net_rules_count(to);
        for (size_t i = builtin; from && i < cordon_net_rules_count(from); i++) {
                const struct cordon_net_rule *rule = cordon_net_rules_get(from, i);
                if ((r = cordon_net_rules_add(to, rule->pattern, rule->exception, rule->origin,
                                              NULL)) < 0) {
                        cordon_net_rules_free(to);
                        return r;
                }
        }
        *ret = to;
        return 0;
}

int cordon_egress_prepare(struct cordon_sandbox *sb, const struct cordon_policy *p,
                          struct cordon_diag *diag)
{
        /* Again after a fallback to proxied: what the first call made stays. */
        if (!cordon_net_mode_traits(sb->l.net_mode)->proxy || sb->l.dry_run || sb->net_rules)
                return 0;
        int r = copy_rules(p->net.rules, &sb->net_rules);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to copy the network rules: %s",
                                       strerror(-r));
        /* Opened as the caller: not where the sandbox could forge it, not through a link a
         * sandbox could have planted (one in ~/proj/logs -> ~/.config/autostart put the
         * log where the desktop runs files), beneath its directory without following links,
         * and only a regular file (output-file.c). */
        if (p->net.log_path && (r = cordon_policy_open_output_append(
                                    p, p->net.log_path, "NETWORK_LOG", &sb->net_log_fd, diag)) < 0)
                return r;
        if (p->net.proxy_dns && !(sb->proxy_dns = strdup(p->net.proxy_dns)))
                return -ENOMEM;
        return 0;
}

int cordon_egress_start(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        if (!cordon_net_mode_traits(sb->l.net_mode)->proxy)
                return 0;
        /* The landlock backend's socket, made by the supervisor on the host's loopback. */
        if (sb->proxy_listener < 0 && sb->l.proxy_fd >= 0) {
                sb->proxy_listener = sb->l.proxy_fd;
                sb->l.proxy_fd = -EBADF;
        }
        /* Fail closed: proxied mode without its proxy would be isolated mode under a wrong
         * name, and the command would have been told a proxy is there. */
        if (sb->proxy_listener < 0)
                return cordon_diag_set(diag, -EPROTO,
                                       "the sandbox did not hand over the proxy's socket");
        struct cordon_proxy_config cfg = {
            .rules = sb->net_rules,
            .dns_server = sb->proxy_dns,
            .log_fd = sb->net_log_fd,
        };
        int r = cordon_proxy_new(&cfg, &sb->proxy, diag);
        if (r < 0)
                return r;
        r = cordon_proxy_add_listener(sb->proxy, sb->proxy_listener);
        sb->proxy_listener = -EBADF; /* the proxy's, whatever the outcome */
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to serve the proxy's socket: %s",
                                       strerror(-r));
        return 0;
}

void cordon_egress_report(struct cordon_sandbox *sb)
{
        if (!sb->proxy)
                return;
        struct cordon_proxy_stats st;
        cordon_proxy_get_stats(sb->proxy, &st);
        sb->report.proxy.connections = st.connections;
        sb->report.proxy.refused = st.refused;
}

void cordon_egress_free(struct cordon_sandbox *sb)
{
        cordon_proxy_free(sb->proxy);
        sb->proxy = NULL;
        sb->proxy_listener = safe_close(sb->proxy_listener);
        sb->net_log_fd = safe_close(sb->net_log_fd);
        cordon_net_rules_free(sb->net_rules);
        sb->net_rules = NULL;
        free(sb->proxy_dns);
        sb->proxy_dns = NULL;
}
