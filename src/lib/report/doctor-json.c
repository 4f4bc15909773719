/* The host checks as JSON: the facts of a struct cordon_doctor_report with each check's reason
 * in words, and optionally what given settings get here (struct cordon_doctor_setup) and the
 * variables they hold for later. The one encoding behind `cordon doctor --json` and the session
 * API. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cordon/doctor.h"
#include "lib/report/report-json.h"
#include "shared/macro.h"

static json_t *error_json(int r)
{
        return r < 0 ? json_string(cordon_errno_name(r)) : json_null();
}

static json_t *sysctl_json(long v)
{
        return v >= 0 ? json_integer(v) : json_null();
}

/* @s as a string; null for "" (nothing to say). */
static json_t *text_json(const char *s)
{
        return json_string_or_null(s && *s ? s : NULL);
}

static json_t *words_json(char *const *l, bool *oom)
{
        json_t *a = json_array();
        for (size_t i = 0; l && l[i]; i++)
                cordon_json_append(a, json_string_or_null(l[i]), oom);
        return a;
}

/* Each builder fills its object completely before the caller attaches it to the parent: once
 * attached, a failed json_object_set_new() may already have released it. */
static json_t *userns_json(const struct cordon_doctor_userns *u, bool *oom)
{
        char reason[256];
        json_t *o = json_object(), *sysctl = json_object();
        cordon_json_put(o, "usable", json_boolean(u->usable), oom);
        cordon_json_put(o, "error", error_json(u->error), oom);
        cordon_json_put(o, "reason",
                        text_json(cordon_doctor_userns_reason(u, reason, sizeof(reason))), oom);
        cordon_json_put(sysctl, "kernel.unprivileged_userns_clone",
                        sysctl_json(u->unprivileged_userns_clone), oom);
        cordon_json_put(sysctl, "user.max_user_namespaces", sysctl_json(u->max_user_namespaces),
                        oom);
        cordon_json_put(sysctl, "kernel.apparmor_restrict_unprivileged_userns",
                        sysctl_json(u->apparmor_restrict_unprivileged_userns), oom);
        cordon_json_put(o, "sysctl", sysctl, oom);
        return o;
}

static json_t *apparmor_json(const struct cordon_doctor_apparmor *a, bool *oom)
{
        char reason[256], fix[3 * PATH_MAX];
        json_t *o = json_object();
        cordon_json_put(o, "enabled", a->enabled < 0 ? json_null() : json_boolean(a->enabled), oom);
        cordon_json_put(o, "kernel.apparmor_restrict_unprivileged_userns",
                        sysctl_json(a->restrict_unprivileged_userns), oom);
        cordon_json_put(o, "label", text_json(a->label), oom);
        cordon_json_put(o, "restricts_user_namespaces", json_boolean(a->restricts_caller), oom);
        cordon_json_put(o, "reason",
                        text_json(cordon_doctor_apparmor_reason(a, reason, sizeof(reason))), oom);
        cordon_json_put(o, "profile", json_string_or_null(a->profile), oom);
        cordon_json_put(o, "profile_installed", json_boolean(a->profile_installed), oom);
        cordon_json_put(o, "profile_dir", json_string_or_null(a->profile_dir), oom);
        cordon_json_put(o, "fix", text_json(cordon_doctor_apparmor_fix(a, fix, sizeof(fix))), oom);
        return o;
}

static json_t *landlock_json(const struct cordon_doctor_landlock *l, bool *oom)
{
        char reason[256];
        json_t *o = json_object(), *features = json_array();
        const char *name;
        int abi = 0;
        for (unsigned i = 0; (name = cordon_landlock_feature_name(i, &abi)); i++)
                if (l->abi >= abi)
                        cordon_json_append(features, json_string(name), oom);
        cordon_json_put(o, "available", json_boolean(l->abi > 0), oom);
        cordon_json_put(o, "abi", l->abi > 0 ? json_integer(l->abi) : json_null(), oom);
        cordon_json_put(o, "features", features, oom);
        cordon_json_put(o, "error", error_json(l->error), oom);
        cordon_json_put(o, "reason",
                        text_json(cordon_doctor_landlock_reason(l, reason, sizeof(reason))), oom);
        return o;
}

static json_t *seccomp_json(const struct cordon_doctor_seccomp *s, bool *oom)
{
        char reason[256];
        json_t *o = json_object(), *actions = json_array();
        const char *name;
        for (unsigned i = 0; (name = cordon_doctor_seccomp_action_name(i)); i++)
                if (s->actions & (1u << i))
                        cordon_json_append(actions, json_string(name), oom);
        cordon_json_put(o, "available", json_boolean(s->filter), oom);
        cordon_json_put(o, "mode", s->mode >= 0 ? json_integer(s->mode) : json_null(), oom);
        cordon_json_put(o, "actions", actions, oom);
        cordon_json_put(o, "error", error_json(s->error), oom);
        cordon_json_put(o, "reason",
                        text_json(cordon_doctor_seccomp_reason(s, reason, sizeof(reason))), oom);
        return o;
}

