/* `cordon doctor`: what `cordon run` gets on this host with the settings it would load. The
 * backend in use first and whole, the other backends one line each, then each problem with its
 * fix; --json carries every check. Exit status 0 when `cordon run` can start here. */
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli-config.h"
#include "cli/cli-options.h"
#include "cli/commands.h"
#include "cli/doctor-cli.h"
#include "cordon/doctor.h"
#include "cordon/settings.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/strv.h"

enum doctor_option_id {
        DOCTOR_OPT_JSON = CLI_OPTION_FIRST_ID,
        DOCTOR_OPT_BACKEND,
        DOCTOR_OPT_HELP,
};

static const struct cli_option doctor_options[] = {
    {"json", 0, NULL, DOCTOR_OPT_JSON, "print one JSON object with every check"},
    {"backend", 0, "NAME", DOCTOR_OPT_BACKEND,
     "report on this backend as `cordon run --backend NAME` would use it: auto, ns or landlock",
     "SANDBOX_BACKEND", NULL, CLI_OPTION_NONEMPTY},
    {"help", 'h', NULL, DOCTOR_OPT_HELP, "show this help and exit"},
};
CLI_OPTIONS_ASSERT_FITS(doctor_options);

static void doctor_help(FILE *f)
{
        fprintf(f, "Usage: cordon doctor [OPTIONS]\n\n"
                   "What `cordon run` gets on this host with the settings it would load\n"
                   "(sandbox.conf, the environment): the backend in use and everything it rests\n"
                   "on (user namespaces, AppArmor, Landlock, seccomp, the network mode and pasta;\n"
                   "limits, modules and held variables only where they are set), the other\n"
                   "backends one line each, then each problem with the command or setting that\n"
                   "fixes it.\n\n"
                   "Options:\n");
        cli_options_print(f, doctor_options, ELEMENTSOF(doctor_options), 20);
        fprintf(f, "\nExit status: 0 when `cordon run` can start a sandbox here (a problem may\n"
                   "remain, such as a network mode that falls back), 1 when it cannot, 2 for a\n"
                   "usage error.\n");
}

struct doctor_args {
        bool json, help;
        const char *backend;
};

/* Returns 0, or -EINVAL after the usage error's line. */
static int doctor_parse(int argc, char **argv, struct doctor_args *a)
{
        struct cli_getopt g;
        cli_options_prepare(doctor_options, ELEMENTSOF(doctor_options), "+:", &g);
        for (;;) {
                int c =
                    cli_options_next(doctor_options, ELEMENTSOF(doctor_options), &g, argc, argv);
                if (c == -1)
                        break;
                switch (c) {
                case DOCTOR_OPT_JSON:
                        a->json = true;
                        break;
                case DOCTOR_OPT_BACKEND:
                        a->backend = optarg;
                        break;
                case DOCTOR_OPT_HELP:
                        a->help = true;
                        return 0;
                default: {
                        char err[256];
                        cli_options_error(c, doctor_options, ELEMENTSOF(doctor_options), argv, err,
                                          sizeof(err));
                        usage_error("doctor", "%s", err);
                        return -EINVAL;
                }
                }
        }
        if (optind < argc) {
                usage_error("doctor", "unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        return 0;
}

/* The settings as `cordon run` loads them before its own flags (sandbox.conf, the environment,
 * the admin rules), with --backend. A configuration that does not load is a problem of the
 * report (its reason in @err), and the built-in defaults stand in; a bad --backend is a usage
 * error (-EINVAL). Returns 0, -EINVAL or -ENOMEM. */
static int doctor_settings(const struct doctor_args *a, struct cordon_settings **ret, char *err,
                           size_t n)
{
        struct cordon_settings *s = NULL;
        struct cordon_diag diag = {0};
        _cleanup_strv_free_ char **warnings = NULL;
        if (cordon_settings_new(getenv("HOME"), &s) < 0)
                return -ENOMEM;
        const struct cordon_config_options o = {.envp = environ};
        int r = cordon_settings_load_config(s, &o, &warnings, &diag);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r >= 0)
                r = cordon_settings_apply_environment(s, environ, &diag);
        if (r < 0) {
                snprintf(err, n, "%s", *diag.message ? diag.message : strerror(-r));
                cordon_settings_free(s);
                if (cordon_settings_new(getenv("HOME"), &s) < 0)
                        return -ENOMEM;
        }
        if (a->backend &&
            (r = cordon_settings_set(s, "SANDBOX_BACKEND", a->backend, "--backend", &diag)) < 0) {
                cordon_settings_free(s);
                if (r == -ENOMEM)
                        return r;
                cordon_settings_diag_respell(&diag, "SANDBOX_BACKEND", "--backend");
                usage_error("doctor", "%s", *diag.message ? diag.message : strerror(-r));
                return -EINVAL;
        }
        strv_free(TAKE_PTR(warnings));
        r = cordon_settings_finalize(s, &warnings, &diag);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r < 0 && !*err)
                snprintf(err, n, "%s", *diag.message ? diag.message : strerror(-r));
        *ret = s;
        return 0;
}

