/* The NetworkPolicy front end (harn-hostlib's sandbox API): {"mode":"unrestricted"} is the open
 * network mode; {"mode":"limited","allowed_hosts":[...]} is proxied mode with `*` blocked and
 * each host an exception, so an empty list denies everything. Either way the mode is one asked
 * for explicitly: delivered or refused, never weakened by NETWORK_FILTER_FALLBACK. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon/settings.h"
#include "lib/net/net-policy.h"
#include "lib/policy/diag.h"
#include "lib/settings/settings.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

static int apply(struct cordon_settings *s, const struct cordon_net_policy *np, const char *name,
                 struct cordon_diag *diag)
{
        char origin[4096];
        snprintf(origin, sizeof(origin), "%s: /mode", name);
        bool limited = np->mode == CORDON_NET_POLICY_LIMITED;
        int r = cordon_settings_set(s, "NETWORK_FILTER_MODE", limited ? "proxied" : "open", origin,
                                    diag);
        if (r >= 0)
                r = cordon_settings_set(s, "NETWORK_FILTER_FALLBACK", "strict", origin, diag);
        if (r < 0 || !limited)
                return r;
        if ((r = cordon_settings_set(s, "NETWORK_BLOCKLIST", "*", origin, diag)) < 0)
                return r;
        size_t i = 0;
        STRV_FOREACH (h, np->allowed_hosts) {
                snprintf(origin, sizeof(origin), "%s: /allowed_hosts/%zu", name, i++);
                if ((r = cordon_settings_set(s, "NETWORK_BLOCKLIST_EXCEPT", *h, origin, diag)) < 0)
                        return r;
        }
        return 0;
}

_public_ int cordon_settings_load_network_policy(struct cordon_settings *s, const char *path,
                                                 struct cordon_diag *diag)
{
        if (!s || !path)
                return -EINVAL;
        const char *name = streq(path, "-") ? "<stdin>" : path;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = read_full_file_or_stdin(path, CORDON_NET_POLICY_MAX_BYTES, &buf, &len);
        if (r < 0)
                return cordon_diag_set(diag, r, "%s: %s", name,
                                       r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
        struct cordon_net_policy np;
        if ((r = cordon_net_policy_parse(buf, len, name, &np, diag)) < 0)
                return r;
        /* Every host was checked by the parse: setting them fails only for lack of memory. */
        r = apply(s, &np, name, diag);
        cordon_net_policy_clear(&np);
        return r;
}
