/* The note on the rules the delivered network mode cannot apply in full (see net-rules-note.h).
 */
#include <stdio.h>

#include "lib/launch/launch.h"
#include "lib/launch/net-rules-note.h"
#include "lib/net/net-rules-floor.h"
#include "lib/net/net-rules.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"

struct counts {
        size_t blocks, excepts; /* name rules (host, *.suffix, glob) */
        size_t path_blocks, path_excepts;
};

static struct counts count(const struct cordon_net_rules *rules)
{
        struct counts c = {0};
        for (size_t i = 0; i < cordon_net_rules_count(rules); i++) {
                const struct cordon_net_rule *r = cordon_net_rules_get(rules, i);
                if (r->floor || streq_ptr(r->origin, CORDON_NET_ORIGIN_DEFAULT) ||
                    (r->kind != CORDON_NET_RULE_HOST && r->kind != CORDON_NET_RULE_SUFFIX &&
                     r->kind != CORDON_NET_RULE_GLOB))
                        continue;
                *(r->exception ? &c.excepts : &c.blocks) += 1;
                if (r->path)
                        *(r->exception ? &c.path_excepts : &c.path_blocks) += 1;
        }
        return c;
}

/* "25 NETWORK_BLOCKLIST and 2 NETWORK_BLOCKLIST_EXCEPT" (either alone when the other is 0), and
 * in @listed the explanations that list them. */
static void variables(size_t blocks, size_t excepts, char *buf, size_t size, char *listed,
                      size_t lsize)
{
        if (blocks && excepts) {
                snprintf(buf, size, "%zu NETWORK_BLOCKLIST and %zu NETWORK_BLOCKLIST_EXCEPT",
                         blocks, excepts);
                snprintf(listed, lsize,
                         "the explanation of NETWORK_BLOCKLIST and the explanation of "
                         "NETWORK_BLOCKLIST_EXCEPT");
        } else {
                snprintf(buf, size, "%zu %s", blocks ? blocks : excepts,
                         blocks ? "NETWORK_BLOCKLIST" : "NETWORK_BLOCKLIST_EXCEPT");
                snprintf(listed, lsize, "the explanation of %s",
                         blocks ? "NETWORK_BLOCKLIST" : "NETWORK_BLOCKLIST_EXCEPT");
        }
}

void cordon_net_rules_note(struct cordon_launch *l)
{
        if (!l->warn || l->dry_run || l->rules_note_said || !l->p->net.rules)
                return;
        struct counts c = count(l->p->net.rules);
        char vars[128], listed[160], line[512];
        if (l->net_mode == CORDON_NET_FILTERED && c.blocks + c.excepts > 0) {
                /* A packet carries no name: the firewall applies addresses and ports, the
                 * resolver names, and nothing sees a URL path. */
                size_t paths = c.path_blocks + c.path_excepts;
                char with_path[64] = "";
                if (paths)
                        snprintf(with_path, sizeof(with_path), " (%zu with a path: not at all)",
                                 paths);
                variables(c.blocks, c.excepts, vars, sizeof(vars), listed, sizeof(listed));
                bool one = c.blocks + c.excepts == 1;
                snprintf(line, sizeof(line),
                         "filtered mode: %s host-name %s to the names its resolver answers, "
                         "not to connections by address%s; NETWORK_FILTER_MODE=proxied applies "
                         "%s to connections; listed by %s",
                         vars, one ? "entry applies" : "entries apply", with_path,
                         one ? "it" : "them", listed);
        } else if (l->net_mode == CORDON_NET_PROXIED && c.path_blocks + c.path_excepts > 0) {
                /* A tunnel (CONNECT, SOCKS5: HTTPS among them) hides the request's path. */
                size_t n = c.path_blocks + c.path_excepts;
                variables(c.path_blocks, c.path_excepts, vars, sizeof(vars), listed,
                          sizeof(listed));
                snprintf(line, sizeof(line),
                         "proxied mode: %s %s with a URL path %s to plain HTTP requests only, "
                         "not to HTTPS or other tunnels to %s; listed by %s",
                         vars, n == 1 ? "entry" : "entries", n == 1 ? "applies" : "apply",
                         n == 1 ? "its host" : "their hosts", listed);
        } else
                return;
        l->rules_note_said = true;
        l->warn(l->userdata, line);
}
