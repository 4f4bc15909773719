/* `cordon run`: defaults + flags -> settings -> policy -> spawn. */
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/receipt.h"
#include "cli/run-options.h"
#include "lib/cap-policy-internal.h"
#include "lib/lower.h"
#include "lib/passwd-filter.h"
#include "lib/policy.h"
#include "shared/fd-util.h"
#include "shared/log.h"
#include "shared/strv.h"

extern char **environ;

/* The environment's say, below the flags: SANDBOX_BACKEND as in sandbox.conf, and the worktree
 * fallback from CORDON_HANDLER_SANDBOX (or harn's HARN_HANDLER_SANDBOX). */
static int settings_from_environment(struct cordon_settings *s)
{
        const char *v = getenv("SANDBOX_BACKEND");
        if (v) {
                int b = cordon_backend_from_string(v);
                if (b < 0) {
                        log_error("SANDBOX_BACKEND='%s': expected auto, ns (or bwrap) or landlock",
                                  v);
                        return -EINVAL;
                }
                s->backend = (enum cordon_backend)b;
        }
        const char *name = "CORDON_HANDLER_SANDBOX";
        v = getenv(name);
        if (!v) {
                name = "HARN_HANDLER_SANDBOX";
                v = getenv(name);
        }
        if (v) {
                int f = cordon_fallback_from_string(v);
                if (f < 0) {
                        log_error("%s='%s': expected off, warn or enforce", name, v);
                        return -EINVAL;
                }
                s->fallback = (enum cordon_fallback)f;
        }
        v = getenv("PROTECT_GIT_CONFIG");
        if (v) {
                if (!streq(v, "true") && !streq(v, "false")) {
                        log_error("PROTECT_GIT_CONFIG='%s': expected true or false", v);
                        return -EINVAL;
                }
                s->protect_git = streq(v, "true");
        }
        return 0;
}

static int load_policy_file(struct cordon_settings *s, const char *path)
{
        struct cordon_cap_policy *c = calloc(1, sizeof(*c));
        if (!c) {
                log_error("out of memory");
                return -ENOMEM;
        }
        int r = policy_file_load(path, c);
        if (r < 0) {
                free(c);
                return r;
        }
        s->cap_policy = c;
        s->cap_policy_origin = strdup(streq(path, "-") ? "<stdin>" : path);
        if (!s->cap_policy_origin) {
                log_error("out of memory");
                return -ENOMEM;
        }
        return 0;
}

/* The account's home directory: from /etc/passwd when it has the caller's line, else from NSS
 * (directory users). getpwuid() alone costs about 80 µs a start (nsswitch.conf, nscd probes),
 * as much as a tenth of the landlock backend's own work. NULL when there is none. */
static char *account_home_dir(uid_t uid)
{
        _cleanup_free_ char *text = NULL;
        char *home = NULL;
        if (read_full_file("/etc/passwd", 16u << 20, &text, NULL) >= 0 &&
            cordon_passwd_db_home(text, uid, &home) >= 0)
                return home;
        struct passwd *pw = getpwuid(uid);
        return pw && pw->pw_dir ? strdup(pw->pw_dir) : NULL;
}

static void print_warning(void *userdata, const char *message)
{
        (void)userdata;
        log_warning("%s", message);
        fflush(stderr);
}

struct banner {
        bool quiet;
        const char *presets; /* " presets=a,b" or "" */
};

