/* `cordon run`: defaults + sandbox.conf layers + environment + flags (+ a capability policy) +
 * admin rules -> settings -> policy -> spawn. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli-config.h"
#include "cli/commands.h"
#include "config.h"
#include "cli/receipt.h"
#include "cli/run-hint.h"
#include "cli/run-options.h"
#include "cordon/settings.h"
#include "shared/fd-util.h"
#include "shared/log.h"
#include "shared/strv.h"

extern char **environ;

static void print_warning(void *userdata, const char *message)
{
        (void)userdata;
        char line[8192];
        cli_respell_settings(run_options_table, run_options_count, message, line, sizeof(line));
        log_warning("%s", line);
        fflush(stderr);
}

/* A failure of the library as this command spells it: a refusal of the tmpfs size starts with
 * the option that sets it (the other messages keep the variable they name, NETWORK_LOG and the
 * like, as they always have), a "(use NAME=VALUE)" fix is the option or --set that gives it,
 * and a sandbox whose namespaces could not be made points at what `cordon doctor` tells of
 * this host. */
static void log_run_error(int r, struct cordon_diag *diag)
{
        const char *o = run_options_long_name("TMP_SIZE");
        char spelling[80];
        if (o) {
                snprintf(spelling, sizeof(spelling), "--%s", o);
                cordon_settings_diag_respell(diag, "TMP_SIZE", spelling);
        }
        char line[sizeof(diag->message) + 256];
        const char *use = strstr(diag->message, "(use ");
        const char *eq = use ? use + 5 + strspn(use + 5, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") : NULL;
        const char *end = eq && *eq == '=' && eq > use + 5 ? strchr(eq, ')') : NULL;
        if (end && !memchr(eq, ' ', (size_t)(end - eq))) {
                char name[64], value[256], fix[512];
                snprintf(name, sizeof(name), "%.*s", (int)(eq - (use + 5)), use + 5);
                snprintf(value, sizeof(value), "%.*s", (int)(end - eq - 1), eq + 1);
                run_options_spell_fix(name, value, fix, sizeof(fix));
                snprintf(line, sizeof(line), "%.*s(use %s%s", (int)(use - diag->message),
                         diag->message, fix, end);
        } else
                snprintf(line, sizeof(line), "%s", *diag->message ? diag->message : strerror(-r));
        log_error("%s", line);
        if (diag->step == CORDON_STEP_CLONE)
                log_error("'cordon doctor' shows what this host can do");
}

/* --dry-run: the launch decides as it would (with nothing created) and the library describes
 * the plan; printed on stdout with the configuration's @origins. Takes @p. */
static int dry_run(struct cordon_policy *p, char **command, const char *origins)
{
        const struct cordon_sandbox_options opts = {.warning = print_warning};
        struct cordon_diag diag = {0};
        _cleanup_free_ char *text = NULL;
        int r = cordon_sandbox_plan(p, &opts, &text, &diag);
        cordon_policy_free(p);
        if (r < 0) {
                log_run_error(r, &diag);
                return EXIT_SETUP;
        }
        printf("cordon: dry run of:");
        STRV_FOREACH (c, command)
                printf(" %s", *c);
        printf("\n%s%snothing was created, changed or run\n", text, strempty(origins));
        return fflush(stdout) == 0 ? 0 : EXIT_SETUP;
}

struct banner {
        bool quiet;
        const char *presets; /* " presets=a,b" or "" */
        unsigned printed;    /* how many times: more than once when the start fell back */
};

/* PROTECT_GIT_CONFIG's check after the run: a line for each repository moved aside, and one
 * for what it could not check. */
static void print_git_after(const struct cordon_report *rep)
{
        for (size_t i = 0; i < rep->git.n_moved; i++)
                log_error("moved '%s' to '%s': %s. The host's git would have acted on it; look "
                          "inside before moving it back",
                          rep->git.moved[i].path, rep->git.moved[i].moved_to,
                          rep->git.moved[i].reason);
        if (rep->git.unchecked && *rep->git.unchecked)
                log_error("the repositories the sandbox could have made were not all checked "
                          "(%s): look before running git below the writable directories",
                          rep->git.unchecked);
}

/* The agents' private copies after the run: a line for each copy that could not flow back,
 * and one for each whose changes were partly left out (they could make the host run
 * something, or concern another project). */
static void print_agent_writebacks(const struct cordon_report *rep)
{
        for (size_t i = 0; i < rep->agents.n_writebacks; i++) {
                const struct cordon_agent_writeback *w = &rep->agents.writebacks[i];
                if (*w->error) {
                        log_warning("%s: nothing of its settings flowed back: %s", w->agent,
                                    w->error);
                        continue;
                }
                if (!w->dropped[0])
                        continue;
                char names[512] = "";
                for (size_t j = 0; w->dropped[j]; j++)
                        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                                 j ? ", " : "", w->dropped[j]);
                fprintf(stderr,
                        "cordon: %s: kept %zu of its changes to '%s'; left out%s (not state the "
                        "profile lets flow back): %s%s\n",
                        w->agent, w->kept, w->file, w->more_dropped ? ", among others" : "", names,
                        w->more_dropped ? ", ..." : "");
        }
}

