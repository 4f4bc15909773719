/* Choosing the backend and the layers: profiles, the worktree fallback, kernels without a
 * mechanism (faked with the launch's probes), and the landlock backend's TMPDIR. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/launch/launch.h"
#include "lib/mech/ns-limits.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"
#include "shared/strv.h"

static struct cordon_policy *p;
static struct cordon_launch l;
static struct cordon_diag diag;
static char **warnings;

static void collect(void *userdata, const char *message)
{
        (void)userdata;
        cr_assert_eq(strv_extend(&warnings, message), 0);
}

static int no_landlock(void)
{
        return -EOPNOTSUPP;
}

static int landlock_abi4(void)
{
        return 4;
}

static bool no_seccomp(void)
{
        return false;
}

static void setup(void)
{
        p = cordon_policy_new();
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_add_fs(p, "/usr", "/usr", CORDON_ACCESS_RO, 0, "test"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "test"), 0);
        char path[] = "PATH=/usr/bin", tmpdir[] = "TMPDIR=/host/tmp",
             backend[] = "SANDBOX_BACKEND=ns";
        char *envp[] = {path, tmpdir, backend, NULL};
        cr_assert_eq(cordon_policy_set_env(p, envp), 0);
        l = (struct cordon_launch){.warn = collect};
        diag = (struct cordon_diag){0};
}

static void teardown(void)
{
        cordon_launch_clear(&l);
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);
}

TestSuite(launch, .init = setup, .fini = teardown);

static int prepare(void)
{
        struct cordon_launch fresh = {
            .warn = collect, .probe_landlock = l.probe_landlock, .probe_seccomp = l.probe_seccomp};
        cordon_launch_clear(&l);
        l = fresh;
        diag = (struct cordon_diag){0};
        warnings = strv_free(warnings);
        return cordon_launch_prepare(p, &l, &diag);
}

static bool warned(const char *needle)
{
        STRV_FOREACH (w, warnings)
                if (strstr(*w, needle))
                        return true;
        return false;
}

Test(launch, worktree_applies_both_layers_here)
{
        int abi = cordon_landlock_abi();
        if (abi <= 0 || !cordon_seccomp_available())
                cr_skip_test("this kernel lacks Landlock or seccomp");
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(l.landlock && l.seccomp);
        cr_assert_gt(l.bpf.len, 0);
        cr_assert_gt(l.ll.n_rules, 0);
        cr_assert_eq(l.backend, CORDON_BACKEND_NS);
        cr_assert(l.auto_backend, "auto may still fall back");
        cr_assert_null(warnings);
        cr_assert(l.seccomp_key.net != CORDON_SECCOMP_NET_NONE && !l.seccomp_isolates_net);
}

Test(launch, unrestricted_applies_neither)
{
        p->profile = CORDON_PROFILE_UNRESTRICTED;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(!l.landlock && !l.seccomp);
        cr_assert_eq(l.bpf.len, 0);
}

Test(launch, wasi_cannot_spawn)
{
        p->profile = CORDON_PROFILE_WASI;
        cr_assert_eq(prepare(), -EINVAL);
        cr_assert(strstr(diag.message, "wasi"), "%s", diag.message);
}

Test(launch, side_effect_below_network_denies_sockets)
{
        p->side_effect_level = CORDON_SIDE_EFFECT_PROCESS_EXEC;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_eq(l.seccomp_key.net, CORDON_SECCOMP_NET_NONE);
}

/* The side-effect ceiling is the policy's own restriction, not a hardening layer: profiles and
 * fallbacks that switch the layers off keep its socket rule, and without seccomp it cannot run. */
