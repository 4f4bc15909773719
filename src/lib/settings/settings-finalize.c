/* cordon_settings_finalize(): after every front end, the agent profiles are folded in and the
 * admin baseline's rules applied (cordon-config(5)), so no layer, the command line included,
 * lifts an admin rule. The list and scalar rules live here; the path rules in
 * settings-admin-paths.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/net-rules.h"
#include "lib/policy/diag.h"
#include "lib/settings/settings-admin.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* The longest scalar text compared here: a path. */
#define SCALAR_TEXT_MAX 4096

bool cordon_admin_sets(const struct admin_run *run, const char *name)
{
        if (!run->a || !run->s->admin_set)
                return false;
        const struct cordon_var *v = cordon_var_find(name);
        return v && run->s->admin_set[v - cordon_vars];
}

int cordon_admin_note(struct admin_run *run, const char *name, const char *fmt, ...)
{
        _cleanup_free_ char *m = NULL;
        va_list ap;
        va_start(ap, fmt);
        int k = vasprintf(&m, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        int r = cordon_list_add(&run->s->admin_changes, name, m);
        if (r < 0)
                return r;
        return strv_consume(&run->warnings, TAKE_PTR(m));
}

static void *field(struct cordon_settings *s, const struct cordon_var *v)
{
        return (char *)s + v->offset;
}

static const void *cfield(const struct cordon_settings *s, const struct cordon_var *v)
{
        return (const char *)s + v->offset;
}

/* Enforced lists: every admin entry missing from the effective list is put back, with its admin
 * origin. */
static int restore_list(struct admin_run *run, const struct cordon_var *v)
{
        struct cordon_list *l = field(run->s, v);
        CORDON_LIST_FOREACH (it, (const struct cordon_list *)cfield(run->a, v)) {
                if (cordon_list_find(l, it->value))
                        continue;
                int r = cordon_list_add(l, it->value, it->origin);
                if (r < 0 || (r = cordon_admin_note(run, v->name,
                                                    "removed admin-enforced %s entry '%s' (from "
                                                    "%s): restored",
                                                    v->name, it->value, it->origin)) < 0)
                        return r;
        }
        return 0;
}

/* Rows whose ladder runs against their enum or boolean order: a capability policy's grants are
 * weaker the higher they are (process_exec true may run commands, side effect level network
 * allows the most), TERMINAL_PASSTHROUGH true hands the sandbox the real terminal, and
 * PACKAGE_CACHES true shares caches between sandboxes. Every
 * other harden-only row climbs its enum order (SANDBOX_PROFILE unrestricted < worktree < wasi <
 * os_hardened, CORDON_HANDLER_SANDBOX off < warn < enforce, the NETWORK_* ladders of the spec)
 * or false < true (PROTECT_GIT_CONFIG), except HOME_ACCESS below. */
static const char *const reversed_ladders[] = {
    "POLICY_WORKSPACE_READ", "POLICY_WORKSPACE_WRITES", "POLICY_WORKSPACE_DELETE",
    "POLICY_PROCESS_EXEC",   "SIDE_EFFECT_LEVEL",       "TERMINAL_PASSTHROUGH",
    "PACKAGE_CACHES",
};

/* HOME_ACCESS's ladder, by enum value: write (everything, persisting) < read (everything
 * visible, only HOME_WRITABLE persists) < tmpwrite (only the listed entries visible, other
 * writes lost) < restricted (only the listed entries, nothing else writable). */
static const int home_access_rungs[] = {
    [CORDON_HOME_TMPWRITE] = 2,
    [CORDON_HOME_RESTRICTED] = 3,
    [CORDON_HOME_READ] = 1,
    [CORDON_HOME_WRITE] = 0,
};

static int rung(const struct cordon_settings *s, const struct cordon_var *v)
{
        int raw =
            v->type == CORDON_VAR_BOOL ? *(const bool *)cfield(s, v) : *(const int *)cfield(s, v);
        if (streq(v->name, "HOME_ACCESS"))
                return raw >= 0 && (size_t)raw < ELEMENTSOF(home_access_rungs)
                           ? home_access_rungs[raw]
                           : -1;
        for (size_t i = 0; i < ELEMENTSOF(reversed_ladders); i++)
                if (streq(v->name, reversed_ladders[i]))
                        return -raw;
        return raw;
}

/* Harden-only scalars: a value below the admin's on the row's ladder is put back to the
 * admin's, with its admin origin. */
static int harden_scalar(struct admin_run *run, const struct cordon_var *v)
{
        if (v->type != CORDON_VAR_BOOL && v->type != CORDON_VAR_ENUM)
                return -EINVAL; /* a row the registry test keeps from existing */
        if (rung(run->s, v) >= rung(run->a, v))
                return 0;
        char want[64], was[64];
        const char *want_origin = NULL, *was_origin = NULL;
        int r = cordon_settings_get(run->a, v->name, want, sizeof(want), &want_origin);
        if (r < 0 || (r = cordon_settings_get(run->s, v->name, was, sizeof(was), &was_origin)) < 0)
                return r;
        _cleanup_free_ char *origin = strdup(strempty(want_origin));
        _cleanup_free_ char *msg = NULL;
        if (!origin || asprintf(&msg,
                                "weakened admin-enforced %s=%s (from %s) to %s (from %s): "
                                "restored",
                                v->name, want, origin, was, strempty(was_origin)) < 0)
                return -ENOMEM;
        if ((r = cordon_settings_set_var(run->s, v, want, origin, v->name, " ", run->diag)) < 0)
                return r;
        return cordon_admin_note(run, v->name, "%s", msg);
}

/* Pinned scalars: any value other than the admin's is put back to the admin's, with its admin
 * origin (an admin that left a string unset pins it unset). */
static int pin_scalar(struct admin_run *run, const struct cordon_var *v)
{
        char want[SCALAR_TEXT_MAX], was[SCALAR_TEXT_MAX];
        const char *want_origin = NULL, *was_origin = NULL;
        int r = cordon_settings_get(run->a, v->name, want, sizeof(want), &want_origin);
        if (r < 0 || (r = cordon_settings_get(run->s, v->name, was, sizeof(was), &was_origin)) < 0)
                return r;
        if (streq(want, was))
                return 0;
        _cleanup_free_ char *origin = strdup(strempty(want_origin));
        _cleanup_free_ char *msg = NULL;
        if (!origin ||
            asprintf(&msg, "changed admin-pinned %s=%s (from %s) to %s (from %s): restored",
                     v->name, want, origin, was, strempty(was_origin)) < 0)
                return -ENOMEM;
        if (*want)
                r = cordon_settings_set_var(run->s, v, want, origin, v->name, " ", run->diag);
        else
                r = cordon_settings_reset(run->s, v->name);
        if (r < 0)
                return r;
        return cordon_admin_note(run, v->name, "%s", msg);
}

/* An admin HOME_READONLY entry does not move to HOME_WRITABLE: it leaves HOME_WRITABLE and
 * stays (or is put back) in HOME_READONLY. */
static int no_escalation(struct admin_run *run)
{
        struct cordon_settings *s = run->s;
        CORDON_LIST_FOREACH (it, &run->a->home_readonly) {
                const struct cordon_item *w = cordon_list_find(&s->home_writable, it->value);
                if (!w)
                        continue;
                _cleanup_free_ char *origin = strdup(w->origin);
                if (!origin)
                        return -ENOMEM;
                cordon_list_remove(&s->home_writable, it->value);
                int r = cordon_list_add_unique(&s->home_readonly, it->value, it->origin);
                if (r < 0 ||
                    (r = cordon_admin_note(run, "HOME_WRITABLE",
                                           "admin-enforced HOME_READONLY entry '%s' (from %s) "
                                           "cannot be writable: removed from HOME_WRITABLE (from "
                                           "%s)",
                                           it->value, it->origin, origin)) < 0)
                        return r;
        }
        return 0;
}

/* strip_exceptions(): 1 keeps exception @it, 0 drops it (noted) when an admin block covers it. */
static int keep_uncovered(const struct cordon_item *it, void *userdata)
{
        struct admin_run *run = userdata;
        struct cordon_net_rule e;
        if (cordon_list_find(&run->a->net_blocklist_except, it->value) ||
            cordon_net_rule_parse(it->value, true, NULL, &e, NULL) < 0)
                return 1;
        const struct cordon_item *by = NULL;
        CORDON_LIST_FOREACH (b, &run->a->net_blocklist) {
                struct cordon_net_rule rule;
                if (cordon_net_rule_parse(b->value, false, NULL, &rule, NULL) < 0)
                        continue; /* the parser refused it when it was set */
                bool covers = cordon_net_rule_covers(&rule, &e);
                cordon_net_rule_clear(&rule);
                if (covers) {
                        by = b;
                        break;
                }
        }
        cordon_net_rule_clear(&e);
        if (!by)
                return 1;
        int r = cordon_admin_note(run, "NETWORK_BLOCKLIST_EXCEPT",
                                  "NETWORK_BLOCKLIST_EXCEPT entry '%s' (from %s) is covered by "
                                  "admin-enforced NETWORK_BLOCKLIST entry '%s' (from %s): removed",
                                  it->value, it->origin, by->value, by->origin);
        return r < 0 ? r : 0;
}

/* NETWORK_BLOCKLIST_EXCEPT: an exception the admin did not give that an admin NETWORK_BLOCKLIST
 * pattern covers would lift the admin's block, so it goes. */
static int strip_exceptions(struct admin_run *run)
{
        return cordon_list_filter(&run->s->net_blocklist_except, keep_uncovered, run);
}

/* Appends "'VALUE' (from ORIGIN)" to @buf, with ", " between items; a line too long ends in
 * "...". */
static void append_item(char *buf, size_t size, const char *value, const char *origin)
{
        size_t len = strlen(buf);
        if (len + 8 >= size)
                return;
        int k = snprintf(buf + len, size - len, "%s'%s' (from %s)", len ? ", " : "", value, origin);
        if (k < 0 || (size_t)k >= size - len)
                strcpy(buf + size - 4, "...");
}

/* What the later layers (the user's files, conf.d, the environment, the command line) did to a
 * list the admin set, within what its rule allows: the items they added and the admin's items
 * they removed. The profiles' items (ENABLED_AGENTS, folded in here) are not a layer's doing.
 * Items added to a list of restrictions (a blocklist, HOME_READONLY: rows whose admin entries
 * are restored) only add to what the admin asked for, which stays in force whole: no line. */
static int note_list_changes(struct admin_run *run, const struct cordon_var *v)
{
        const struct cordon_list *now = cfield(run->s, v), *admin = cfield(run->a, v);
        bool restricts =
            v->admin == CORDON_ADMIN_RESTORED || v->admin == CORDON_ADMIN_NO_ESCALATION;
        char added[1024] = "", removed[1024] = "";
        CORDON_LIST_FOREACH (it, now)
                if (!restricts && !cordon_list_find(admin, it->value) &&
                    !startswith(it->origin, "profile "))
                        append_item(added, sizeof(added), it->value, it->origin);
        CORDON_LIST_FOREACH (it, admin)
                if (!cordon_list_find(now, it->value))
                        append_item(removed, sizeof(removed), it->value, it->origin);
        if (!*added && !*removed)
                return 0;
        return cordon_admin_note(run, v->name, "admin-set %s changed by a later layer:%s%s%s%s%s",
                                 v->name, *added ? " added " : "", added,
                                 *added && *removed ? ";" : "", *removed ? " removed " : "",
                                 removed);
}

/* After the rules: every value the admin set that still differs from the admin's is a change a
 * later layer made within the row's rule (a harden-only value raised, a list appended to, a row
 * with no rule replaced). Each gets a warning line, so that nobody takes the admin's value for
 * the one in force. DENIED_WRITABLE_PATHS is the admin's alone and needs none. */
static int note_user_changes(struct admin_run *run)
{
        for (size_t i = 0; run->a && i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (!run->s->admin_set[i] || v->offset == SIZE_MAX ||
                    v->admin == CORDON_ADMIN_ADMIN_ONLY)
                        continue;
                int r;
                if (v->type == CORDON_VAR_LIST) {
                        if ((r = note_list_changes(run, v)) < 0)
                                return r;
                        continue;
                }
                char want[SCALAR_TEXT_MAX], now[SCALAR_TEXT_MAX];
                const char *want_origin = NULL, *now_origin = NULL;
                if ((r = cordon_settings_get(run->a, v->name, want, sizeof(want), &want_origin)) <
                        0 ||
                    (r = cordon_settings_get(run->s, v->name, now, sizeof(now), &now_origin)) < 0)
                        return r;
                if (streq(want, now))
                        continue;
                if ((r = cordon_admin_note(run, v->name,
                                           "admin-set %s=%s (from %s) changed to %s (from %s) by "
                                           "a later layer",
                                           v->name, want, strempty(want_origin), now,
                                           strempty(now_origin))) < 0)
                        return r;
        }
        return 0;
}

static int apply_rules(struct admin_run *run)
{
        int r = cordon_admin_denied_writable(run);
        if (r < 0 || !run->a)
                return r;
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (!run->s->admin_set[i] || v->offset == SIZE_MAX)
                        continue;
                if (v->admin == CORDON_ADMIN_RESTORED && v->type == CORDON_VAR_LIST)
                        r = restore_list(run, v);
                else if (v->admin == CORDON_ADMIN_HARDEN_ONLY)
                        r = harden_scalar(run, v);
                else if (v->admin == CORDON_ADMIN_PINNED && v->type != CORDON_VAR_LIST)
                        r = pin_scalar(run, v);
                if (r < 0)
                        return r;
        }
        if ((r = cordon_admin_denied_home(run)) < 0)
                return r;
        if (cordon_admin_sets(run, "HOME_READONLY") && (r = no_escalation(run)) < 0)
                return r;
        if (cordon_admin_sets(run, "NETWORK_BLOCKLIST") && (r = strip_exceptions(run)) < 0)
                return r;
        if ((r = cordon_admin_narrow(run)) < 0)
                return r;
        return note_user_changes(run);
}

