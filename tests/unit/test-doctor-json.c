/* Unit tests for src/lib/report/doctor-json.c: the host checks as JSON, from hand-made facts:
 * every key in its order, the reasons in words, and the parts that need settings or an
 * assessment null without them. */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/doctor.h"

/* A host without user namespaces (max_user_namespaces=0) or Landlock, with seccomp and a
 * delegated v2 cgroup. */
static void facts(struct cordon_doctor_report *r)
{
        *r = (struct cordon_doctor_report){0};
        r->userns = (struct cordon_doctor_userns){
            .error = -ENOSPC,
            .blocker = CORDON_USERNS_BLOCKER_MAX_NAMESPACES,
            .unprivileged_userns_clone = -1,
            .max_user_namespaces = 0,
            .apparmor_restrict_unprivileged_userns = -1,
        };
        r->landlock = (struct cordon_doctor_landlock){.abi = 0, .error = -EOPNOTSUPP};
        r->seccomp = (struct cordon_doctor_seccomp){
            .filter = true,
            .mode = 0,
            .actions = CORDON_SECCOMP_ACTION_ERRNO | CORDON_SECCOMP_ACTION_ALLOW,
        };
        r->cgroup.layout = CORDON_CGROUP_UNIFIED;
        r->cgroup.v2_mount = "/sys/fs/cgroup";
        r->cgroup.delegated = true;
        r->limits.mechanism[CORDON_LIMIT_MEMORY] = CORDON_LIMIT_CGROUP2;
        snprintf(r->network.reason, sizeof(r->network.reason), "no pasta");
        r->apparmor = (struct cordon_doctor_apparmor){
            .enabled = -1,
            .restrict_unprivileged_userns = -1,
            .profile = "/usr/share/cordon/apparmor/cordon",
            .profile_dir = "/etc/apparmor.d",
        };
}

static json_t *to_json(const struct cordon_doctor_report *r,
                       const struct cordon_doctor_setup *setup, const struct cordon_settings *s)
{
        char *text = NULL;
        cr_assert_eq(cordon_doctor_to_json(r, setup, s, 0, &text), 0);
        cr_assert_not_null(text);
        cr_expect_null(strchr(text, '\n'), "compact: one line");
        json_t *j = json_loads(text, 0, NULL);
        cr_assert_not_null(j, "%s", text);
        free(text);
        return j;
}

/* @j's keys in order, space-separated. */
static void expect_keys(json_t *j, const char *want)
{
        char got[1024] = "";
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v)
        {
                (void)v;
                snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", *got ? " " : "",
                         key);
        }
        cr_expect_str_eq(got, want);
}

Test(doctor_json, facts_alone)
{
        struct cordon_doctor_report r;
        facts(&r);
        json_t *j = to_json(&r, NULL, NULL);
        expect_keys(j, "user_namespaces apparmor landlock seccomp cgroup limits pasta network "
                       "ns_backend_usable backend landlock_backend held in_use");
        json_t *u = json_object_get(j, "user_namespaces");
        expect_keys(u, "usable error reason sysctl");
        cr_expect_str_eq(json_string_value(json_object_get(u, "error")), "ENOSPC");
        cr_expect_str_eq(json_string_value(json_object_get(u, "reason")),
                         "user.max_user_namespaces=0");
        cr_expect_eq(json_integer_value(
                         json_object_get(json_object_get(u, "sysctl"), "user.max_user_namespaces")),
                     0);
        json_t *ll = json_object_get(j, "landlock");
        cr_expect(json_is_null(json_object_get(ll, "abi")));
        cr_expect_eq(json_array_size(json_object_get(ll, "features")), 0);
        cr_expect_str_eq(json_string_value(json_object_get(ll, "reason")),
                         "EOPNOTSUPP: disabled at boot, landlock is not in the lsm= list");
        json_t *sc = json_object_get(j, "seccomp");
        json_t *actions = json_object_get(sc, "actions");
        cr_expect_eq(json_array_size(actions), 2);
        cr_expect_str_eq(json_string_value(json_array_get(actions, 0)), "errno");
        cr_expect_str_eq(json_string_value(json_array_get(actions, 1)), "allow");
        cr_expect(json_is_null(json_object_get(sc, "reason")));
        json_t *cg = json_object_get(j, "cgroup");
        cr_expect_str_eq(json_string_value(json_object_get(cg, "layout")), "unified");
        cr_expect_eq(json_array_size(json_object_get(cg, "controllers")), 0);
        json_t *mem = json_object_get(json_object_get(j, "limits"), "memory");
        cr_expect_str_eq(json_string_value(json_object_get(mem, "mechanism")), "cgroup2");
        cr_expect(json_is_null(json_object_get(mem, "note")));
        cr_expect_str_eq(
            json_string_value(json_object_get(json_object_get(j, "network"), "reason")),
            "no pasta");
        /* Neither backend can run: no user namespace, no Landlock. */
        cr_expect(json_is_false(json_object_get(j, "ns_backend_usable")));
        cr_expect(json_is_null(json_object_get(j, "backend")));
        /* The gaps everywhere come first, then one line per item that does not work here. */
        json_t *gaps = json_object_get(json_object_get(j, "landlock_backend"), "gaps");
        cr_expect_str_eq(json_string_value(json_array_get(gaps, 0)),
                         cordon_doctor_landlock_backend_gap(0));
        size_t everywhere = 0;
        while (cordon_doctor_landlock_backend_gap((unsigned)everywhere))
                everywhere++;
        cr_expect_eq(json_array_size(gaps), everywhere + _CORDON_DOCTOR_LL_MAX,
                     "no item works in a zeroed report");
        cr_expect(json_is_null(json_object_get(j, "held")));
        cr_expect(json_is_null(json_object_get(j, "in_use")));
        json_decref(j);
}