Test(launch, side_effect_below_network_survives_layers_off)
{
        if (!cordon_seccomp_available())
                cr_skip_test("this kernel lacks seccomp");
        p->side_effect_level = CORDON_SIDE_EFFECT_READ_ONLY;
        p->profile = CORDON_PROFILE_UNRESTRICTED;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(!l.landlock && !l.seccomp);
        cr_assert_eq(l.seccomp_key.net, CORDON_SECCOMP_NET_NONE);
        cr_assert_eq(l.seccomp_key.tier, CORDON_SECCOMP_TIER_NET_ONLY);
        cr_assert_gt(l.bpf.len, 0, "a filter with the socket rule alone");
        p->profile = CORDON_PROFILE_WORKTREE;
        p->fallback = CORDON_FALLBACK_OFF;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_eq(l.seccomp_key.net, CORDON_SECCOMP_NET_NONE);
        cr_assert_gt(l.bpf.len, 0);
        p->fallback = CORDON_FALLBACK_WARN;
        l.probe_seccomp = no_seccomp;
        cr_assert_eq(prepare(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "side-effect level read_only"), "%s", diag.message);
        p->side_effect_level = CORDON_SIDE_EFFECT_NETWORK;
        cr_assert_eq(prepare(), 0, "control: without the ceiling the warning path runs: %s",
                     diag.message);
}

Test(launch, missing_landlock_refused_by_default)
{
        l.probe_landlock = no_landlock;
        cr_assert_eq(prepare(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "Landlock is unavailable") && strstr(diag.message, "lsm="),
                  "%s", diag.message);
}

Test(launch, missing_landlock_with_warn_runs_without_it)
{
        l.probe_landlock = no_landlock;
        p->fallback = CORDON_FALLBACK_WARN;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(!l.landlock);
        cr_assert(l.seccomp, "the other layer stays");
        cr_assert(warned("Landlock is unavailable"), "one warning line");
        cr_assert_eq(strv_length(warnings), 1);
}

Test(launch, os_hardened_ignores_the_fallback)
{
        l.probe_seccomp = no_seccomp;
        p->fallback = CORDON_FALLBACK_WARN;
        p->profile = CORDON_PROFILE_OS_HARDENED;
        cr_assert_eq(prepare(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "os_hardened"), "%s", diag.message);
        p->fallback = CORDON_FALLBACK_OFF;
        cr_assert_eq(prepare(), -EOPNOTSUPP, "off does not switch os_hardened's layers off");
}

Test(launch, fallback_off_skips_the_layers_with_a_warning)
{
        p->fallback = CORDON_FALLBACK_OFF;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(!l.landlock && !l.seccomp);
        cr_assert(warned("CORDON_HANDLER_SANDBOX=off"));
}

Test(launch, landlock_backend_needs_landlock_whatever_the_profile)
{
        l.probe_landlock = no_landlock;
        p->backend = CORDON_BACKEND_LANDLOCK;
        p->fallback = CORDON_FALLBACK_WARN;
        cr_assert_eq(prepare(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "landlock backend cannot run"), "%s", diag.message);
        cr_assert_null(l.tmpdir, "nothing left behind");
}

Test(launch, landlock_backend_without_scoping_is_a_missing_mechanism)
{
        l.probe_landlock = landlock_abi4;
        p->backend = CORDON_BACKEND_LANDLOCK;
        cr_assert_eq(prepare(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "ABI 4") && strstr(diag.message, "signals"), "%s",
                  diag.message);
        p->fallback = CORDON_FALLBACK_WARN;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(l.landlock, "the rest of Landlock still applies");
        cr_assert(warned("ABI 4"));
}

/* The landlock backend has no mount namespace: no tmpfs whose size it could set. The refusal
 * names the flag even on a kernel where that backend could not run anyway. */
Test(launch, landlock_backend_refuses_tmp_size)
{
        p->limits.tmp_size_bytes = 1 << 20;
        p->backend = CORDON_BACKEND_LANDLOCK;
        p->fallback = CORDON_FALLBACK_WARN;
        l.probe_landlock = landlock_abi4;
        cr_assert_eq(prepare(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "TMP_SIZE") && strstr(diag.message, "landlock backend"),
                  "%s", diag.message);
        cr_assert_null(l.tmpdir, "nothing left behind");
        l.probe_landlock = no_landlock;
        cr_assert_eq(prepare(), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "TMP_SIZE"), "%s", diag.message);

        /* The ns backend mounts the tmpfs itself and takes it. */
        p->backend = CORDON_BACKEND_NS;
        l.probe_landlock = landlock_abi4;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
}

