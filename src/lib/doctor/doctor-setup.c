/* `cordon doctor` for the settings in use: which backend `cordon run` takes here, which network
 * mode it delivers and which mechanisms its limits get, decided by the launcher's own functions
 * (backend-auto.c, net-decide.c, res-limits.c) on the report's facts. Nothing is printed. */
#include <errno.h>
#include <stdio.h>

#include "lib/doctor/doctor.h"
#include "lib/launch/backend.h"
#include "lib/launch/net-decide.h"
#include "lib/mech/seccomp-notify.h"
#include "lib/policy/policy.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"

static int backend_in_use(const struct cordon_doctor_report *r, enum cordon_backend setting,
                          bool *ret_usable)
{
        switch (setting) {
        case CORDON_BACKEND_NS:
                *ret_usable = cordon_doctor_ns_backend_usable(r);
                return CORDON_BACKEND_NS;
        case CORDON_BACKEND_LANDLOCK:
                *ret_usable = r->landlock.abi > 0;
                return CORDON_BACKEND_LANDLOCK;
        case CORDON_BACKEND_AUTO:
                break;
        }
        int b = cordon_doctor_auto_backend(r);
        *ret_usable = b >= 0;
        return b;
}

/* The network decision of the launch (decide_net() in launch.c) for @backend, with the policy's
 * network part as the settings make it. */
static void assess_net(const struct cordon_doctor_report *r, const struct cordon_settings *s,
                       int backend, bool layers, cordon_net_filtered_probe probe,
                       struct cordon_policy *p, struct cordon_doctor_setup *ret)
{
        p->net_mode = s->net_mode;
        p->net.fallback = s->net_fallback;
        p->net.filter_helper = s->net_filter_helper; /* borrowed; reset by the caller */
        p->net.skip_probe = s->net_skip_probe == 1;
        p->side_effect_level = s->side_effect_level;

        ret->net_want = s->net_mode;
        ret->net_mode = -EOPNOTSUPP;
        if (backend < 0) {
                snprintf(ret->net_why, sizeof(ret->net_why), "no backend can run here");
                return;
        }
        /* The launch's notify() (the landlock backend's) on the report's facts: a backend
         * whose table has none never gets the listener. */
        const struct cordon_backend_ops *ops = cordon_backend_ops((enum cordon_backend)backend);
        const struct cordon_net_host host = {
            .landlock_abi = r->landlock.abi > 0 ? r->landlock.abi : r->landlock.error,
            .seccomp = r->seccomp.filter,
            .notify = ops && ops->notify && layers && r->seccomp.filter &&
                      (r->seccomp.actions & CORDON_SECCOMP_ACTION_USER_NOTIF) &&
                      cordon_seccomp_notify_available(),
        };
        char why[sizeof(ret->net_why)];
        for (int m = 0; m < (int)ELEMENTSOF(ret->net_deliverable); m++)
                ret->net_deliverable[m] = cordon_net_mode_deliverable(
                    p, (enum cordon_backend)backend, &host, (enum cordon_net_mode)m, probe, NULL,
                    m == (int)s->net_mode ? ret->net_why : why,
                    m == (int)s->net_mode ? sizeof(ret->net_why) : sizeof(why));

        enum cordon_net_mode mode;
        char warning[1024];
        struct cordon_diag diag = {0};
        if (cordon_net_decide(p, (enum cordon_backend)backend, &host, probe, NULL, &mode, warning,
                              sizeof(warning), &diag) >= 0)
                ret->net_mode = (int)mode;
}

int cordon_doctor_assess_with(const struct cordon_doctor_report *r, const struct cordon_settings *s,
                              cordon_net_filtered_probe probe, struct cordon_doctor_setup *ret)
{
        struct cordon_doctor_setup d = {.backend_setting = s->backend};
        d.backend = backend_in_use(r, s->backend, &d.backend_usable);
        /* As the launch decides them (prepare in launch.c). */
        d.layers_wanted =
            s->profile != CORDON_PROFILE_UNRESTRICTED &&
            !(s->profile == CORDON_PROFILE_WORKTREE && s->fallback == CORDON_FALLBACK_OFF);
        d.layer_missing_refuses =
            s->profile == CORDON_PROFILE_OS_HARDENED || s->fallback == CORDON_FALLBACK_ENFORCE;

        struct cordon_policy *p = cordon_policy_new();
        if (!p)
                return -ENOMEM;
        assess_net(r, s, d.backend, d.layers_wanted, probe, p, &d);
        p->net.filter_helper = NULL; /* the settings' string */
        cordon_policy_free(p);

        d.limit_set[CORDON_LIMIT_MEMORY] = s->limits.memory_bytes > 0;
        d.limit_set[CORDON_LIMIT_PIDS] = s->limits.pids > 0;
        d.limit_set[CORDON_LIMIT_CPUS] = s->limits.cpus > 0;
        d.cgroup_path_set = s->cgroup_path && *s->cgroup_path;
        bool any = d.cgroup_path_set;
        for (size_t k = 0; k < ELEMENTSOF(d.limit_set); k++)
                any |= d.limit_set[k];
        if (any) {
                int k = cordon_doctor_check_limits_in(
                    NULL, d.cgroup_path_set ? s->cgroup_path : NULL, &d.limits);
                if (k < 0)
                        return k;
        }
        *ret = d;
        return 0;
}

_public_ int cordon_doctor_assess(const struct cordon_doctor_report *r,
                                  const struct cordon_settings *s, struct cordon_doctor_setup *ret)
{
        return cordon_doctor_assess_with(r, s, cordon_pasta_filtered_probe, ret);
}
