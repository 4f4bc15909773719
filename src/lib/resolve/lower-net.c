/* Lowering the NETWORK_* variables: the mode asked for, its fallback, the blocklist and its
 * exceptions as one rule set over the floor (every pattern parsed here, so a bad one is refused
 * before anything starts, naming the pattern and where it came from), and the proxy's and
 * pasta's settings. Which mode is delivered is the launch's decision (net-decide.c): it depends
 * on the backend and on the host. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/net-rules.h"
#include "lib/policy/backend-traits.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "lib/resolve/lower-internal.h"
#include "lib/settings/settings.h"
#include "shared/fd-util.h"
#include "shared/path-util.h"

static int dup_opt(const char *s, char **ret)
{
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

/* The admin baseline's entries of @variable (its list in @admin_list), or NULL when the
 * baseline did not set the variable. */
static const struct cordon_list *admin_entries(const struct cordon_settings *s,
                                               const char *variable, size_t offset)
{
        const struct cordon_var *v = cordon_var_find(variable);
        if (!s->admin || !s->admin_set || !v || !s->admin_set[v - cordon_vars])
                return NULL;
        return (const struct cordon_list *)(const void *)((const char *)s->admin + offset);
}

/* Adds @list's patterns; those the admin baseline gave (in @admin) go in as the admin tier,
 * which no user exception lifts (net-rules.h). */
static int add_list(struct lower *l, struct cordon_net_rules *rules, const struct cordon_list *list,
                    const struct cordon_list *admin, bool exception, const char *variable)
{
        CORDON_LIST_FOREACH (it, list) {
                char origin[512];
                snprintf(origin, sizeof(origin), "%s from %s", variable, it->origin);
                int r =
                    admin && cordon_list_find(admin, it->value)
                        ? cordon_net_rules_add_admin(rules, it->value, exception, origin, l->diag)
                        : cordon_net_rules_add(rules, it->value, exception, origin, l->diag);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Filtered mode (ns backend): the sandbox's resolv.conf names cordon's resolver, and keeps the
 * host's search domains and options. Where the host's file is a link (systemd-resolved's stub),
 * the file it names is the one replaced, so that the link inside leads to it. */
static int lower_resolv_conf(struct lower *l)
{
        if (l->s->net_mode != CORDON_NET_FILTERED ||
            !cordon_backend_traits(l->s->backend)->net_ns || !cordon_policy_find_fs(l->p, "/etc"))
                return 0;
        _cleanup_free_ char *real = cordon_lower_host_realpath(l, "/etc/resolv.conf");
        const char *guest = real && path_is_absolute(real) ? real : "/etc/resolv.conf";
        _cleanup_free_ char *host = NULL;
        (void)read_full_file(guest, 64u << 10, &host, NULL);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        fputs("# cordon: the filtered network's resolver, which answers the names the network "
              "rules allow\nnameserver " CORDON_DNS_ADDR "\n",
              f);
        for (char *line = host, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                line += strspn(line, " \t");
                if (startswith(line, "search") || startswith(line, "domain") ||
                    startswith(line, "options"))
                        fprintf(f, "%s\n", line);
        }
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        int r = cordon_lower_put(l, guest, text, CORDON_ACCESS_DATA, CORDON_FS_DNS,
                                 "NETWORK_FILTER_MODE=filtered");
        free(text);
        return r;
}

/* Whether a block of @rules (the defaults and the admin's included, the floor not: no exception
 * lifts it) overlaps @except, so that the exception can lift something. */
static bool lifts_something(const struct cordon_net_rules *rules,
                            const struct cordon_net_rule *except)
{
        for (size_t i = 0, n = cordon_net_rules_count(rules); i < n; i++) {
                const struct cordon_net_rule *b = cordon_net_rules_get(rules, i);
                if (!b->exception && !b->floor && cordon_net_rule_overlaps(b, except))
                        return true;
        }
        return false;
}

/* Nothing is blocked by default but the floor and the private ranges: an exception that no
 * block overlaps restricts nothing, which someone who wrote `allow example.com` may not expect.
 * One warning line naming them (the first few) and the allow list's spelling. In open and
 * isolated mode the rules decide nothing anyway. */
static int warn_idle_exceptions(struct lower *l, const struct cordon_net_rules *rules)
{
        const struct cordon_settings *s = l->s;
        if (s->net_mode != CORDON_NET_FILTERED && s->net_mode != CORDON_NET_PROXIED)
                return 0;
        char names[512] = "";
        size_t n = 0, len = 0;
        CORDON_LIST_FOREACH (it, &s->net_blocklist_except) {
                struct cordon_net_rule rule;
                if (cordon_net_rule_parse(it->value, true, NULL, &rule, NULL) < 0)
                        continue; /* refused when it was added */
                bool idle = !lifts_something(rules, &rule);
                cordon_net_rule_clear(&rule);
                if (!idle)
                        continue;
                if (n++ < 3 && len < sizeof(names)) {
                        int k = snprintf(names + len, sizeof(names) - len, "%s\"%s\" (%s)",
                                         len ? ", " : "", it->value, strempty(it->origin));
                        len += k > 0 ? (size_t)k : 0;
                }
        }
        if (n == 0)
                return 0;
        return cordon_lower_warn(
            l,
            "NETWORK_BLOCKLIST_EXCEPT %s%s %s nothing: an exception lifts a block, and no "
            "NETWORK_BLOCKLIST entry covers %s (nothing is blocked by default). For an allow "
            "list, block the rest: NETWORK_BLOCKLIST+=('*')",
            names, n > 3 ? " and more" : "", n > 1 ? "restrict" : "restricts",
            n > 1 ? "them" : "it");
}

int cordon_lower_net(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        struct cordon_policy_net *net = &l->p->net;
        int r;

        if ((r = cordon_policy_set_net_mode(l->p, s->net_mode, s->net_mode_origin)) < 0)
                return r;
        net->fallback = s->net_fallback;
        if ((r = dup_opt(s->net_fallback_origin, &net->fallback_origin)) < 0 ||
            (r = dup_opt(s->net_filter_helper, &net->filter_helper)) < 0 ||
            (r = dup_opt(s->net_proxy_dns, &net->proxy_dns)) < 0 ||
            (r = dup_opt(s->net_log, &net->log_path)) < 0)
                return r;
        net->skip_probe = s->net_skip_probe == 1;

        r = cordon_net_rules_new(&net->rules);
        if (r < 0)
                return r;
        const struct cordon_list *admin_block =
            admin_entries(s, "NETWORK_BLOCKLIST", offsetof(struct cordon_settings, net_blocklist));
        const struct cordon_list *admin_except = admin_entries(
            s, "NETWORK_BLOCKLIST_EXCEPT", offsetof(struct cordon_settings, net_blocklist_except));
        if ((r = add_list(l, net->rules, &s->net_blocklist, admin_block, false,
                          "NETWORK_BLOCKLIST")) < 0 ||
            (r = add_list(l, net->rules, &s->net_blocklist_except, admin_except, true,
                          "NETWORK_BLOCKLIST_EXCEPT")) < 0 ||
            (r = warn_idle_exceptions(l, net->rules)) < 0)
                return r;
        return lower_resolv_conf(l);
}