Test(launch, fall_back_refuses_tmp_size)
{
        p->limits.tmp_size_bytes = 1 << 20;
        /* ns chosen outright, whatever AppArmor says; the fallback is what is tested. */
        p->backend = CORDON_BACKEND_NS;
        p->fallback = CORDON_FALLBACK_WARN;
        l.probe_landlock = landlock_abi4;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_eq(cordon_launch_fall_back(&l, "clone: Operation not permitted", &diag),
                     -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "TMP_SIZE"), "%s", diag.message);
        cr_assert_null(l.tmpdir, "nothing left behind");
}

Test(launch, landlock_backend_isolated_refuses_socket_even_unrestricted)
{
        p->backend = CORDON_BACKEND_LANDLOCK;
        p->profile = CORDON_PROFILE_UNRESTRICTED;
        if (cordon_landlock_abi() <= 0 || !cordon_seccomp_available())
                cr_skip_test("this kernel lacks Landlock or seccomp");
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(!l.landlock && !l.seccomp);
        cr_assert(l.seccomp_isolates_net && l.seccomp_key.tier == CORDON_SECCOMP_TIER_NET_ONLY);
        cr_assert_eq(l.seccomp_key.net, CORDON_SECCOMP_NET_NO_SOCKET,
                     "the network level belongs to the seccomp layer");
        cr_assert_gt(l.bpf.len, 0, "a filter with the socket rule alone");
}

Test(launch, landlock_backend_private_tmpdir)
{
        if (cordon_landlock_abi() < 6 || !cordon_seccomp_available())
                cr_skip_test("this kernel lacks Landlock ABI 6 or seccomp");
        p->backend = CORDON_BACKEND_LANDLOCK;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_not_null(l.tmpdir);
        struct stat st;
        cr_assert_eq(stat(l.tmpdir, &st), 0);
        cr_assert(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);

        char want[256];
        snprintf(want, sizeof(want), "TMPDIR=%s", l.tmpdir);
        cr_assert(strv_contains(l.envp, want));
        cr_assert(strv_contains(l.envp, "SANDBOX_BACKEND=landlock"));
        cr_assert(!strv_contains(l.envp, "TMPDIR=/host/tmp"));
        cr_assert(!strv_contains(l.envp, "SANDBOX_BACKEND=ns"));
        cr_assert(strv_contains(l.envp, "PATH=/usr/bin"));

        bool granted = false;
        for (size_t i = 0; i < l.ll.n_rules; i++)
                granted |= streq(l.ll.rules[i].path, l.tmpdir);
        cr_assert(granted, "the TMPDIR is in the Landlock plan");

        /* Whatever the command leaves there goes at clear, even an unwritable directory. */
        char *dir = strdup(l.tmpdir), sub[300], file[320];
        cr_assert_not_null(dir);
        snprintf(sub, sizeof(sub), "%s/locked", dir);
        snprintf(file, sizeof(file), "%s/locked/f", dir);
        cr_assert_eq(mkdir(sub, 0700), 0);
        FILE *f = fopen(file, "we");
        cr_assert_not_null(f);
        fclose(f);
        cr_assert_eq(chmod(sub, 0500), 0);
        cordon_launch_clear(&l);
        cr_assert_neq(stat(dir, &st), 0, "%s was removed", dir);
        free(dir);
}

/* A loose pids bound is the pid namespace's pid_max where the backend has one (ns, on a kernel
 * that keeps pid_max per namespace), never under the landlock backend. A dry run: no cgroup. */
Test(launch, loose_pids_are_pid_max_under_ns_only)
{
        p->profile = CORDON_PROFILE_UNRESTRICTED;
        p->limits.pids = 64;
        p->limits.pids_loose = true;
        p->backend = CORDON_BACKEND_NS;
        const struct cordon_launch fresh = {
            .warn = collect, .dry_run = true, .probe_landlock = landlock_abi4};
        l = fresh;
        int r = cordon_launch_prepare(p, &l, &diag);
        if (cordon_ns_pid_max_available()) {
                cr_assert_eq(r, 0, "%s", diag.message);
                cr_assert_eq(l.pid_max, cordon_ns_pid_max_for(64));
                cr_assert_null(l.limits, "no other mechanism carries the bound");
        } else {
                cr_assert_eq(l.pid_max, 0);
        }
        cordon_launch_clear(&l);

        p->backend = CORDON_BACKEND_LANDLOCK;
        l = fresh;
        (void)cordon_launch_prepare(p, &l, &diag); /* the pids limit's own mechanism may fail */
        cr_assert_eq(l.backend, CORDON_BACKEND_LANDLOCK);
        cr_assert_eq(l.pid_max, 0, "no pid namespace under the landlock backend");
}