/* --- text --- */

static void line(const char *label, const char *value, const char *reason)
{
        if (*reason)
                printf("  %s: %s (%s)\n", label, value, reason);
        else
                printf("  %s: %s\n", label, value);
}

static void print_words(char *const *l)
{
        if (!l || !*l) {
                fputs("none", stdout);
                return;
        }
        for (size_t i = 0; l[i]; i++)
                printf("%s%s", i ? " " : "", l[i]);
}

static void print_cgroup(const struct cordon_doctor_cgroup *c)
{
        printf("  cgroup: ");
        switch (c->layout) {
        case CORDON_CGROUP_NONE:
                printf("none mounted at /sys/fs/cgroup");
                break;
        case CORDON_CGROUP_LEGACY:
                printf("v1 only");
                break;
        case CORDON_CGROUP_UNIFIED:
        case CORDON_CGROUP_HYBRID:
                printf("v2%s, ", c->layout == CORDON_CGROUP_HYBRID ? " hybrid" : "");
                if (c->error < 0) {
                        printf("unknown (own cgroup: %s, %s)", doctor_errno_name(c->error),
                               strerror(-c->error));
                        break;
                }
                printf("%s (controllers: ", c->delegated ? "delegated" : "not delegated");
                print_words(c->controllers);
                printf(")");
                break;
        }
        /* Limits cordon sets on v2 enforce nothing for controllers that live on v1. */
        if (c->v1_memory || c->v1_pids)
                printf("; on v1: %s%s%s", c->v1_memory ? "memory" : "",
                       c->v1_memory && c->v1_pids ? " " : "", c->v1_pids ? "pids" : "");
        printf("\n");
}

static void print_landlock(const struct cordon_doctor_landlock *l)
{
        char reason[256], value[512];
        cordon_doctor_landlock_reason(l, reason, sizeof(reason));
        if (l->abi > 0) {
                size_t len = (size_t)snprintf(value, sizeof(value), "ABI %d,", l->abi);
                const char *name;
                int abi = 0;
                for (unsigned i = 0; (name = cordon_landlock_feature_name(i, &abi)); i++)
                        if (l->abi >= abi && len < sizeof(value))
                                len +=
                                    (size_t)snprintf(value + len, sizeof(value) - len, " %s", name);
        } else
                snprintf(value, sizeof(value), "unavailable");
        line("landlock", value, reason);
}

static void print_network(const struct doctor_view *v)
{
        const struct cordon_doctor_setup *d = v->setup;
        char setting[512], modes[128] = "";
        doctor_setting(v->s, "NETWORK_FILTER_MODE", setting, sizeof(setting));
        const char *got = d->net_mode >= 0
                              ? cordon_net_mode_to_string((enum cordon_net_mode)d->net_mode)
                              : "none: cordon run refuses to start";
        if (d->net_mode == (int)d->net_want)
                line("network", got, setting);
        else {
                char fallback[512], reason[1100];
                doctor_setting(v->s, "NETWORK_FILTER_FALLBACK", fallback, sizeof(fallback));
                snprintf(reason, sizeof(reason), "%s cannot be delivered here; %s", setting,
                         fallback);
                line("network", got, reason);
        }
        for (int m = 0; m < (int)ELEMENTSOF(d->net_deliverable); m++)
                if (d->net_deliverable[m])
                        snprintf(modes + strlen(modes), sizeof(modes) - strlen(modes), "%s%s",
                                 *modes ? ", " : "",
                                 cordon_net_mode_to_string((enum cordon_net_mode)m));
        line("network modes here", *modes ? modes : "none", "");
        /* pasta matters only to the filtered mode, and only the ns backend can run it. */
        if (d->net_want == CORDON_NET_FILTERED && d->backend == CORDON_BACKEND_NS)
                line("pasta", v->r->pasta.path ?: "not found in PATH", "");
}