/* The `prepared` callback: the decisions, once made, before anything runs. */
static void print_banner(void *userdata, const struct cordon_sandbox *sb)
{
        const struct banner *b = userdata;
        const struct cordon_report *rep = cordon_sandbox_report(sb);
        if (b->quiet)
                return;
        bool ll = rep->landlock.planned, sc = rep->seccomp.deny_list;
        fprintf(stderr,
                "cordon: backend=%s profile=%s layers=%s%s%s project=%s home=%s "
                "network=%s env-blocked=%zu%s\n",
                cordon_backend_to_string(rep->backend), cordon_profile_to_string(rep->profile),
                ll ? "landlock" : "", ll && sc ? "," : "", sc ? "seccomp" : (ll ? "" : "none"),
                rep->project_dir, cordon_home_access_to_string(rep->home_access),
                cordon_net_mode_to_string(rep->net_mode), rep->env_blocked, b->presets);
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

int cmd_run(int argc, char **argv)
{
        struct run_args a = {0};
        char err[512] = "";
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        int r = cordon_settings_init_defaults(&a.settings, getenv("HOME"));
        if (r < 0) {
                log_error("out of memory");
                return EXIT_SETUP;
        }
        if (settings_from_environment(&a.settings) < 0) {
                cordon_settings_clear(&a.settings);
                return EXIT_USAGE;
        }
        r = run_args_parse(&a, argc, argv, err, sizeof(err));
        if (r < 0 || a.help) {
                int code = a.help ? 0 : EXIT_USAGE;
                if (!a.help)
                        log_error("%s", err);
                run_args_help(a.help ? stdout : stderr);
                cordon_settings_clear(&a.settings);
                return code;
        }
        if (!cwd) {
                log_error("cannot determine the working directory: %m");
                cordon_settings_clear(&a.settings);
                return EXIT_SETUP;
        }

        if (a.policy_file && load_policy_file(&a.settings, a.policy_file) < 0) {
                cordon_settings_clear(&a.settings);
                return EXIT_USAGE;
        }

        /* The account's home as well as $HOME: the credential stores of both are hidden. */
        _cleanup_free_ char *account_home = account_home_dir(getuid());
        struct cordon_host host = {
            .home = getenv("HOME"),
            .account_home = account_home,
            .cwd = cwd,
            .envp = environ,
            .uid = getuid(),
            .gid = getgid(),
        };
        struct cordon_policy *p = NULL;
        _cleanup_strv_free_ char **warnings = NULL;
        struct cordon_diag diag = {0};
        r = cordon_settings_lower(&a.settings, &host, &p, &warnings, &diag);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r < 0) {
                log_error("%s", *diag.message ? diag.message : strerror(-r));
                cordon_settings_clear(&a.settings);
                /* Nothing runs, but the receipt still says why. */
                struct receipt rc = RECEIPT_INIT;
                struct cordon_diag rdiag = {0};
                int k = a.receipt_file ? receipt_open(&rc, a.receipt_file, NULL, &rdiag) : 0;
                if (a.receipt_file && k >= 0)
                        k = receipt_commit(&rc, NULL, r, 0, &diag);
                if (k < 0)
                        log_error("--receipt %s", *rdiag.message ? rdiag.message : strerror(-k));
                receipt_clear(&rc);
                return EXIT_SETUP;
        }

        bool quiet = a.settings.quiet;
        /* The presets a capability policy grants, for the banner: they decide what of the home
         * directory the command sees. */
        char presets[160] = "";
        if (a.settings.cap_policy) {
                const struct cordon_cap_policy *c = a.settings.cap_policy;
                unsigned bits = c->presets_default ? CORDON_PRESETS_ALL : c->presets;
                strcpy(presets, " presets=");
                const char *sep = "";
                for (size_t i = 0; i < ELEMENTSOF(cordon_cap_preset_names); i++)
                        if (bits & (1u << i)) {
                                strcat(presets, sep);
                                strcat(presets, cordon_cap_preset_names[i]);
                                sep = ",";
                        }
                if (!*sep)
                        strcat(presets, "none");
        }
        cordon_settings_clear(&a.settings);

        /* Prepared before anything runs: a receipt that cannot be written, or that the sandbox
         * could tamper with, stops the run. */
        _cleanup_(receipt_clear) struct receipt receipt = RECEIPT_INIT;
        if (a.receipt_file && (r = receipt_open(&receipt, a.receipt_file, p, &diag)) < 0) {
                log_error("--receipt %s", *diag.message ? diag.message : strerror(-r));
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
        r = cordon_sandbox_start_with(p, a.command, &opts, &sb, &diag);
        cordon_policy_free(p);
        if (r >= 0) {
                r = cordon_sandbox_wait(sb, &status);
                if (r < 0)
                        cordon_diag_set(&diag, r, "failed to wait for the sandbox: %s",
                                        strerror(-r));
        }
        /* A start that failed before the sandbox existed (out of memory) has no report. */
        const struct cordon_report *rep = sb ? cordon_sandbox_report(sb) : NULL;
        if (a.receipt_file) {
                int k = receipt_commit(&receipt, rep, r, status, &diag);
                if (k < 0)
                        log_error("--receipt '%s': %s", a.receipt_file, strerror(-k));
        }
        enum cordon_end end = rep ? rep->end : CORDON_END_EXITED;
        bool oom = rep && rep->oom_killed;
        uint64_t memory = rep ? rep->memory_bytes : 0;
        uint64_t timeout_usec = rep ? rep->timeout_usec : 0;
        /* Freed before the messages below: the pty's terminal is restored by then. */
        cordon_sandbox_free(sb);
        if (r < 0) {
                log_error("%s", *diag.message ? diag.message : strerror(-r));
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
        return status;
}
