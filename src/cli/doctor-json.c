/* `cordon doctor --json`: the report, the settings' consequences and the problems as one JSON
 * object, the same facts as the text. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/doctor-cli.h"
#include "shared/json-util.h"
#include "shared/macro.h"

static void put(json_t *o, const char *key, json_t *v, bool *oom);
static json_t *sysctl_json(long v);

static json_t *apparmor_json(const struct cordon_doctor_apparmor *a, bool *oom)
{
        char reason[256], fix[3 * PATH_MAX];
        json_t *o = json_object();
        doctor_apparmor_reason(a, reason, sizeof(reason));
        doctor_apparmor_fix(a, fix, sizeof(fix));
        put(o, "enabled", a->enabled < 0 ? json_null() : json_boolean(a->enabled), oom);
        put(o, "kernel.apparmor_restrict_unprivileged_userns",
            sysctl_json(a->restrict_unprivileged_userns), oom);
        put(o, "label", json_string_or_null(*a->label ? a->label : NULL), oom);
        put(o, "restricts_user_namespaces", json_boolean(a->restricts_caller), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        put(o, "profile", json_string(a->profile), oom);
        put(o, "profile_installed", json_boolean(a->profile_installed), oom);
        put(o, "profile_dir", json_string(a->profile_dir), oom);
        put(o, "fix", json_string_or_null(*fix ? fix : NULL), oom);
        return o;
}

/* Adds @v to @o under @key; any failure (including @o or @v being NULL after a failed
 * allocation) sets *@oom. json_object_set_new() consumes @v either way. */
static void put(json_t *o, const char *key, json_t *v, bool *oom)
{
        if (json_object_set_new(o, key, v) < 0)
                *oom = true;
}

static json_t *error_json(int r)
{
        return r < 0 ? json_string(doctor_errno_name(r)) : json_null();
}

static json_t *sysctl_json(long v)
{
        return v >= 0 ? json_integer(v) : json_null();
}

static json_t *words_json(char *const *l, bool *oom)
{
        json_t *a = json_array();
        for (size_t i = 0; a && l && l[i]; i++)
                if (json_array_append_new(a, json_string_or_null(l[i])) < 0)
                        *oom = true;
        return a;
}

/* Each builder fills its object completely before the caller attaches it to the parent: once
 * attached, a failed json_object_set_new() may already have released it. */