/* Limits, their cgroup and modules only where the settings ask for them. */
static void print_configured(const struct doctor_view *v)
{
        const struct cordon_doctor_setup *d = v->setup;
        bool any = d->cgroup_path_set;
        for (size_t k = 0; k < ELEMENTSOF(d->limit_set); k++)
                any |= d->limit_set[k];
        if (any) {
                char value[128], why[2048];
                if (d->limits.error < 0)
                        snprintf(value, sizeof(value), "unknown");
                else
                        doctor_limits_value(&d->limits, d->limit_set, value, sizeof(value));
                doctor_limits_reason(&d->limits, d->limit_set, why, sizeof(why));
                line("limits", *value ? value : "none set", why);
                print_cgroup(&v->r->cgroup);
        }
        ssize_t n = cordon_settings_count(v->s, "SANDBOX_MODULES");
        if (n > 0) {
                printf("  modules (SANDBOX_MODULES):");
                for (ssize_t i = 0; i < n; i++) {
                        const char *m = NULL;
                        if (cordon_settings_get_item(v->s, "SANDBOX_MODULES", (size_t)i, &m,
                                                     NULL) >= 0)
                                printf(" %s", m);
                }
                printf(" (loaded by Lmod before the sandbox starts)\n");
        }
        /* Held for the Slurm integration: named only when set to something else than the
         * built-in default, which changes nothing yet. */
        const char *name;
        for (size_t i = 0; (name = cordon_settings_variable(i)); i++) {
                char value[64];
                const char *origin = NULL;
                if (cordon_settings_variable_is_held(name) == 1 &&
                    cordon_settings_get(v->s, name, value, sizeof(value), &origin) >= 0 && origin &&
                    !streq(origin, "built-in default"))
                        printf("  accepted, not yet active: %s=%s (%s)\n", name, value, origin);
        }
}

static void print_landlock_items(const struct cordon_doctor_landlock_backend *b)
{
        for (size_t i = 0; i < ELEMENTSOF(b->features); i++)
                if (b->features[i].works)
                        line("works", b->features[i].what, b->features[i].note);
        const char *everywhere;
        for (unsigned i = 0; (everywhere = cordon_doctor_landlock_backend_gap(i)); i++)
                printf("  gap: %s\n", everywhere);
        for (size_t i = 0; i < ELEMENTSOF(b->features); i++)
                if (!b->features[i].works) {
                        char gap[sizeof(b->features[i].note) + 128];
                        doctor_feature_gap(&b->features[i], gap, sizeof(gap));
                        printf("  gap: %s\n", gap);
                }
}

/* The backend in use, whole. */
static void print_in_use(const struct doctor_view *v)
{
        const struct cordon_doctor_report *r = v->r;
        const struct cordon_doctor_setup *d = v->setup;
        char setting[512], reason[512];
        doctor_setting(v->s, "SANDBOX_BACKEND", setting, sizeof(setting));
        if (d->backend < 0) {
                printf("backend: none can run here (%s)\n", setting);
                return;
        }
        printf("backend: %s (%s%s)%s\n", cordon_backend_to_string((enum cordon_backend)d->backend),
               setting, d->backend_setting == CORDON_BACKEND_AUTO ? ": what auto picks here" : "",
               d->backend_usable ? "" : ": cannot run here");

        if (d->backend == CORDON_BACKEND_NS) {
                cordon_doctor_userns_reason(&r->userns, reason, sizeof(reason));
                line("user namespaces", r->userns.usable ? "yes" : "no", reason);
                /* AppArmor only where it is active: it matters to user namespaces alone. */
                if (r->apparmor.enabled == 1 || r->apparmor.restrict_unprivileged_userns == 1) {
                        cordon_doctor_apparmor_reason(&r->apparmor, reason, sizeof(reason));
                        line("apparmor", doctor_apparmor_value(&r->apparmor), reason);
                }
        }
        print_landlock(&r->landlock);
        cordon_doctor_seccomp_reason(&r->seccomp, reason, sizeof(reason));
        line("seccomp", r->seccomp.filter ? "yes" : "no", reason);
        if (!d->layers_wanted)
                line("layers", "Landlock and seccomp are not applied",
                     "SANDBOX_PROFILE or CORDON_HANDLER_SANDBOX");
        print_network(v);
        print_configured(v);
        if (d->backend == CORDON_BACKEND_LANDLOCK)
                print_landlock_items(&r->landlock_backend);
}

