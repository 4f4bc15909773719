/* A sandbox's report as JSON: the one encoding of what a sandbox was given and how it ended,
 * for the receipt of `cordon run --receipt`, the session API and any other caller. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/sandbox.h"
#include "lib/report/report-json.h"
#include "shared/macro.h"

int cordon_json_finish(json_t *root, bool oom, char **ret_json)
{
        _cleanup_json_ json_t *o = root;
        if (oom || !o)
                return -ENOMEM;
        char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (!text)
                return -ENOMEM;
        *ret_json = text;
        return 0;
}

static json_t *namespaces_json(const struct cordon_report *rep, bool *oom)
{
        static const char *const ns[] = {"user", "mount", "pid", "ipc", "uts", "cgroup", "net"};
        static const unsigned bits[] = {CORDON_NS_USER, CORDON_NS_MOUNT, CORDON_NS_PID,
                                        CORDON_NS_IPC,  CORDON_NS_UTS,   CORDON_NS_CGROUP,
                                        CORDON_NS_NET};
        json_t *a = json_array();
        for (size_t i = 0; i < ELEMENTSOF(ns); i++)
                if (rep->namespaces & bits[i])
                        cordon_json_append(a, json_string(ns[i]), oom);
        return a;
}

static json_t *names_json(const char *const *names, bool *oom)
{
        json_t *a = json_array();
        for (size_t i = 0; names && names[i]; i++)
                cordon_json_append(a, json_string_or_null(names[i]), oom);
        return a;
}

/* The layers as applied: a layer counts as applied once the command runs (`started`) under a
 * plan that has it; before the start, and for a start that failed, it is not. */
static json_t *layers_json(const struct cordon_report *rep, bool *oom)
{
        json_t *layers = json_object(), *ll = json_object(), *sc = json_object();
        /* The ABI's features when the layer was planned; none otherwise. */
        json_t *features = json_array();
        const char *name;
        for (unsigned i = 0;
             rep->landlock.planned && (name = cordon_landlock_feature_name(i, NULL)); i++)
                if (rep->landlock.features & (1u << i))
                        cordon_json_append(features, json_string(name), oom);
        cordon_json_put(ll, "applied", json_boolean(rep->started && rep->landlock.planned), oom);
        cordon_json_put(ll, "abi",
                        rep->landlock.abi > 0 ? json_integer(rep->landlock.abi) : json_null(), oom);
        cordon_json_put(ll, "features", features, oom);
        cordon_json_put(ll, "rules", json_integer((json_int_t)rep->landlock.rules), oom);
        cordon_json_put(ll, "tcp_denied", json_boolean(rep->landlock.tcp_denied), oom);
        cordon_json_put(ll, "scoped", json_boolean(rep->landlock.scoped), oom);

        cordon_json_put(sc, "applied", json_boolean(rep->started && rep->seccomp.planned), oom);
        cordon_json_put(sc, "deny_list", json_boolean(rep->seccomp.deny_list), oom);
        cordon_json_put(sc, "deny_network", json_boolean(rep->seccomp.deny_network), oom);
        cordon_json_put(sc, "deny_socket_create", json_boolean(rep->seccomp.deny_socket_create),
                        oom);
        cordon_json_put(sc, "instructions", json_integer((json_int_t)rep->seccomp.instructions),
                        oom);

        cordon_json_put(layers, "landlock", ll, oom);
        cordon_json_put(layers, "seccomp", sc, oom);
        return layers;
}

/* {"exit_status": N} once the wait has returned; {"error": "...", "errno": N} when starting or
 * waiting failed (the text is the errno's: the report keeps no sentence, a caller with the
 * failed call's struct cordon_diag has a better one); null while it runs. */
static json_t *outcome_json(const struct cordon_report *rep, bool *oom)
{
        json_t *o;
        if (rep->error < 0) {
                o = json_object();
                cordon_json_put(o, "error", json_string(strerrordesc_np(-rep->error) ?: "unknown"),
                                oom);
                cordon_json_put(o, "errno", json_integer(-rep->error), oom);
        } else if (rep->ended) {
                o = json_object();
                cordon_json_put(o, "exit_status", json_integer(rep->exit_status), oom);
        } else {
                o = json_null();
        }
        return o;
}

/* PROTECT_GIT_CONFIG's check after the run: what it moved aside. */
static json_t *git_moved_json(const struct cordon_report *rep, bool *oom)
{
        json_t *a = json_array();
        for (size_t i = 0; i < rep->git.n_moved; i++) {
                json_t *m = json_object();
                cordon_json_put(m, "path", json_string_or_null(rep->git.moved[i].path), oom);
                cordon_json_put(m, "moved_to", json_string_or_null(rep->git.moved[i].moved_to),
                                oom);
                cordon_json_put(m, "reason", json_string_or_null(rep->git.moved[i].reason), oom);
                cordon_json_append(a, m, oom);
        }
        return a;
}

_public_ int cordon_report_to_json(const struct cordon_report *rep, unsigned flags, char **ret_json)
{
        if (!rep || !ret_json || flags != 0)
                return -EINVAL;
        bool oom = false;
        json_t *o = json_object();
        cordon_json_put(o, "backend", json_string_or_null(cordon_backend_to_string(rep->backend)),
                        &oom);
        cordon_json_put(o, "profile", json_string_or_null(cordon_profile_to_string(rep->profile)),
                        &oom);
        cordon_json_put(o, "fallback",
                        json_string_or_null(cordon_fallback_to_string(rep->fallback)), &oom);
        cordon_json_put(o, "project", json_string_or_null(rep->project_dir), &oom);
        cordon_json_put(o, "home_access",
                        json_string_or_null(cordon_home_access_to_string(rep->home_access)), &oom);
        cordon_json_put(o, "network", json_string_or_null(cordon_net_mode_to_string(rep->net_mode)),
                        &oom);
        cordon_json_put(o, "env_blocked", json_integer((json_int_t)rep->env_blocked), &oom);
        /* The names of the removed variables, never their values. */
        cordon_json_put(o, "env_blocked_names", names_json(rep->env_blocked_names, &oom), &oom);
        cordon_json_put(o, "namespaces", namespaces_json(rep, &oom), &oom);
        cordon_json_put(o, "layers", layers_json(rep, &oom), &oom);
        cordon_json_put(o, "outcome", outcome_json(rep, &oom), &oom);
        cordon_json_put(o, "git_moved", git_moved_json(rep, &oom), &oom);
        cordon_json_put(o, "git_unchecked",
                        rep->git.unchecked && *rep->git.unchecked
                            ? json_string_or_null(rep->git.unchecked)
                            : json_null(),
                        &oom);
        return cordon_json_finish(o, oom, ret_json);
}