/* The report names at most this many refused destinations (sandbox.h): "..." after a full
 * list, since more may have been refused. */
#define REFUSED_NAMED_MAX 4

/* @list's names joined with ", " into @buf (as many as fit); how many were joined. */
static size_t join_names(const char *const *list, char *buf, size_t size)
{
        size_t n = 0, len = 0;
        buf[0] = 0;
        for (const char *const *h = list; h && *h; h++, n++) {
                int k = snprintf(buf + len, size - len, "%s%s", n ? ", " : "", *h);
                if (k < 0 || (size_t)k >= size - len) {
                        buf[len] = 0;
                        break;
                }
                len += (size_t)k;
        }
        return n;
}

/* One line at the end for @count refusals by @who: the first distinct @list entries (@one and
 * @many name them, "connection"/"connections"), or, with none named, @unnamed (refusals of what
 * @who cannot serve), and the fix. */
static void print_refusals(const char *who, unsigned long long count, const char *const *list,
                           const char *one, const char *many, const char *unnamed)
{
        if (count == 0)
                return;
        char names[512];
        size_t n = join_names(list, names, sizeof(names));
        if (n == 0)
                fprintf(stderr,
                        "cordon: %s refused %llu %s (--net-log FILE records each refusal)\n", who,
                        count, unnamed);
        else
                fprintf(stderr,
                        "cordon: %s refused %llu %s (%s%s); allow a host with --allow-host HOST "
                        "(--net-log FILE records each refusal and its rule)\n",
                        who, count, count == 1 ? one : many, names,
                        n >= REFUSED_NAMED_MAX ? ", ..." : "");
        fflush(stderr);
}

/* At the end: what the proxy (proxied mode) or the sandbox's resolver (filtered mode) refused,
 * in one line each, with the first destinations and the fix. None named: the refusals were
 * requests they cannot serve (malformed, SOCKS5 BIND, a meta query). */
static void print_refused(const struct cordon_report *rep)
{
        print_refusals("the sandbox's resolver", rep->resolver.refused, rep->resolver.refused_first,
                       "name", "names",
                       rep->resolver.refused == 1 ? "query it does not serve"
                                                  : "queries it does not serve");
        print_refusals(
            "the proxy", rep->proxy.refused, rep->proxy.refused_first, "connection", "connections",
            rep->proxy.refused == 1 ? "request it cannot serve (malformed or unsupported)"
                                    : "requests it cannot serve (malformed or unsupported)");
}

/* The `prepared` callback: the decisions, once made, before anything runs; again, in full but
 * for what was said already, when the start fell back (pasta failed to start after this was
 * printed, or an `auto` backend turned out to need landlock), so that the last banner names
 * what the command gets. A network other than the one asked for is always said, --quiet or
 * not: a weaker one (a warning) and every change after the first banner by the library, a
 * stricter one at first here. */