/* With settings and their assessment: the held variables and what a sandbox gets. */
Test(doctor_json, settings_and_setup)
{
        struct cordon_doctor_report r;
        facts(&r);
        struct cordon_settings *s = NULL;
        cr_assert_eq(cordon_settings_new("/home/u", &s), 0);
        cr_assert_eq(cordon_settings_set(s, "MEMORY_LIMIT", "512M", "test", NULL), 0);
        struct cordon_doctor_setup setup = {
            .backend_setting = CORDON_BACKEND_AUTO,
            .backend = -EOPNOTSUPP,
            .net_want = CORDON_NET_FILTERED,
            .net_deliverable = {[CORDON_NET_OPEN] = true, [CORDON_NET_ISOLATED] = true},
            .net_mode = CORDON_NET_ISOLATED,
            .limit_set = {[CORDON_LIMIT_MEMORY] = true},
        };
        snprintf(setup.net_why, sizeof(setup.net_why), "why (fix)");
        json_t *j = to_json(&r, &setup, s);
        json_t *held = json_object_get(j, "held");
        cr_assert(json_is_array(held));
        /* No variable is held since the Slurm integration enforces its own. */
        cr_expect_eq(json_array_size(held), 0);
        json_t *in_use = json_object_get(j, "in_use");
        expect_keys(in_use, "backend backend_setting usable network limits");
        cr_expect(json_is_null(json_object_get(in_use, "backend")));
        cr_expect_str_eq(json_string_value(json_object_get(in_use, "backend_setting")), "auto");
        json_t *net = json_object_get(in_use, "network");
        expect_keys(net, "want mode deliverable reason");
        cr_expect_str_eq(json_string_value(json_object_get(net, "mode")), "isolated");
        cr_expect_eq(json_array_size(json_object_get(net, "deliverable")), 2);
        cr_expect_str_eq(json_string_value(json_object_get(net, "reason")), "why (fix)");
        json_t *limits = json_object_get(in_use, "limits");
        expect_keys(limits, "memory");
        cr_expect(json_is_null(json_object_get(limits, "memory")), "NONE: cannot be enforced");
        json_decref(j);
        cordon_settings_free(s);
}

Test(doctor_json, refuses_bad_arguments)
{
        struct cordon_doctor_report r;
        facts(&r);
        char untouched[] = "untouched", *text = untouched;
        cr_expect_eq(cordon_doctor_to_json(&r, NULL, NULL, 2, &text), -EINVAL);
        cr_expect_eq(cordon_doctor_to_json(NULL, NULL, NULL, 0, &text), -EINVAL);
        cr_expect_eq(cordon_doctor_to_json(&r, NULL, NULL, 0, NULL), -EINVAL);
        cr_expect_str_eq(text, "untouched");
}