_public_ int cordon_settings_finalize(struct cordon_settings *s, char ***ret_warnings,
                                      struct cordon_diag *diag)
{
        if (ret_warnings)
                *ret_warnings = NULL;
        if (s->finalized)
                return 0;
        /* On a copy, so that a refusal leaves @s as it was. */
        struct cordon_settings work;
        int r = cordon_settings_copy(&work, s);
        if (r < 0)
                return r;
        cordon_list_clear(&work.admin_changes);
        struct admin_run run = {
            .s = &work,
            .a = work.admin_set ? work.admin : NULL,
            .diag = diag,
        };
        r = cordon_settings_fold_profiles(&work, &run.warnings, diag);
        if (r >= 0)
                r = apply_rules(&run);
        if (r < 0) {
                strv_free(run.warnings);
                cordon_settings_clear(&work);
                return r;
        }
        work.finalized = true;
        cordon_settings_clear(s);
        *s = work;
        if (ret_warnings)
                *ret_warnings = TAKE_PTR(run.warnings);
        else
                strv_free(run.warnings);
        return 0;
}

_public_ ssize_t cordon_settings_admin_change_count(const struct cordon_settings *s)
{
        return (ssize_t)s->admin_changes.n;
}

_public_ int cordon_settings_get_admin_change(const struct cordon_settings *s, size_t i,
                                              const char **ret_name, const char **ret_message)
{
        if (i >= s->admin_changes.n)
                return -ERANGE;
        if (ret_name)
                *ret_name = s->admin_changes.items[i].value;
        if (ret_message)
                *ret_message = s->admin_changes.items[i].origin;
        return 0;
}