static void print_banner(void *userdata, const struct cordon_sandbox *sb)
{
        struct banner *b = userdata;
        const struct cordon_report *rep = cordon_sandbox_report(sb);
        bool first = b->printed++ == 0;
        bool stricter_net = *rep->net_note && rep->net_mode > rep->net_mode_requested;
        if (b->quiet) {
                if (first && stricter_net) {
                        fprintf(stderr, "cordon: %s\n", rep->net_note);
                        fflush(stderr);
                }
                return;
        }
        bool ll = rep->landlock.planned, sc = rep->seccomp.deny_list;
        fprintf(stderr,
                "cordon: backend=%s profile=%s layers=%s%s%s project=%s home=%s "
                "network=%s env-blocked=%zu%s\n",
                cordon_backend_to_string(rep->backend), cordon_profile_to_string(rep->profile),
                ll ? "landlock" : "", ll && sc ? "," : "", sc ? "seccomp" : (ll ? "" : "none"),
                rep->project_dir, cordon_home_access_to_string(rep->home_access),
                cordon_net_mode_to_string(rep->net_mode), rep->env_blocked, b->presets);
        if (rep->landlock.left_writable)
                fprintf(stderr,
                        "cordon: the landlock backend leaves protected files writable (the "
                        "project's agent files: .mcp.json, .envrc, .claude, ...); what the "
                        "command writes there can run on the host later (see cordon doctor; "
                        "the ns backend keeps them read-only)\n");
        if (first && rep->created && *rep->created)
                fprintf(stderr, "cordon: %s\n", rep->created);
        if (first && rep->agents.overlaid && rep->agents.overlaid[0]) {
                char what[1024] = "";
                for (size_t i = 0; rep->agents.overlaid[i]; i++)
                        snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s",
                                 i ? "; " : "", rep->agents.overlaid[i]);
                fprintf(stderr,
                        "cordon: in the agents' private settings (AGENT_SETTINGS_UNTOUCHED leaves "
                        "them): %s\n",
                        what);
        }
        if (first && stricter_net)
                fprintf(stderr, "cordon: %s\n", rep->net_note);
        if (rep->net_mode == CORDON_NET_OPEN)
                fprintf(stderr, "cordon: network=open: the command shares the host's network; "
                                "nothing it sends or connects to is filtered\n");
        else if (rep->net_mode == CORDON_NET_PROXIED)
                fprintf(stderr,
                        "cordon: network=proxied: only through the proxy at 127.0.0.1:%u %s "
                        "(HTTP_PROXY, HTTPS_PROXY, ALL_PROXY)%s\n",
                        rep->proxy.port,
                        rep->backend == CORDON_BACKEND_NS ? "inside" : "on the host's loopback",
                        rep->backend == CORDON_BACKEND_NS
                            ? ""
                            : "; no TCP server can listen, since the host's loopback is shared "
                              "(the ns backend gives the command a loopback of its own)");
        if (*rep->limits_text) {
                fprintf(stderr, "cordon: limits %s\n", rep->limits_text);
                /* RLIMIT_AS counts mappings, not the pages of files in tmpfs or of a memfd
                 * written with write(): those stay outside the limit. A cgroup charges them. */
                if (rep->limits[CORDON_LIMIT_MEMORY] == CORDON_LIMIT_RLIMIT)
                        fprintf(stderr,
                                "cordon: the memory limit (rlimit, no cgroup) cannot bound files "
                                "in tmpfs or memfd; %s\n",
                                rep->backend == CORDON_BACKEND_NS
                                    ? "the sandbox's tmpfs mounts have sizes of their own "
                                      "(--tmp-size), a memfd has none"
                                    : "the landlock backend's TMPDIR is on the host's /tmp and "
                                      "a memfd has no size");
        }
        fflush(stderr);
}

