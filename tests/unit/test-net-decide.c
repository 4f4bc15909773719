/* Unit tests for src/lib/launch/net-decide.c: which network mode a launch delivers, for every
 * mode asked for, backend, pasta state and NETWORK_FILTER_FALLBACK. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/launch/net-decide.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"

static bool pasta_ok(const struct cordon_policy *p, char *why, size_t n)
{
        (void)p;
        *why = 0;
        (void)n;
        return true;
}

static bool pasta_missing(const struct cordon_policy *p, char *why, size_t n)
{
        (void)p;
        snprintf(why, n, "no pasta here (install passt)");
        return false;
}

static struct cordon_policy *pol(enum cordon_net_mode m, enum cordon_net_fallback f)
{
        struct cordon_policy *p = cordon_policy_new();
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_set_net_mode(p, m, "test"), 0);
        p->net.fallback = f;
        return p;
}

/* A kernel without Landlock's TCP rule (ABI 3): proxied cannot be delivered by the landlock
 * backend there, as on every kernel before issue 15. */
static const struct cordon_net_host old_kernel = {.landlock_abi = 3, .seccomp = true};
static const struct cordon_net_host *host = &old_kernel;

static int decide(enum cordon_net_mode m, enum cordon_net_fallback f, enum cordon_backend b,
                  cordon_net_filtered_probe probe, const char *failed, enum cordon_net_mode *got,
                  char *note, struct cordon_diag *d)
{
        struct cordon_policy *p = pol(m, f);
        int r = cordon_net_decide(p, b, host, probe, failed, got, note, 1024, d);
        cordon_policy_free(p);
        return r;
}

Test(net_decide, deliverable_modes_are_delivered_as_asked)
{
        char note[1024];
        struct cordon_diag d = {0};
        for (int m = 0; m < (int)CORDON_NET_MODES; m++) {
                enum cordon_net_mode got = -1;
                cr_assert_eq(decide(m, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_NS, pasta_ok,
                                    NULL, &got, note, &d),
                             0, "%s: %s", cordon_net_mode_to_string(m), d.message);
                cr_assert_eq((int)got, m);
                cr_assert_str_empty(note);
        }
}

Test(net_decide, strict_refuses_naming_why)
{
        char note[1024];
        struct cordon_diag d = {0};
        enum cordon_net_mode got;
        cr_assert_eq(decide(CORDON_NET_FILTERED, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_NS,
                            pasta_missing, NULL, &got, note, &d),
                     -EOPNOTSUPP);
        cr_assert(strstr(d.message, "install passt"), "%s", d.message);
        cr_assert(strstr(d.message, "strict"), "%s", d.message);
}

Test(net_decide, stricter_takes_the_nearest_stricter_mode)
{
        char note[1024];
        struct cordon_diag d = {0};
        enum cordon_net_mode got;
        /* ns backend without pasta: proxied, the next step up. */
        cr_assert_eq(decide(CORDON_NET_FILTERED, CORDON_NET_FALLBACK_STRICTER, CORDON_BACKEND_NS,
                            pasta_missing, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_PROXIED);
        cr_assert(strstr(note, "using proxied"), "%s", note);
        /* pasta that failed to start on an earlier attempt, whatever the probe says. */
        cr_assert_eq(decide(CORDON_NET_FILTERED, CORDON_NET_FALLBACK_STRICTER, CORDON_BACKEND_NS,
                            pasta_ok, "pasta exited with status 1", &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_PROXIED);
        cr_assert(strstr(note, "pasta exited with status 1"), "%s", note);
        /* The landlock backend has no namespace for pasta, and on this kernel no TCP rule to keep
         * the command behind the proxy: isolated. */
        cr_assert_eq(decide(CORDON_NET_FILTERED, CORDON_NET_FALLBACK_STRICTER,
                            CORDON_BACKEND_LANDLOCK, pasta_ok, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_ISOLATED);
        /* Never weaker: proxied under the landlock backend goes to isolated. */
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICTER,
                            CORDON_BACKEND_LANDLOCK, pasta_ok, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_ISOLATED);
}

Test(net_decide, open_takes_the_nearest_weaker_mode)
{
        char note[1024];
        struct cordon_diag d = {0};
        enum cordon_net_mode got;
        cr_assert_eq(decide(CORDON_NET_FILTERED, CORDON_NET_FALLBACK_OPEN, CORDON_BACKEND_NS,
                            pasta_missing, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_OPEN, "open, never the stricter proxied");
        cr_assert(strstr(note, "using open"), "%s", note);
        /* proxied under the landlock backend: filtered cannot be delivered either, so open. */
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_OPEN, CORDON_BACKEND_LANDLOCK,
                            pasta_ok, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_OPEN);
}

Test(net_decide, proxied_under_landlock_needs_the_tcp_rule_and_seccomp)
{
        char note[1024];
        struct cordon_diag d = {0};
        enum cordon_net_mode got;
        const struct cordon_net_host abi4 = {.landlock_abi = 4, .seccomp = true, .notify = true};
        const struct cordon_net_host no_seccomp = {.landlock_abi = 7, .seccomp = false};
        const struct cordon_net_host no_landlock = {.landlock_abi = -ENOSYS, .seccomp = true};
        const struct cordon_net_host no_notify = {.landlock_abi = 7, .seccomp = true};

        host = &abi4;
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_LANDLOCK,
                            pasta_ok, NULL, &got, note, &d),
                     0, "%s", d.message);
        cr_assert_eq(got, CORDON_NET_PROXIED);
        cr_assert_str_empty(note);
        /* filtered still needs the ns backend: stricter lands on proxied now. */
        cr_assert_eq(decide(CORDON_NET_FILTERED, CORDON_NET_FALLBACK_STRICTER,
                            CORDON_BACKEND_LANDLOCK, pasta_ok, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_PROXIED);
        cr_assert(strstr(note, "using proxied"), "%s", note);

        /* ABI 3 and no Landlock: the refusal names the TCP rule; without seccomp, seccomp. */
        host = &old_kernel;
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_LANDLOCK,
                            pasta_ok, NULL, &got, note, &d),
                     -EOPNOTSUPP);
        cr_assert(strstr(d.message, "Landlock ABI 3, needs ABI 4"), "%s", d.message);
        host = &no_landlock;
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_LANDLOCK,
                            pasta_ok, NULL, &got, note, &d),
                     -EOPNOTSUPP);
        host = &no_seccomp;
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_LANDLOCK,
                            pasta_ok, NULL, &got, note, &d),
                     -EOPNOTSUPP);
        cr_assert(strstr(d.message, "seccomp"), "%s", d.message);
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICTER,
                            CORDON_BACKEND_LANDLOCK, pasta_ok, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_ISOLATED);
        /* Without the notifications Landlock's TCP rule would let a connect to any host on the
         * proxy's port out: refused, the reason naming them and the mode. */
        host = &no_notify;
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_LANDLOCK,
                            pasta_ok, NULL, &got, note, &d),
                     -EOPNOTSUPP);
        cr_assert(strstr(d.message, "notifications"), "%s", d.message);
        cr_assert(strstr(d.message, "NETWORK_FILTER_MODE"), "%s", d.message);
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICTER,
                            CORDON_BACKEND_LANDLOCK, pasta_ok, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_ISOLATED);
        /* The ns backend needs neither. */
        cr_assert_eq(decide(CORDON_NET_PROXIED, CORDON_NET_FALLBACK_STRICT, CORDON_BACKEND_NS,
                            pasta_ok, NULL, &got, note, &d),
                     0);
        cr_assert_eq(got, CORDON_NET_PROXIED);
        host = &old_kernel;
}