static json_t *userns_json(const struct cordon_doctor_userns *u, bool *oom)
{
        char reason[256];
        json_t *o = json_object(), *sysctl = json_object();

        doctor_userns_reason(u, reason, sizeof(reason));
        put(o, "usable", json_boolean(u->usable), oom);
        put(o, "error", error_json(u->error), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        put(sysctl, "kernel.unprivileged_userns_clone", sysctl_json(u->unprivileged_userns_clone),
            oom);
        put(sysctl, "user.max_user_namespaces", sysctl_json(u->max_user_namespaces), oom);
        put(sysctl, "kernel.apparmor_restrict_unprivileged_userns",
            sysctl_json(u->apparmor_restrict_unprivileged_userns), oom);
        put(o, "sysctl", sysctl, oom);
        return o;
}

static json_t *landlock_json(const struct cordon_doctor_landlock *l, bool *oom)
{
        char reason[256];
        json_t *o = json_object();

        doctor_landlock_reason(l, reason, sizeof(reason));
        put(o, "available", json_boolean(l->abi > 0), oom);
        put(o, "abi", l->abi > 0 ? json_integer(l->abi) : json_null(), oom);
        json_t *features = json_array();
        const char *name;
        int abi = 0;
        for (unsigned i = 0; features && (name = cordon_landlock_feature_name(i, &abi)); i++)
                if (l->abi >= abi && json_array_append_new(features, json_string(name)) < 0)
                        *oom = true;
        put(o, "features", features, oom);
        put(o, "error", error_json(l->error), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        return o;
}

static json_t *seccomp_json(const struct cordon_doctor_seccomp *s, bool *oom)
{
        char reason[256];
        json_t *o = json_object(), *actions = json_array();

        doctor_seccomp_reason(s, reason, sizeof(reason));
        put(o, "available", json_boolean(s->filter), oom);
        put(o, "mode", s->mode >= 0 ? json_integer(s->mode) : json_null(), oom);
        for (size_t i = 0; actions && i < ELEMENTSOF(doctor_seccomp_action_names); i++)
                if ((s->actions & (1u << i)) &&
                    json_array_append_new(actions, json_string(doctor_seccomp_action_names[i])) < 0)
                        *oom = true;
        put(o, "actions", actions, oom);
        put(o, "error", error_json(s->error), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        return o;
}

static json_t *cgroup_json(const struct cordon_doctor_cgroup *c, bool *oom)
{
        bool v2 = c->v2_mount && c->error >= 0;
        json_t *o = json_object(), *v1 = json_object();

        put(o, "layout", json_string(doctor_cgroup_layout_name(c->layout)), oom);
        put(o, "v2_mount", json_string_or_null(c->v2_mount), oom);
        put(o, "path", json_string_or_null(c->path), oom);
        put(o, "controllers", v2 ? words_json(c->controllers, oom) : json_null(), oom);
        put(o, "delegated", json_boolean(v2 && c->delegated), oom);
        put(o, "error", error_json(c->error), oom);
        put(v1, "memory", json_string_or_null(c->v1_memory), oom);
        put(v1, "pids", json_string_or_null(c->v1_pids), oom);
        put(o, "v1", v1, oom);
        return o;
}

/* {"memory": {"mechanism": "rlimit", "note": "..."}, "pids": ..., "cpus": ..., "error": null};
 * a mechanism of null: that limit cannot be enforced (the note says why). */
static json_t *limits_json(const struct cordon_doctor_limits *l, bool *oom)
{
        json_t *o = json_object();
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                enum cordon_limit_mechanism m = l->mechanism[k];
                char note[sizeof(l->reason)];
                json_t *one = json_object();
                doctor_limit_note(l, (enum cordon_limit_kind)k, note, sizeof(note));
                put(one, "mechanism",
                    json_string_or_null(
                        m == CORDON_LIMIT_NONE ? NULL : cordon_limit_mechanism_to_string(m)),
                    oom);
                put(one, "note", json_string_or_null(*note ? note : NULL), oom);
                put(o, cordon_limit_kind_to_string((enum cordon_limit_kind)k), one, oom);
        }
        put(o, "error", error_json(l->error), oom);
        return o;
}

/* {"usable": true, "gaps": [the text's gap lines], "features": [{"name": "shm", "what": "...",
 * "works": true, "note": "..."}, ...]}: the same facts as the text, in the same order. */
static json_t *landlock_backend_json(const struct cordon_doctor_landlock_backend *b, bool *oom)
{
        json_t *lb = json_object(), *gaps = json_array(), *features = json_array();
        for (size_t i = 0; gaps && i < ELEMENTSOF(doctor_landlock_backend_gaps); i++)
                if (json_array_append_new(gaps, json_string(doctor_landlock_backend_gaps[i])) < 0)
                        *oom = true;
        for (size_t i = 0; gaps && features && i < ELEMENTSOF(b->features); i++) {
                const struct cordon_doctor_ll_feature *f = &b->features[i];
                if (!f->works) {
                        char gap[sizeof(f->note) + 128];
                        doctor_feature_gap(f, gap, sizeof(gap));
                        if (json_array_append_new(gaps, json_string(gap)) < 0)
                                *oom = true;
                }
                json_t *o = json_object();
                put(o, "name", json_string_or_null(f->name), oom);
                put(o, "what", json_string_or_null(f->what), oom);
                put(o, "works", json_boolean(f->works), oom);
                put(o, "note", json_string_or_null(*f->note ? f->note : NULL), oom);
                if (!o || json_array_append_new(features, o) < 0)
                        *oom = true;
        }
        if (!gaps || !features)
                *oom = true;
        put(lb, "usable", json_boolean(b->usable), oom);
        put(lb, "gaps", gaps, oom);
        put(lb, "features", features, oom);
        return lb;
}

static json_t *held_json(const struct cordon_settings *s, bool *oom)
{
        json_t *a = json_array();
        const char *name;
        for (size_t i = 0; a && (name = cordon_settings_variable(i)); i++) {
                char value[64];
                const char *origin = NULL;
                if (cordon_settings_variable_is_held(name) != 1 ||
                    cordon_settings_get(s, name, value, sizeof(value), &origin) < 0)
                        continue;
                json_t *o = json_object();
                put(o, "name", json_string(name), oom);
                put(o, "value", json_string(value), oom);
                put(o, "origin", json_string(origin), oom);
                if (!o || json_array_append_new(a, o) < 0)
                        *oom = true;
        }
        if (!a)
                *oom = true;
        return a;
}

/* What `cordon run` gets with the settings in use: {"backend": "ns", "backend_setting": "auto",
 * "usable": true, "network": {"want": "filtered", "mode": "proxied", "deliverable": [...],
 * "reason": "..."}, "limits": {only the limits set} or null}. */
static json_t *in_use_json(const struct doctor_view *v, bool *oom)
{
        const struct cordon_doctor_setup *d = v->setup;
        json_t *o = json_object(), *net = json_object(), *modes = json_array();
        put(o, "backend",
            json_string_or_null(
                d->backend < 0 ? NULL : cordon_backend_to_string((enum cordon_backend)d->backend)),
            oom);
        put(o, "backend_setting", json_string(cordon_backend_to_string(d->backend_setting)), oom);
        put(o, "usable", json_boolean(d->backend_usable), oom);
        for (int m = 0; modes && m < (int)ELEMENTSOF(d->net_deliverable); m++)
                if (d->net_deliverable[m] &&
                    json_array_append_new(
                        modes, json_string(cordon_net_mode_to_string((enum cordon_net_mode)m))) < 0)
                        *oom = true;
        if (!modes)
                *oom = true;
        put(net, "want", json_string(cordon_net_mode_to_string(d->net_want)), oom);
        put(net, "mode",
            json_string_or_null(d->net_mode < 0
                                    ? NULL
                                    : cordon_net_mode_to_string((enum cordon_net_mode)d->net_mode)),
            oom);
        put(net, "deliverable", modes, oom);
        put(net, "reason", json_string_or_null(*d->net_why ? d->net_why : NULL), oom);
        put(o, "network", net, oom);
        bool any = d->cgroup_path_set;
        for (size_t k = 0; k < ELEMENTSOF(d->limit_set); k++)
                any |= d->limit_set[k];
        json_t *limits = any ? json_object() : json_null();
        for (int k = 0; any && k < _CORDON_LIMIT_KIND_MAX; k++) {
                enum cordon_limit_mechanism m = d->limits.mechanism[k];
                if (d->limit_set[k])
                        put(limits, cordon_limit_kind_to_string((enum cordon_limit_kind)k),
                            json_string_or_null(m == CORDON_LIMIT_NONE
                                                    ? NULL
                                                    : cordon_limit_mechanism_to_string(m)),
                            oom);
        }
        put(o, "limits", limits, oom);
        return o;
}

static json_t *problems_json(const struct doctor_problems *pr, bool *oom)
{
        json_t *a = json_array();
        for (size_t i = 0; a && i < pr->n; i++) {
                json_t *o = json_object();
                put(o, "what", json_string(pr->p[i].what), oom);
                put(o, "fix", json_string_or_null(*pr->p[i].fix ? pr->p[i].fix : NULL), oom);
                put(o, "refuses", json_boolean(pr->p[i].refuses), oom);
                if (!o || json_array_append_new(a, o) < 0)
                        *oom = true;
        }
        if (!a)
                *oom = true;
        return a;
}

json_t *doctor_json_build(const struct doctor_view *v, const struct doctor_problems *pr)
{
        const struct cordon_doctor_report *r = v->r;
        bool oom = false;
        _cleanup_json_ json_t *root = json_object();
        json_t *pasta = json_object();

        put(pasta, "path", json_string_or_null(r->pasta.path), &oom);

        put(root, "user_namespaces", userns_json(&r->userns, &oom), &oom);
        put(root, "apparmor", apparmor_json(&r->apparmor, &oom), &oom);
        put(root, "landlock", landlock_json(&r->landlock, &oom), &oom);
        put(root, "seccomp", seccomp_json(&r->seccomp, &oom), &oom);
        put(root, "cgroup", cgroup_json(&r->cgroup, &oom), &oom);
        put(root, "limits", limits_json(&r->limits, &oom), &oom);
        put(root, "pasta", pasta, &oom);
        json_t *net = json_object();
        put(net, "filtered", json_boolean(r->network.filtered), &oom);
        put(net, "reason", json_string_or_null(*r->network.reason ? r->network.reason : NULL),
            &oom);
        put(root, "network", net, &oom);
        put(root, "ns_backend_usable", json_boolean(cordon_doctor_ns_backend_usable(r)), &oom);
        int b = cordon_doctor_auto_backend(r);
        put(root, "backend",
            json_string_or_null(b < 0 ? NULL : cordon_backend_to_string((enum cordon_backend)b)),
            &oom);
        put(root, "landlock_backend", landlock_backend_json(&r->landlock_backend, &oom), &oom);
        put(root, "held", held_json(v->s, &oom), &oom);
        put(root, "in_use", in_use_json(v, &oom), &oom);
        put(root, "problems", problems_json(pr, &oom), &oom);
        return oom ? NULL : TAKE_PTR(root);
}