static json_t *cgroup_json(const struct cordon_doctor_cgroup *c, bool *oom)
{
        bool v2 = c->v2_mount && c->error >= 0;
        json_t *o = json_object(), *v1 = json_object();
        cordon_json_put(o, "layout", json_string_or_null(cordon_cgroup_layout_to_string(c->layout)),
                        oom);
        cordon_json_put(o, "v2_mount", json_string_or_null(c->v2_mount), oom);
        cordon_json_put(o, "path", json_string_or_null(c->path), oom);
        cordon_json_put(o, "controllers", v2 ? words_json(c->controllers, oom) : json_null(), oom);
        cordon_json_put(o, "delegated", json_boolean(v2 && c->delegated), oom);
        cordon_json_put(o, "error", error_json(c->error), oom);
        cordon_json_put(v1, "memory", json_string_or_null(c->v1_memory), oom);
        cordon_json_put(v1, "pids", json_string_or_null(c->v1_pids), oom);
        cordon_json_put(o, "v1", v1, oom);
        return o;
}

/* A mechanism's name; null for NONE (that limit cannot be enforced). */
static json_t *mechanism_json(enum cordon_limit_mechanism m)
{
        return json_string_or_null(m == CORDON_LIMIT_NONE ? NULL
                                                          : cordon_limit_mechanism_to_string(m));
}

/* {"memory": {"mechanism": "rlimit", "note": "..."}, "pids": ..., "cpus": ..., "error": null};
 * a mechanism of null: that limit cannot be enforced (the note says why). */
static json_t *limits_json(const struct cordon_doctor_limits *l, bool *oom)
{
        json_t *o = json_object();
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                char note[sizeof(l->reason)];
                json_t *one = json_object();
                cordon_json_put(one, "mechanism", mechanism_json(l->mechanism[k]), oom);
                cordon_json_put(one, "note",
                                text_json(cordon_doctor_limit_note(l, (enum cordon_limit_kind)k,
                                                                   note, sizeof(note))),
                                oom);
                cordon_json_put(o, cordon_limit_kind_to_string((enum cordon_limit_kind)k), one,
                                oom);
        }
        cordon_json_put(o, "error", error_json(l->error), oom);
        return o;
}

/* {"usable": true, "gaps": [the gaps everywhere, then "WHAT: NOTE" of each item that does not
 * work here], "features": [{"name": "shm", "what": "...", "works": true, "note": "..."}, ...]}. */
static json_t *landlock_backend_json(const struct cordon_doctor_landlock_backend *b, bool *oom)
{
        json_t *lb = json_object(), *gaps = json_array(), *features = json_array();
        const char *gap;
        for (unsigned i = 0; (gap = cordon_doctor_landlock_backend_gap(i)); i++)
                cordon_json_append(gaps, json_string(gap), oom);
        for (size_t i = 0; i < ELEMENTSOF(b->features); i++) {
                const struct cordon_doctor_ll_feature *f = &b->features[i];
                if (!f->works) {
                        char line[sizeof(f->note) + 128];
                        snprintf(line, sizeof(line), "%s: %s", f->what, f->note);
                        cordon_json_append(gaps, json_string_or_null(line), oom);
                }
                json_t *o = json_object();
                cordon_json_put(o, "name", json_string_or_null(f->name), oom);
                cordon_json_put(o, "what", json_string_or_null(f->what), oom);
                cordon_json_put(o, "works", json_boolean(f->works), oom);
                cordon_json_put(o, "note", text_json(f->note), oom);
                cordon_json_append(features, o, oom);
        }
        cordon_json_put(lb, "usable", json_boolean(b->usable), oom);
        cordon_json_put(lb, "gaps", gaps, oom);
        cordon_json_put(lb, "features", features, oom);
        return lb;
}

/* The variables held for a part not built yet, each with its value and origin. */
static json_t *held_json(const struct cordon_settings *s, bool *oom)
{
        json_t *a = json_array();
        const char *name;
        for (size_t i = 0; (name = cordon_settings_variable(i)); i++) {
                char value[64];
                const char *origin = NULL;
                if (cordon_settings_variable_is_held(name) != 1 ||
                    cordon_settings_get(s, name, value, sizeof(value), &origin) < 0)
                        continue;
                json_t *o = json_object();
                cordon_json_put(o, "name", json_string(name), oom);
                cordon_json_put(o, "value", json_string_or_null(value), oom);
                cordon_json_put(o, "origin", json_string_or_null(origin), oom);
                cordon_json_append(a, o, oom);
        }
        return a;
}

