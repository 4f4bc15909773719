/* The network mode a launch delivers (see net-decide.h). */
#include <errno.h>
#include <stdio.h>

#include "lib/launch/backend.h"
#include "lib/launch/net-decide.h"
#include "lib/mech/nft.h"
#include "lib/mech/pasta.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"

bool cordon_net_mode_deliverable(const struct cordon_policy *p, enum cordon_backend backend,
                                 const struct cordon_net_host *host, enum cordon_net_mode mode,
                                 cordon_net_filtered_probe probe, const char *filtered_failed,
                                 char *why, size_t n)
{
        /* Anything but a backend's own value (a caller's `auto`) has no network namespace, as
         * the landlock backend. */
        const struct cordon_backend_ops *ops = cordon_backend_ops(backend);
        bool net_ns = ops && ops->net_ns;
        *why = 0;
        switch (mode) {
        case CORDON_NET_OPEN:
        case CORDON_NET_ISOLATED:
                return true;
        case CORDON_NET_FILTERED:
                if (!net_ns) {
                        snprintf(why, n,
                                 "the landlock backend has no network namespace to attach pasta "
                                 "to (use the ns backend)");
                        return false;
                }
                if (filtered_failed && *filtered_failed) {
                        snprintf(why, n, "%s", filtered_failed);
                        return false;
                }
                if (!probe) {
                        snprintf(why, n, "pasta cannot be used");
                        return false;
                }
                return probe(p, why, n);
        case CORDON_NET_PROXIED:
                if (net_ns)
                        return true;
                /* Without a network namespace the command is kept behind the proxy by Landlock's
                 * TCP rule (connect to the proxy's port only, bind nothing) and by the seccomp
                 * socket rule for everything that rule does not see (UDP, raw, other families,
                 * Fast Open, listen). Either missing, the command would reach the network past
                 * the proxy: not deliverable. */
                if (!host || host->landlock_abi < 4) {
                        char abi[32] = "no Landlock";
                        if (host && host->landlock_abi > 0)
                                snprintf(abi, sizeof(abi), "Landlock ABI %d", host->landlock_abi);
                        snprintf(why, n,
                                 "the landlock backend keeps the command behind the proxy with "
                                 "Landlock's TCP rule, which this kernel lacks (%s, needs ABI 4: "
                                 "Linux 6.7; or use the ns backend)",
                                 abi);
                        return false;
                }
                if (!host->seccomp) {
                        snprintf(why, n,
                                 "the landlock backend keeps the command behind the proxy with a "
                                 "seccomp socket rule, and this kernel has no seccomp filters "
                                 "(use the ns backend)");
                        return false;
                }
                /* Landlock's TCP rule sees the port only: connect(<any host>:<proxy port>)
                 * would leave the machine. The supervisor confines the destination, which needs
                 * the notifications; a side-effect level below `network` refuses connect() in
                 * the filter itself. */
                if (!host->notify && p->side_effect_level >= CORDON_SIDE_EFFECT_NETWORK) {
                        snprintf(why, n,
                                 "the landlock backend confines connect() to the proxy's address "
                                 "with seccomp user notifications, which need the Landlock and "
                                 "seccomp layers on and Linux 5.14 (use the ns backend)");
                        return false;
                }
                return true;
        }
        snprintf(why, n, "unknown network mode");
        return false;
}

int cordon_net_decide(const struct cordon_policy *p, enum cordon_backend backend,
                      const struct cordon_net_host *host, cordon_net_filtered_probe probe,
                      const char *filtered_failed, enum cordon_net_mode *ret, char *warning,
                      size_t n, struct cordon_diag *diag)
{
        enum cordon_net_mode want = p->net_mode;
        char why[512];
        *warning = 0;
        if (cordon_net_mode_deliverable(p, backend, host, want, probe, filtered_failed, why,
                                        sizeof(why))) {
                *ret = want;
                return 0;
        }
        const char *name = cordon_net_mode_to_string(want);
        const char *fallback = cordon_net_fallback_to_string(p->net.fallback);
        int step = p->net.fallback == CORDON_NET_FALLBACK_STRICTER ? 1
                   : p->net.fallback == CORDON_NET_FALLBACK_OPEN   ? -1
                                                                   : 0;
        /* The modes are in strictness order: open < filtered < proxied < isolated. */
        for (int m = (int)want + step; step && m >= 0 && m < (int)CORDON_NET_MODES; m += step) {
                char other[256];
                if (!cordon_net_mode_deliverable(p, backend, host, (enum cordon_net_mode)m, probe,
                                                 filtered_failed, other, sizeof(other)))
                        continue;
                snprintf(warning, n,
                         "network mode %s (from %s) cannot be delivered: %s; "
                         "NETWORK_FILTER_FALLBACK=%s (from %s): using %s instead",
                         name, strempty(p->net_mode_origin), why, fallback,
                         strempty(p->net.fallback_origin),
                         cordon_net_mode_to_string((enum cordon_net_mode)m));
                *ret = (enum cordon_net_mode)m;
                return 0;
        }
        return cordon_diag_set(diag, -EOPNOTSUPP,
                               "network mode %s (from %s) cannot be delivered: %s; "
                               "NETWORK_FILTER_FALLBACK=%s (from %s) %s",
                               name, strempty(p->net_mode_origin), why, fallback,
                               strempty(p->net.fallback_origin),
                               step ? "finds no other mode this backend can deliver"
                                    : "refuses to start; choose another NETWORK_FILTER_MODE");
}

bool cordon_pasta_filtered_probe(const struct cordon_policy *p, char *why, size_t n)
{
        struct cordon_diag diag = {0};
        const struct cordon_pasta_config cfg = {.path = p->net.filter_helper};
        /* The backend was checked by the caller. */
        if (cordon_pasta_probe(&cfg, CORDON_BACKEND_NS, p->net.skip_probe, &diag) < 0) {
                snprintf(why, n, "%s", diag.message);
                return false;
        }
        const char *err = NULL;
        if (cordon_nft_open(&err) < 0) {
                snprintf(why, n,
                         "the filtered network's firewall needs libnftables, which cannot be "
                         "loaded: %s (install libnftables1)",
                         err);
                return false;
        }
        return true;
}
