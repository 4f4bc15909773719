/* The sandbox's egress proxy (proxied mode) and resolver (filtered mode), from the supervisor's
 * side: their rules and log are taken before the clone (the policy is not referenced after the
 * start), the socket PID 1 opened inside arrives over the control channel (the landlock
 * backend's proxy socket: made by the launch on the host's loopback, net-proxied.c), and each
 * then runs on the sandbox's event loop. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/supervisor/dns-relay.h"
#include "lib/supervisor/egress.h"
#include "lib/mech/nft.h"
#include "lib/net/net-server.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/net/net-rules.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/output-file.h"
#include "lib/policy/policy.h"
#include "lib/proxy/proxy.h"
#include "shared/macro.h"

/* A copy of @from: the built-in rules come with every new set, the others are added again in
 * their order, with their origins and their tier (admin or not). */
int cordon_egress_copy_rules(const struct cordon_net_rules *from, struct cordon_net_rules **ret)
{
        struct cordon_net_rules *to = NULL;
        int r = cordon_net_rules_new(&to);
        if (r < 0)
                return r;
        size_t builtin = cordon_net_rules_count(to);
        for (size_t i = builtin; from && i < cordon_net_rules_count(from); i++) {
                const struct cordon_net_rule *rule = cordon_net_rules_get(from, i);
                r = rule->admin ? cordon_net_rules_add_admin(to, rule->pattern, rule->exception,
                                                             rule->origin, NULL)
                                : cordon_net_rules_add(to, rule->pattern, rule->exception,
                                                       rule->origin, NULL);
                if (r < 0) {
                        cordon_net_rules_free(to);
                        return r;
                }
        }
        *ret = to;
        return 0;
}

/* The resolvers the filtered mode's relay asks: NETWORK_PROXY_DNS when set, else the host's
 * (its /etc/resolv.conf, read from the supervisor's side, where one on the host's loopback
 * answers too). */
static int find_dns_servers(struct cordon_sandbox *sb, const struct cordon_policy *p,
                            struct cordon_diag *diag)
{
        sb->n_dns_servers = 0;
        if (p->net.proxy_dns) {
                struct cordon_dns_server *s = &sb->dns_servers[0];
                if (cordon_net_parse_server(p->net.proxy_dns, &s->addr, &s->port) < 0)
                        return cordon_diag_set(diag, -EINVAL,
                                               "NETWORK_PROXY_DNS: '%s' is not an address with "
                                               "an optional port",
                                               p->net.proxy_dns);
                sb->n_dns_servers = 1;
                return 0;
        }
        _cleanup_free_ struct cordon_net_addr *v = NULL;
        size_t n = 0;
        int r = cordon_nft_resolvers("/etc/resolv.conf", &v, &n);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to read /etc/resolv.conf: %s",
                                       strerror(-r));
        for (size_t i = 0; i < n && sb->n_dns_servers < CORDON_DNS_SERVERS_MAX; i++)
                sb->dns_servers[sb->n_dns_servers++] =
                    (struct cordon_dns_server){.addr = v[i], .port = CORDON_DNS_PORT};
        if (n == 0 && sb->l.warn)
                sb->l.warn(sb->l.userdata, "the host's /etc/resolv.conf names no resolver: names "
                                           "will not resolve in the filtered network");
        return 0;
}

int cordon_egress_prepare(struct cordon_sandbox *sb, const struct cordon_policy *p,
                          struct cordon_diag *diag)
{
        const struct cordon_net_mode_traits *t = cordon_net_mode_traits(sb->l.net_mode);
        /* Again after a fallback: what the first call made stays. */
        if ((!t->proxy && !t->dns) || sb->l.dry_run || sb->net_rules)
                return 0;
        int r = cordon_egress_copy_rules(p->net.rules, &sb->net_rules);
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
        return t->dns ? find_dns_servers(sb, p, diag) : 0;
}

/* Filtered mode: the relay on the resolver's socket PID 1 handed over. */
static int dns_start(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        /* Fail closed: without it the sandbox's resolv.conf names a resolver nobody serves,
         * which is safe, but the start said the rules decide names. */
        if (sb->dns_socket < 0)
                return cordon_diag_set(diag, -EPROTO,
                                       "the sandbox did not hand over the resolver's socket");
        if (!sb->net_rules)
                return cordon_diag_set(diag, -EPROTO, "the resolver has no network rules");
        const struct cordon_dns_relay_config cfg = {
            .rules = sb->net_rules,
            .servers = sb->dns_servers,
            .n_servers = sb->n_dns_servers,
            .log_fd = sb->net_log_fd,
        };
        int sock = sb->dns_socket;
        sb->dns_socket = -EBADF; /* the relay's, whatever the outcome */
        int r = cordon_dns_relay_new(sock, &cfg, sb->loop, &sb->dns);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to serve the sandbox's resolver: %s",
                                       strerror(-r));
        return 0;
}

int cordon_egress_start(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        if (cordon_net_mode_traits(sb->l.net_mode)->dns)
                return dns_start(sb, diag);
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
        int r = cordon_proxy_new(&cfg, sb->loop, &sb->proxy, diag);
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
        if (sb->dns) {
                struct cordon_dns_relay_stats st;
                cordon_dns_relay_get_stats(sb->dns, &st);
                sb->report.resolver.refused = st.refused;
                size_t n = 0;
                for (size_t i = 0; i < CORDON_DNS_REFUSED_FIRST && st.refused_first[i][0]; i++) {
                        memcpy(sb->dns_refused[n], st.refused_first[i], sizeof(sb->dns_refused[n]));
                        sb->dns_refused_ptrs[n] = sb->dns_refused[n];
                        n++;
                }
                sb->dns_refused_ptrs[n] = NULL;
                sb->report.resolver.refused_first = sb->dns_refused_ptrs;
        }
        if (!sb->proxy)
                return;
        struct cordon_proxy_stats st;
        cordon_proxy_get_stats(sb->proxy, &st);
        sb->report.proxy.connections = st.connections;
        sb->report.proxy.refused = st.refused;
        size_t n = 0;
        for (size_t i = 0; i < CORDON_PROXY_REFUSED_FIRST && st.refused_first[i][0]; i++) {
                memcpy(sb->proxy_refused[n], st.refused_first[i], sizeof(sb->proxy_refused[n]));
                sb->proxy_refused_ptrs[n] = sb->proxy_refused[n];
                n++;
        }
        sb->proxy_refused_ptrs[n] = NULL;
        sb->report.proxy.refused_first = sb->proxy_refused_ptrs;
}

void cordon_egress_free(struct cordon_sandbox *sb)
{
        sb->dns = cordon_dns_relay_free(sb->dns);
        sb->dns_socket = safe_close(sb->dns_socket);
        cordon_proxy_free(sb->proxy);
        sb->proxy = NULL;
        sb->proxy_listener = safe_close(sb->proxy_listener);
        sb->net_log_fd = safe_close(sb->net_log_fd);
        cordon_net_rules_free(sb->net_rules);
        sb->net_rules = NULL;
        free(sb->proxy_dns);
        sb->proxy_dns = NULL;
}