static void print_others(const struct doctor_view *v)
{
        const struct cordon_doctor_report *r = v->r;
        int in_use = v->setup->backend;
        char reason[256];
        printf("other backends:\n");
        if (in_use != CORDON_BACKEND_NS) {
                cordon_doctor_userns_reason(&r->userns, reason, sizeof(reason));
                if (r->userns.usable)
                        printf("  ns: usable (cordon doctor --backend ns describes it)\n");
                else
                        printf("  ns: cannot run here: no user namespaces (%s)\n", reason);
        }
        if (in_use != CORDON_BACKEND_LANDLOCK) {
                const struct cordon_doctor_landlock_backend *b = &r->landlock_backend;
                size_t works = 0, gaps = 0;
                for (size_t i = 0; i < ELEMENTSOF(b->features); i++)
                        works += b->features[i].works;
                while (cordon_doctor_landlock_backend_gap((unsigned)gaps))
                        gaps++;
                cordon_doctor_landlock_reason(&r->landlock, reason, sizeof(reason));
                if (b->usable)
                        printf("  landlock: usable, without namespaces: %zu of %zu items work "
                               "here, %zu gaps (cordon doctor --backend landlock lists them)\n",
                               works, ELEMENTSOF(b->features),
                               ELEMENTSOF(b->features) - works + gaps);
                else
                        printf("  landlock: cannot run here: no Landlock (%s)\n", reason);
        }
}

static void print_problems(const struct doctor_problems *pr)
{
        if (pr->n == 0) {
                printf("problems: none\n");
                return;
        }
        for (size_t i = 0; i < pr->n; i++)
                printf("problem: %s; fix: %s\n", pr->p[i].what,
                       *pr->p[i].fix ? pr->p[i].fix : "none known");
}

int cmd_doctor(int argc, char **argv)
{
        struct doctor_args a = {0};
        if (doctor_parse(argc, argv, &a) < 0)
                return EXIT_USAGE;
        if (a.help) {
                doctor_help(stdout);
                return 0;
        }

        _cleanup_(cordon_doctor_report_clear) struct cordon_doctor_report report = {0};
        int r = cordon_doctor_collect(getenv("PATH"), &report);
        if (r < 0) {
                log_error_errno(r, "cannot run the checks: %m");
                return 1;
        }

        /* Tests only: the AppArmor facts from a directory standing in for / (see
         * tests/integration/doctor-apparmor.sh), as the other checks cannot be faked. */
        const char *apparmor_root = getenv("CORDON_DOCTOR_APPARMOR_ROOT");
        if (apparmor_root && *apparmor_root)
                cordon_doctor_check_apparmor(apparmor_root, &report.apparmor);

        struct doctor_view v = {.r = &report};
        struct cordon_settings *s = NULL;
        r = doctor_settings(&a, &s, v.config_error, sizeof(v.config_error));
        if (r == -EINVAL)
                return EXIT_USAGE;
        struct cordon_doctor_setup setup;
        if (r < 0 || (r = cordon_doctor_assess(&report, s, &setup)) < 0) {
                cordon_settings_free(s);
                log_error("out of memory");
                return 1;
        }
        v.s = s;
        v.setup = &setup;
        struct doctor_problems problems;
        doctor_problems_find(&v, &problems);

        if (a.json) {
                _cleanup_json_ json_t *j = doctor_json_build(&v, &problems);
                if (!j || json_dumpf(j, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF) {
                        cordon_settings_free(s);
                        log_error(j ? "cannot write the report" : "out of memory");
                        return 1;
                }
        } else {
                print_in_use(&v);
                print_others(&v);
                print_problems(&problems);
        }
        cordon_settings_free(s);

        if (fflush(stdout) != 0) {
                log_error("cannot write the report: %m");
                return 1;
        }
        for (size_t i = 0; i < problems.n; i++)
                if (problems.p[i].refuses)
                        return 1;
        return 0;
}