Test(launch, fall_back_switches_to_landlock)
{
        if (cordon_landlock_abi() < 6 || !cordon_seccomp_available())
                cr_skip_test("this kernel lacks Landlock ABI 6 or seccomp");
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_eq(cordon_launch_fall_back(&l, "clone: Operation not permitted", &diag), 0, "%s",
                     diag.message);
        cr_assert_eq(l.backend, CORDON_BACKEND_LANDLOCK);
        cr_assert(!l.auto_backend);
        cr_assert(warned("user namespaces are unavailable here (clone: Operation not "
                         "permitted); using the landlock backend"));
        cr_assert_not_null(l.tmpdir);
        cr_assert(l.seccomp_isolates_net);
        cr_assert_eq(l.seccomp_key.net, CORDON_SECCOMP_NET_NO_SOCKET);
}

/* What the fallback gives up is said, not dropped silently. */
Test(launch, fall_back_names_what_it_leaves_out)
{
        if (cordon_landlock_abi() < 6 || !cordon_seccomp_available())
                cr_skip_test("this kernel lacks Landlock ABI 6 or seccomp");
        cr_assert_eq(cordon_policy_add_fs(p, "/etc/hostname", "/etc/hostname", CORDON_ACCESS_RO,
                                          CORDON_FS_NS_ONLY, "test"),
                     0);
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_eq(cordon_launch_fall_back(&l, "clone: Operation not permitted", &diag), 0, "%s",
                     diag.message);
        cr_assert(warned("leaves out 1 read-only file(s) inside writable directories"));
}

Test(launch, fall_back_without_landlock_is_an_error)
{
        l.probe_landlock = no_landlock;
        p->fallback = CORDON_FALLBACK_WARN;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_eq(cordon_launch_fall_back(&l, "clone: Operation not permitted", &diag),
                     -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "landlock backend cannot run either"), "%s", diag.message);
}

/* ---- what the command is told of its sandbox, and decisions taken again ---- */

static void set_facts_env(void)
{
        char path[] = "PATH=/usr/bin", backend[] = "SANDBOX_BACKEND=ns",
             profile[] = "SANDBOX_PROFILE=worktree", net[] = "SANDBOX_NETWORK_MODE=filtered";
        char *envp[] = {path, backend, profile, net, NULL};
        cr_assert_eq(cordon_policy_set_env(p, envp), 0);
}

static char *const *launch_env(void)
{
        return l.envp ? l.envp : p->envp;
}

static bool filtered_ok(const struct cordon_policy *policy, char *why, size_t n)
{
        (void)policy;
        (void)why;
        (void)n;
        return true;
}

Test(launch, facts_follow_the_launch)
{
        set_facts_env();
        p->profile = CORDON_PROFILE_UNRESTRICTED;
        p->backend = CORDON_BACKEND_NS;
        p->net_mode = CORDON_NET_ISOLATED;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert(strv_contains(launch_env(), "SANDBOX_PROFILE=unrestricted"));
        cr_assert(strv_contains(launch_env(), "SANDBOX_NETWORK_MODE=isolated"));
        cr_assert(strv_contains(launch_env(), "SANDBOX_BACKEND=ns"));
        cr_assert(!strv_contains(launch_env(), "SANDBOX_PROFILE=worktree"));
        cr_assert(!strv_contains(launch_env(), "SANDBOX_NETWORK_MODE=filtered"));
}

