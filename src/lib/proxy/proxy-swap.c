/* The egress proxy's rules replaced while it runs (a session's network change): from now on
 * every decision is the new set's, and every connection that has a destination is judged again
 * by it; one it refuses is closed (logged as a denial by the new rule). */
#include <errno.h>

#include "lib/proxy/proxy-conn.h"
#include "lib/proxy/proxy.h"

size_t cordon_proxy_set_rules(struct cordon_proxy *p, const struct cordon_net_rules *rules)
{
        size_t closed = 0;
        p->cfg.rules = rules;
        for (struct proxy_conn *c = p->conns, *next; c; c = next) {
                next = c->next;
                /* Whatever it holds of the old set goes: that set is about to be freed. */
                c->rule = NULL;
                if (c->dead || !c->have_target)
                        continue;
                struct cordon_net_verdict v = {.allow = true};
                if (c->target.is_addr)
                        cordon_net_rules_check_addr(rules, &c->target.addr, c->target.port, false,
                                                    &v);
                else
                        cordon_net_rules_check_name(rules, c->target.host, c->target.port, &v);
                struct cordon_net_addr a;
                if (v.allow && c->address[0] && cordon_net_addr_parse(c->address, &a) >= 0)
                        cordon_net_rules_check_addr(rules, &a, c->target.port, !c->target.is_addr,
                                                    &v);
                c->rule = v.rule;
                if (v.allow)
                        continue;
                c->verdict = "deny";
                c->reason = v.reason ? v.reason : "refused by the new rules";
                p->stats.refused++;
                cordon_proxy_conn_end(c);
                closed++;
        }
        return closed;
}
