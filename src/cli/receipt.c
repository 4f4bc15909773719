/* The JSON receipt of one `cordon run`. */
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "cli/receipt.h"
#include "shared/fd-util.h"
#include "lib/landlock.h"
#include "shared/json-util.h"
#include "shared/macro.h"

static json_t *namespaces_json(const struct cordon_policy *p, const struct cordon_launch *l)
{
        json_t *a = json_array();
        if (!a || l->backend != CORDON_BACKEND_NS)
                return a;
        static const char *const ns[] = {"user", "mount", "pid", "ipc", "uts", "cgroup"};
        for (size_t i = 0; i < ELEMENTSOF(ns); i++)
                json_array_append_new(a, json_string(ns[i]));
        if (p->net_mode != CORDON_NET_OPEN)
                json_array_append_new(a, json_string("net"));
        return a;
}

static json_t *landlock_json(const struct cordon_launch *l, bool ran)
{
        json_t *features = json_array();
        for (size_t i = 0; features && l->landlock && i < cordon_landlock_n_features; i++)
                if (l->landlock_abi >= cordon_landlock_features[i].abi)
                        json_array_append_new(features,
                                              json_string(cordon_landlock_features[i].name));
        return json_pack("{s:b, s:o, s:o, s:I, s:b, s:b}", "applied", ran && l->landlock, "abi",
                         l->landlock_abi > 0 ? json_integer(l->landlock_abi) : json_null(),
                         "features", features ?: json_null(), "rules",
                         (json_int_t)(l->landlock ? l->ll.n_rules : 0), "tcp_denied",
                         l->landlock && l->ll.deny_tcp, "scoped", l->landlock && l->ll.scope);
}

static json_t *seccomp_json(const struct cordon_launch *l, bool ran)
{
        return json_pack("{s:b, s:b, s:b, s:b, s:I}", "applied", ran && l->bpf.len > 0, "deny_list",
                         l->seccomp, "deny_network", l->seccomp && l->seccomp_opts.deny_network,
                         "deny_socket_create", l->seccomp_opts.deny_socket_create, "instructions",
                         (json_int_t)l->bpf.len);
}

int receipt_write(int fd, const struct cordon_policy *p, const struct cordon_launch *l, int r,
                  int status, const struct cordon_diag *diag)
{
        bool ran = r >= 0;
        json_t *outcome =
            ran ? json_pack("{s:i}", "exit_status", status)
                : json_pack("{s:s, s:i}", "error", diag ? diag->message : "", "errno", -r);
        _cleanup_json_ json_t *root = json_pack(
            "{s:s, s:s, s:s, s:o, s:s, s:s, s:I, s:o, s:{s:o, s:o}, s:o}", "backend",
            cordon_backend_to_string(l->backend), "profile", cordon_profile_to_string(p->profile),
            "fallback", cordon_fallback_to_string(p->fallback), "project",
            json_string_or_null(p->project_dir), "home_access",
            cordon_home_access_to_string(p->home_access), "network",
            cordon_net_mode_to_string(p->net_mode), "env_blocked", (json_int_t)p->n_env_blocked,
            "namespaces", namespaces_json(p, l) ?: json_null(), "layers", "landlock",
            landlock_json(l, ran) ?: json_null(), "seccomp", seccomp_json(l, ran) ?: json_null(),
            "outcome", outcome ?: json_null());
        if (!root)
                return -ENOMEM;
        _cleanup_free_ char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!text)
                return -ENOMEM;
        int k = write_all(fd, text, strlen(text));
        if (k < 0)
                return k;
        return write_all(fd, "\n", 1);
}