/* Also without the private TMPDIR (a read-only /tmp): the backend is the launch's. */
Test(launch, facts_landlock_backend_without_tmpdir)
{
        if (cordon_landlock_abi() < 6 || !cordon_seccomp_available())
                cr_skip_test("this kernel lacks Landlock ABI 6 or seccomp");
        p = cordon_policy_free(p);
        p = cordon_policy_new();
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_add_fs(p, "/usr", "/usr", CORDON_ACCESS_RO, 0, "test"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", "/tmp", CORDON_ACCESS_RO, 0, "test"), 0);
        set_facts_env();
        p->backend = CORDON_BACKEND_LANDLOCK;
        p->net_mode = CORDON_NET_ISOLATED;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        cr_assert_null(l.tmpdir);
        cr_assert(strv_contains(launch_env(), "SANDBOX_BACKEND=landlock"));
        cr_assert(!strv_contains(launch_env(), "SANDBOX_BACKEND=ns"));
}

/* A policy built by hand that does not name them gets none. */
Test(launch, facts_only_where_the_policy_names_them)
{
        p->profile = CORDON_PROFILE_UNRESTRICTED;
        p->backend = CORDON_BACKEND_NS;
        cr_assert_eq(prepare(), 0, "%s", diag.message);
        STRV_FOREACH (e, launch_env())
                cr_assert(strncmp(*e, "SANDBOX_PROFILE=", 16) != 0 &&
                              strncmp(*e, "SANDBOX_NETWORK_MODE=", 21) != 0,
                          "%s", *e);
}

/* pasta failed after the banner: the mode decided again is said whichever way it went, and
 * the command is told of it. */
static int prepare_filtered(enum cordon_net_fallback fallback)
{
        set_facts_env();
        p->profile = CORDON_PROFILE_UNRESTRICTED;
        p->backend = CORDON_BACKEND_NS;
        p->net_mode = CORDON_NET_FILTERED;
        p->net.fallback = fallback;
        struct cordon_launch fresh = {.warn = collect, .probe_filtered = filtered_ok};
        cordon_launch_clear(&l);
        l = fresh;
        diag = (struct cordon_diag){0};
        warnings = strv_free(warnings);
        return cordon_launch_prepare(p, &l, &diag);
}

Test(launch, net_fall_back_stricter_is_said)
{
        if (prepare_filtered(CORDON_NET_FALLBACK_STRICTER) < 0)
                cr_skip_test("the filtered mode cannot be prepared here: %s", diag.message);
        cr_assert_eq(l.net_mode, CORDON_NET_FILTERED);
        cr_assert_null(warnings, "a first decision delivered as asked says nothing");
        cr_assert(strv_contains(launch_env(), "SANDBOX_NETWORK_MODE=filtered"));
        cr_assert_eq(cordon_launch_net_fall_back(&l, "it exited", &diag), 0, "%s", diag.message);
        cr_assert_eq(l.net_mode, CORDON_NET_PROXIED);
        cr_assert(warned("pasta failed to start: it exited"));
        cr_assert(warned("using proxied instead"));
        cr_assert(strv_contains(launch_env(), "SANDBOX_NETWORK_MODE=proxied"));
}

Test(launch, net_fall_back_open_is_said)
{
        if (prepare_filtered(CORDON_NET_FALLBACK_OPEN) < 0)
                cr_skip_test("the filtered mode cannot be prepared here: %s", diag.message);
        cr_assert_eq(cordon_launch_net_fall_back(&l, "it exited", &diag), 0, "%s", diag.message);
        cr_assert_eq(l.net_mode, CORDON_NET_OPEN);
        cr_assert_eq(strv_length(warnings), 1, "said once");
        cr_assert(warned("using open instead"));
        cr_assert(strv_contains(launch_env(), "SANDBOX_NETWORK_MODE=open"));
}

Test(launch, net_fall_back_strict_names_the_rule)
{
        if (prepare_filtered(CORDON_NET_FALLBACK_STRICT) < 0)
                cr_skip_test("the filtered mode cannot be prepared here: %s", diag.message);
        cr_assert_eq(cordon_launch_net_fall_back(&l, "it exited", &diag), -EOPNOTSUPP);
        cr_assert(strstr(diag.message, "pasta failed to start: it exited"), "%s", diag.message);
        cr_assert(strstr(diag.message, "NETWORK_FILTER_FALLBACK=strict"), "%s", diag.message);
        cr_assert(strstr(diag.message, "refuses to start"), "%s", diag.message);
}