/* The --project-dir of @argv, found by parsing it once into scratch settings (so that every
 * spelling of the option counts, and nothing after the command does), before the configuration
 * is read: its conf.d files see it as _PROJECT_DIR. Returns 1 and the directory in @ret (NULL:
 * none given) and whether it is a dry run in @ret_dry_run, or 0 when the arguments ask for --help
 * or do not parse, after handling that (the exit status in @ret_exit). */
static int prescan_project_dir(int argc, char **argv, char **ret, bool *ret_dry_run, int *ret_exit)
{
        struct run_args a = {0};
        char err[512] = "";
        if (cordon_settings_new(getenv("HOME"), &a.settings) < 0) {
                log_error("out of memory");
                *ret_exit = EXIT_SETUP;
                return 0;
        }
        int r = run_args_parse(&a, argc, argv, err, sizeof(err));
        if (r < 0 || a.help) {
                if (a.help)
                        run_args_help(stdout);
                cordon_settings_free(a.settings);
                *ret_exit = a.help ? 0 : usage_error("run", "%s", *err ? err : strerror(-r));
                return 0;
        }
        _cleanup_free_ char *dir = NULL;
        const char *origin = NULL;
        r = cli_settings_get(a.settings, "PROJECT_DIR", &dir, &origin);
        cordon_settings_free(a.settings);
        *ret = r >= 0 && dir && *dir ? TAKE_PTR(dir) : NULL;
        *ret_dry_run = a.dry_run;
        return 1;
}

/* --policy FILE: the capability policy's variables. Its profile raises SANDBOX_PROFILE (the
 * strictest wins), except over a profile given on this command line (--profile, --set
 * SANDBOX_PROFILE): an explicit choice for this one command, like harn's per-call override of
 * a policy's profile, it stands, with a warning naming both and where each came from. A
 * profile from sandbox.conf stays below the policy's (the environment sets none). The admin
 * rules come later and raise it again to an admin's SANDBOX_PROFILE, with their own warning.
 * Returns 0, or -errno with @diag filled. */
static int load_policy(struct cordon_settings *s, const char *path, struct cordon_diag *diag)
{
        _cleanup_free_ char *before = NULL, *cli_origin = NULL, *after = NULL;
        const char *origin = NULL;
        int r = cli_settings_get(s, "SANDBOX_PROFILE", &before, &origin);
        if (r < 0)
                return r;
        if (streq(cli_origin_layer(s, origin, NULL, NULL), "command line") &&
            !(cli_origin = strdup(origin)))
                return -ENOMEM;
        if ((r = cordon_settings_load_policy(s, path, diag)) < 0)
                return r;
        if (!cli_origin)
                return 0;
        if ((r = cli_settings_get(s, "SANDBOX_PROFILE", &after, &origin)) < 0)
                return r;
        if (streq(after, before))
                return 0;
        /* "--profile worktree", "--set SANDBOX_PROFILE=worktree" */
        log_warning("%s%s%s lowers the capability policy's profile %s (from %s) for this command",
                    cli_origin, startswith(cli_origin, "--set ") ? "=" : " ", before, after,
                    strempty(origin));
        return cordon_settings_set(s, "SANDBOX_PROFILE", before, cli_origin, diag);
}

/* The dry run's configuration origins, as text (NULL when out of memory). */
static char *origins_text(const struct cordon_settings *s)
{
        struct cordon_settings *defaults = NULL;
        (void)cordon_settings_new(getenv("HOME"), &defaults);
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (f) {
                cli_config_print_origins(f, s, defaults);
                if (fclose(f) != 0) {
                        free(text);
                        text = NULL;
                }
        }
        cordon_settings_free(defaults);
        return text;
}