/* What a sandbox gets with the settings assessed: {"backend": "ns", "backend_setting": "auto",
 * "usable": true, "network": {"want": "filtered", "mode": "proxied", "deliverable": [...],
 * "reason": "..."}, "limits": {only the limits set} or null}. */
static json_t *in_use_json(const struct cordon_doctor_setup *d, bool *oom)
{
        json_t *o = json_object(), *net = json_object(), *modes = json_array();
        cordon_json_put(
            o, "backend",
            json_string_or_null(
                d->backend < 0 ? NULL : cordon_backend_to_string((enum cordon_backend)d->backend)),
            oom);
        cordon_json_put(o, "backend_setting",
                        json_string_or_null(cordon_backend_to_string(d->backend_setting)), oom);
        cordon_json_put(o, "usable", json_boolean(d->backend_usable), oom);
        for (int m = 0; m < (int)ELEMENTSOF(d->net_deliverable); m++)
                if (d->net_deliverable[m])
                        cordon_json_append(
                            modes,
                            json_string_or_null(cordon_net_mode_to_string((enum cordon_net_mode)m)),
                            oom);
        cordon_json_put(net, "want", json_string_or_null(cordon_net_mode_to_string(d->net_want)),
                        oom);
        cordon_json_put(
            net, "mode",
            json_string_or_null(d->net_mode < 0
                                    ? NULL
                                    : cordon_net_mode_to_string((enum cordon_net_mode)d->net_mode)),
            oom);
        cordon_json_put(net, "deliverable", modes, oom);
        cordon_json_put(net, "reason", text_json(d->net_why), oom);
        cordon_json_put(o, "network", net, oom);
        bool any = d->cgroup_path_set;
        for (size_t k = 0; k < ELEMENTSOF(d->limit_set); k++)
                any |= d->limit_set[k];
        json_t *limits = any ? json_object() : json_null();
        for (int k = 0; any && k < _CORDON_LIMIT_KIND_MAX; k++)
                if (d->limit_set[k])
                        cordon_json_put(limits,
                                        cordon_limit_kind_to_string((enum cordon_limit_kind)k),
                                        mechanism_json(d->limits.mechanism[k]), oom);
        cordon_json_put(o, "limits", limits, oom);
        return o;
}

_public_ int cordon_doctor_to_json(const struct cordon_doctor_report *r,
                                   const struct cordon_doctor_setup *setup,
                                   const struct cordon_settings *s, unsigned flags, char **ret_json)
{
        if (!r || !ret_json || flags != 0)
                return -EINVAL;
        bool oom = false;
        json_t *root = json_object(), *pasta = json_object(), *net = json_object();
        cordon_json_put(pasta, "path", json_string_or_null(r->pasta.path), &oom);
        cordon_json_put(root, "user_namespaces", userns_json(&r->userns, &oom), &oom);
        cordon_json_put(root, "apparmor", apparmor_json(&r->apparmor, &oom), &oom);
        cordon_json_put(root, "landlock", landlock_json(&r->landlock, &oom), &oom);
        cordon_json_put(root, "seccomp", seccomp_json(&r->seccomp, &oom), &oom);
        cordon_json_put(root, "cgroup", cgroup_json(&r->cgroup, &oom), &oom);
        cordon_json_put(root, "limits", limits_json(&r->limits, &oom), &oom);
        cordon_json_put(root, "pasta", pasta, &oom);
        cordon_json_put(net, "filtered", json_boolean(r->network.filtered), &oom);
        cordon_json_put(net, "reason", text_json(r->network.reason), &oom);
        cordon_json_put(root, "network", net, &oom);
        cordon_json_put(root, "ns_backend_usable", json_boolean(cordon_doctor_ns_backend_usable(r)),
                        &oom);
        int b = cordon_doctor_auto_backend(r);
        cordon_json_put(
            root, "backend",
            json_string_or_null(b < 0 ? NULL : cordon_backend_to_string((enum cordon_backend)b)),
            &oom);
        cordon_json_put(root, "landlock_backend", landlock_backend_json(&r->landlock_backend, &oom),
                        &oom);
        cordon_json_put(root, "held", s ? held_json(s, &oom) : json_null(), &oom);
        cordon_json_put(root, "in_use", setup ? in_use_json(setup, &oom) : json_null(), &oom);
        return cordon_json_finish(root, oom, ret_json);
}