int cmd_run(int argc, char **argv)
{
        struct run_args a = {0};
        char err[512] = "";
        struct cordon_diag sdiag = {0};
        _cleanup_free_ char *project_flag = NULL, *project_dir = NULL;
        int code = 0;
        bool dry = false;
        if (!prescan_project_dir(argc, argv, &project_flag, &dry, &code))
                return code;
        _cleanup_(cordon_host_clear) struct cordon_host host = {0};
        int r = cordon_host_init_current(&host, environ);
        int host_r = r;
        if (r == -ENOMEM || cordon_settings_new(getenv("HOME"), &a.settings) < 0) {
                log_error("out of memory");
                return EXIT_SETUP;
        }
        if (host_r < 0) {
                log_error("cannot determine the working directory: %s", strerror(-host_r));
                cordon_settings_free(a.settings);
                return EXIT_SETUP;
        }
        if (project_flag && cli_path_absolute(project_flag, host.cwd, &project_dir) < 0) {
                log_error("out of memory");
                cordon_settings_free(a.settings);
                return EXIT_SETUP;
        }
        /* The layers in order, each over the one before: sandbox.conf files, the environment,
         * the flags, a policy file; the admin rules last. A dry run writes no default file. */
        if (cli_config_load(
                a.settings, environ, project_dir,
                dry ? 0
                    : CORDON_CONFIG_WRITE_DEFAULT |
                          (isatty(STDERR_FILENO) ? CORDON_CONFIG_ANNOUNCE_DEFAULT : 0)) < 0) {
                cordon_settings_free(a.settings);
                return EXIT_SETUP;
        }
        /* The environment's say, below the flags. */
        if (cordon_settings_apply_environment(a.settings, environ, &sdiag) < 0) {
                log_error("%s", sdiag.message);
                cordon_settings_free(a.settings);
                return EXIT_USAGE;
        }
        r = run_args_parse(&a, argc, argv, err, sizeof(err));
        if (r < 0 || a.help) {
                if (a.help)
                        run_args_help(stdout);
                cordon_settings_free(a.settings);
                return a.help ? 0 : usage_error("run", "%s", *err ? err : strerror(-r));
        }
        if (a.dry_run)
                a.receipt_file = NULL; /* a dry run writes nothing, not even a receipt */

        if (a.policy_file && (r = load_policy(a.settings, a.policy_file, &sdiag)) < 0) {
                log_error("%s", *sdiag.message ? sdiag.message : strerror(-r));
                cordon_settings_free(a.settings);
                return EXIT_USAGE;
        }

        if (a.network_policy_file && (r = cordon_settings_load_network_policy(
                                          a.settings, a.network_policy_file, &sdiag)) < 0) {
                log_error("--network-policy %s", *sdiag.message ? sdiag.message : strerror(-r));
                cordon_settings_free(a.settings);
                return EXIT_USAGE;
        }

        if (cli_config_finalize(a.settings) < 0) {
                cordon_settings_free(a.settings);
                return EXIT_SETUP;
        }

        struct cordon_policy *p = NULL;
        _cleanup_strv_free_ char **warnings = NULL;
        struct cordon_diag diag = {0};
        /* Resolved only: what it needs created on the host is made by the launch. */
        r = cordon_settings_resolve(a.settings, &host, &p, &warnings, &diag);
        STRV_FOREACH (w, warnings) {
                char line[2048];
                cli_respell_settings(run_options_table, run_options_count, *w, line, sizeof(line));
                log_warning("%s", line);
        }
        if (r < 0) {
                log_error("%s", *diag.message ? diag.message : strerror(-r));
                cordon_settings_free(a.settings);
                /* Nothing runs, but the receipt still says why. */
                struct receipt rc = RECEIPT_INIT;
                struct cordon_diag rdiag = {0};
                int k = a.receipt_file ? receipt_open(&rc, a.receipt_file, NULL, &rdiag) : 0;
                if (a.receipt_file && k >= 0)
                        k = receipt_commit(&rc, NULL, r, &diag);
                if (k < 0)
                        log_error("%s", *rdiag.message ? rdiag.message : strerror(-k));
                receipt_clear(&rc);
                return EXIT_SETUP;
        }

        /* Slurm's commands inside are cordon's stub, answered by its chaperon on the host. */
        char stub[PATH_MAX + 64], chaperon[PATH_MAX + 64];
        r = cordon_policy_set_slurm(p,
                                    cli_find_program("cordon-slurm-stub", "slurm",
                                                     CORDON_SLURM_STUB_PATH, stub, sizeof(stub)),
                                    cli_find_program("cordon-chaperon", "slurm",
                                                     CORDON_CHAPERON_PATH, chaperon,
                                                     sizeof(chaperon)),
                                    &diag);
        /* cordon's programs missing (a copy of this binary alone): the host's commands stay as
         * the rules make them, and reach nothing, munge's socket being out of every sandbox. */
        if (r < 0 && r != -ENOMEM)
                log_warning("%s; Slurm's commands are not served in this sandbox",
                            *diag.message ? diag.message : strerror(-r));
        if (r == -ENOMEM) {
                log_error("%s", strerror(-r));
                cordon_policy_free(p);
                cordon_settings_free(a.settings);
                return EXIT_SETUP;
        }

        char value[4096] = "";
        bool quiet =
            cordon_settings_get(a.settings, "SANDBOX_QUIET", value, sizeof(value), NULL) >= 0 &&
            streq(value, "true");
        /* The presets a capability policy grants, for the banner: they decide what of the home
         * directory the command sees. */
        char presets[160] = "";
        char policy[4096] = "";
        int got = cordon_settings_get(a.settings, "POLICY", policy, sizeof(policy), NULL);
        if (got < 0 && got != -ENOBUFS)
                log_warning("POLICY: %s", strerror(-got));
        if (got == -ENOBUFS || (got >= 0 && *policy)) {
                strcpy(presets, " presets=");
                ssize_t n = cordon_settings_count(a.settings, "POLICY_PRESETS");
                for (ssize_t i = 0; i < n; i++) {
                        const char *name = NULL;
                        if (cordon_settings_get_item(a.settings, "POLICY_PRESETS", (size_t)i, &name,
                                                     NULL) < 0)
                                break;
                        /* Bounded: a list that does not fit ends in "...". */
                        size_t used = strlen(presets);
                        if (used + 1 + strlen(name) + 4 >= sizeof(presets)) {
                                strcat(presets, "...");
                                break;
                        }
                        if (i > 0)
                                strcat(presets, ",");
                        strcat(presets, name);
                }
                if (n <= 0)
                        strcat(presets, "none");
        }
        _cleanup_free_ char *origins = a.dry_run ? origins_text(a.settings) : NULL;
        a.settings = cordon_settings_free(a.settings);
        if (a.dry_run)
                return dry_run(p, a.command, origins);

        /* Prepared before anything runs: a receipt that cannot be written, or that the sandbox
         * could tamper with, stops the run. */
        _cleanup_(receipt_clear) struct receipt receipt = RECEIPT_INIT;
        if (a.receipt_file && (r = receipt_open(&receipt, a.receipt_file, p, &diag)) < 0) {
                log_error("%s", *diag.message ? diag.message : strerror(-r));
                cordon_policy_free(p);
                return EXIT_SETUP;
        }

        struct banner banner = {.quiet = quiet, .presets = presets};
        const struct cordon_sandbox_options opts = {
            .flags = CORDON_SANDBOX_FORWARD_SIGNALS | CORDON_SANDBOX_RETURN_FAILED,
            .warning = print_warning,
            .prepared = print_banner,
            .userdata = &banner,
        };
        struct cordon_sandbox *sb = NULL;
        int status = 0;
        /* A reader of our output that goes away during the start (`cordon run ... 2>&1 | grep
         * -m1 backend=`) must not kill this process between making host state (the landlock
         * backend's TMPDIR) and handing it to the reaper: SIGPIPE is blocked for the start, so
         * such a write fails with EPIPE; one left pending is taken before it is unblocked, and
         * a later write dies of it as any other. Only for the start: the command's own mask is
         * emptied before it runs, and nothing after the start changes. */
        sigset_t pipe_set, pipe_old;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        bool pipe_blocked =
            sigprocmask(SIG_BLOCK, &pipe_set, &pipe_old) == 0 && !sigismember(&pipe_old, SIGPIPE);
        r = cordon_sandbox_start_with(p, a.command, &opts, &sb, &diag);
        if (pipe_blocked) {
                const struct timespec zero = {0};
                (void)sigtimedwait(&pipe_set, NULL, &zero);
                (void)sigprocmask(SIG_UNBLOCK, &pipe_set, NULL);
        }
        /* The sandbox holds what it needs of @p; it is kept here for the hint after a failure. */
        /* The proxy holds six descriptors a tunnel: the soft open-file limit up to the hard one,
         * in this process only (the command started with the limits it was given). */
        if (r >= 0 && cordon_sandbox_report(sb)->net_mode == CORDON_NET_PROXIED) {
                struct rlimit rl;
                if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                        rl.rlim_cur = rl.rlim_max;
                        (void)setrlimit(RLIMIT_NOFILE, &rl);
                }
        }
        if (r >= 0) {
                r = cordon_sandbox_wait(sb, &status);
                if (r < 0)
                        snprintf(diag.message, sizeof(diag.message),
                                 "failed to wait for the sandbox: %s", strerror(-r));
        }
        /* A start that failed before the sandbox existed (out of memory) has no report. */
        const struct cordon_report *rep = sb ? cordon_sandbox_report(sb) : NULL;
        if (a.receipt_file) {
                int k = receipt_commit(&receipt, rep, r, &diag);
                if (k < 0)
                        log_error("--receipt '%s': %s", a.receipt_file, strerror(-k));
        }
        /* PROTECT_GIT_CONFIG's check could not cover everything: a protection asked for that
         * did not hold is a failure, also of a command that succeeded. */
        bool git_unchecked = rep && rep->git.unchecked && *rep->git.unchecked;
        if (rep) {
                print_git_after(rep);
                if (!quiet)
                        print_agent_writebacks(rep);
                print_refused(rep);
                /* One line on the protection a failed command probably hit; --quiet leaves it
                 * out, since it is a guess. */
                char hint[12288];
                if (r >= 0 && !quiet && rep->end == CORDON_END_EXITED && status != 0 &&
                    !rep->oom_killed &&
                    run_hint(p, rep, a.command, host.home, host.cwd, hint, sizeof(hint))) {
                        fprintf(stderr, "cordon: %s\n", hint);
                        fflush(stderr);
                }
        }
        p = cordon_policy_free(p);
        enum cordon_end end = rep ? rep->end : CORDON_END_EXITED;
        bool oom = rep && rep->oom_killed;
        uint64_t memory = rep ? rep->memory_bytes : 0;
        uint64_t timeout_usec = rep ? rep->timeout_usec : 0;
        /* Freed before the messages below: the pty's terminal is restored by then. */
        cordon_sandbox_free(sb);
        if (r < 0) {
                log_run_error(r, &diag);
                if (*diag.fix_variable) {
                        char fix[1400];
                        run_options_spell_fix(diag.fix_variable, diag.fix_value, fix, sizeof(fix));
                        log_error("to show it, add %s to the command line", fix);
                }
                if (diag.step == CORDON_STEP_EXEC)
                        return r == -ENOENT ? 127 : 126;
                return EXIT_SETUP;
        }
        if (oom) {
                log_error("out of memory: the sandbox reached its memory limit (%llu MiB) and the "
                          "kernel killed a process in it",
                          (unsigned long long)(memory >> 20));
                if (end == CORDON_END_EXITED)
                        return 137;
        }
        switch (end) {
        case CORDON_END_TIMEOUT:
                log_error("timed out after %g s; the whole sandbox was killed",
                          (double)timeout_usec / 1e6);
                return EXIT_TIMEOUT;
        case CORDON_END_KILLED:
                log_error("the command did not exit within %llu s of the signal; the whole "
                          "sandbox was killed",
                          (unsigned long long)(CORDON_GRACE_USEC / 1000000));
                break;
        case CORDON_END_EXITED:
                break;
        }
        return git_unchecked && status == 0 ? EXIT_SETUP : status;
}
