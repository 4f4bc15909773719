/* `cordon run` options: one table for parsing and help. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run-options.h"
#include "lib/env-filter.h"
#include "lib/res-limits.h"
#include "shared/macro.h"

const struct cli_option run_options_table[] = {
    {"project-dir", 'p', "DIR", OPT_PROJECT_DIR,
     "the writable project directory (default: the working directory)"},
    {"allow-parent", 0, "DIR", OPT_ALLOW_PARENT,
     "also allow projects below DIR (built-in: $HOME, /tmp, /var/tmp)"},
    {"home-access", 0, "MODE", OPT_HOME_ACCESS,
     "how much of $HOME is visible: tmpwrite (default), restricted, read, write"},
    {"ro", 0, "PATH", OPT_RO, "bind PATH read-only at the same place"},
    {"rw", 0, "PATH", OPT_RW, "bind PATH read-write at the same place"},
    {"mask", 0, "PATH", OPT_MASK,
     "hide file PATH behind /dev/null (a missing file gets an empty placeholder)"},
    {"hide", 0, "PATH", OPT_HIDE, "hide PATH behind an empty read-only directory"},
    {"device", 0, "GLOB", OPT_DEVICE,
     "expose matching device nodes (never those of the device blacklist)"},
    {"setenv", 0, "NAME=VALUE", OPT_SETENV, "set a variable for the command"},
    {"backend", 0, "NAME", OPT_BACKEND,
     "auto (default), ns (namespaces + Landlock + seccomp) or landlock (no namespaces)"},
    {"profile", 0, "NAME", OPT_PROFILE,
     "worktree (default), os_hardened (every layer required) or unrestricted (no Landlock, "
     "no seccomp)"},
    {"policy", 0, "FILE", OPT_POLICY,
     "confine by a capability policy (JSON, see cordon-policy(5)) instead of a project"},
    {"receipt", 0, "FILE", OPT_RECEIPT,
     "write a JSON receipt of the confinement applied and the outcome to FILE"},
    {"timeout", 0, "SECONDS", OPT_TIMEOUT,
     "kill the whole sandbox after SECONDS (decimals allowed) and exit 124"},
    {"memory", 0, "SIZE", OPT_MEMORY,
     "a hard memory ceiling such as 512M or 4G (cgroup, or per-process rlimits without one)"},
    {"pids", 0, "N", OPT_PIDS, "at most N processes and threads"},
    {"cpus", 0, "N", OPT_CPUS, "at most N CPUs (cpu quota, or CPU affinity without a cgroup)"},
    {"cgroup", 0, "PATH", OPT_CGROUP,
     "a writable cgroup v2 directory to put the sandbox's cgroup in"},
    {"tmp-size", 0, "SIZE", OPT_TMP_SIZE,
     "size of the private /tmp and of the tmpfs home (default: half of RAM; ns backend only)"},
    {"no-pty", 0, NULL, OPT_NO_PTY,
     "hand the command the caller's terminal instead of a pseudo-terminal of its own"},
    {"terminal-passthrough", 0, NULL, OPT_TERMINAL_PASSTHROUGH,
     "relay clipboard, title and query escape sequences to the terminal (filtered by default)"},
    {"quiet", 'q', NULL, OPT_QUIET, "do not print the startup banner"},
    {"git-writable", 0, NULL, OPT_GIT_WRITABLE,
     "leave the project's .git/config and .git/hooks writable (read-only by default)"},
    {"dry-run", 0, NULL, OPT_DRY_RUN,
     "print the resolved plan and exit; nothing is created, changed or run"},
    {"help", 'h', NULL, OPT_HELP, "show this help and exit"},
};
const size_t run_options_count = ELEMENTSOF(run_options_table);
CLI_OPTIONS_ASSERT_FITS(run_options_table);

void run_args_help(FILE *f)
{
        fprintf(f, "Usage: cordon run [OPTIONS] [--] COMMAND [ARGS...]\n\n"
                   "Run COMMAND confined: only the project directory is writable, credentials and\n"
                   "other projects are invisible, and there is no network.\n\nOptions:\n");
        cli_options_print(f, run_options_table, run_options_count, 28);
        fprintf(f, "\nExit status: the command's, 128+N if it was killed by signal N, 125 if the\n"
                   "sandbox could not be set up, 126/127 if COMMAND could not be executed/found,\n"
                   "2 for a usage error.\n");
}

static int replace(char **dst, char **origin, const char *v, const char *o)
{
        char *a = strdup(v), *b = strdup(o);
        if (!a || !b) {
                free(a);
                free(b);
                return -ENOMEM;
        }
        free(*dst);
        free(*origin);
        *dst = a;
        *origin = b;
        return 0;
}

/* "30", "0.5", "1.25": seconds with up to 6 decimals, above 0 and at most a year. */
static int parse_seconds(const char *s, uint64_t *ret_usec)
{
        uint64_t whole = 0, frac = 0, scale = 1000000;
        const char *p = s;
        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                whole = whole * 10 + (uint64_t)(*p - '0');
                if (whole > 366ULL * 24 * 3600)
                        return -ERANGE;
        }
        if (*p == '.') {
                p++;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                for (; *p >= '0' && *p <= '9'; p++)
                        if (scale > 1) {
                                scale /= 10;
                                frac += (uint64_t)(*p - '0') * scale;
                        }
        }
        if (*p)
                return -EINVAL;
        uint64_t usec = whole * 1000000 + frac;
        if (usec == 0)
                return -EINVAL;
        *ret_usec = usec;
        return 0;
}

int run_args_parse(struct run_args *a, int argc, char **argv, char *err, size_t errlen)
{
        struct cli_getopt g;
        cli_options_prepare(run_options_table, run_options_count, "+:", &g);

        struct cordon_settings *s = &a->settings;
        for (;;) {
                int c = cli_options_next(run_options_table, run_options_count, &g, argc, argv);
                if (c == -1)
                        break;
                int r = 0;
                char origin[64];
                snprintf(origin, sizeof(origin), "--%s",
                         c >= OPT_PROJECT_DIR && c <= OPT_HELP
                             ? run_options_table[c - OPT_PROJECT_DIR].long_name
                             : "?");
                switch (c) {
                case OPT_PROJECT_DIR:
                        r = replace(&s->project_dir, &s->project_dir_origin, optarg, origin);
                        break;
                case OPT_ALLOW_PARENT:
                        if (optarg[0] != '/') {
                                snprintf(err, errlen,
                                         "--allow-parent '%s': must be an absolute path", optarg);
                                return -EINVAL;
                        }
                        r = cordon_list_add(&s->allowed_project_parents, optarg, origin);
                        break;
                case OPT_HOME_ACCESS: {
                        int m = cordon_home_access_from_string(optarg);
                        if (m < 0) {
                                snprintf(err, errlen,
                                         "--home-access '%s': expected tmpwrite, restricted, read "
                                         "or write",
                                         optarg);
                                return -EINVAL;
                        }
                        s->home_access = (enum cordon_home_access)m;
                        free(s->home_access_origin);
                        s->home_access_origin = strdup(origin);
                        if (!s->home_access_origin)
                                r = -ENOMEM;
                        break;
                }
                case OPT_RO:
                        r = cordon_list_add(&s->readonly_mounts, optarg, origin);
                        break;
                case OPT_RW:
                        r = cordon_list_add(&s->extra_writable_paths, optarg, origin);
                        break;
                case OPT_MASK:
                        r = cordon_list_add(&s->blocked_files, optarg, origin);
                        break;
                case OPT_HIDE:
                        r = cordon_list_add(&s->extra_blocked_paths, optarg, origin);
                        break;
                case OPT_DEVICE:
                        r = cordon_list_add(&s->devices, optarg, origin);
                        break;
                case OPT_SETENV: {
                        const char *eq = strchr(optarg, '=');
                        if (!eq || !cordon_env_name_is_valid(optarg, (size_t)(eq - optarg))) {
                                snprintf(err, errlen, "--setenv '%s': expected NAME=VALUE", optarg);
                                return -EINVAL;
                        }
                        r = cordon_list_add(&s->sandbox_env, optarg, origin);
                        break;
                }
                case OPT_BACKEND: {
                        int b = cordon_backend_from_string(optarg);
                        if (b < 0 || streq(optarg, "")) {
                                snprintf(err, errlen,
                                         "--backend '%s': expected auto, ns or landlock", optarg);
                                return -EINVAL;
                        }
                        s->backend = (enum cordon_backend)b;
                        break;
                }
                case OPT_PROFILE: {
                        int pr = cordon_profile_from_string(optarg);
                        if (pr < 0) {
                                snprintf(err, errlen,
                                         "--profile '%s': expected unrestricted, worktree, wasi "
                                         "or os_hardened",
                                         optarg);
                                return -EINVAL;
                        }
                        s->profile = (enum cordon_profile)pr;
                        break;
                }
                case OPT_POLICY:
                        a->policy_file = optarg;
                        break;
                case OPT_RECEIPT:
                        a->receipt_file = optarg;
                        break;
                case OPT_TIMEOUT:
                        if (parse_seconds(optarg, &s->limits.timeout_usec) < 0) {
                                snprintf(err, errlen,
                                         "--timeout '%s': expected a number of seconds above 0 "
                                         "(such as 30 or 0.5)",
                                         optarg);
                                return -EINVAL;
                        }
                        break;
                case OPT_MEMORY:
                        if (cordon_parse_size(optarg, &s->limits.memory_bytes) < 0) {
                                snprintf(err, errlen,
                                         "--memory '%s': expected a size such as 512M or 4G",
                                         optarg);
                                return -EINVAL;
                        }
                        break;
                case OPT_PIDS:
                case OPT_CPUS: {
                        char *end;
                        errno = 0;
                        unsigned long long v = strtoull(optarg, &end, 10);
                        if (errno || end == optarg || *end || v == 0 || optarg[0] == '-' ||
                            v > (c == OPT_CPUS ? 4096 : 4194304)) {
                                snprintf(err, errlen, "%s '%s': expected a whole number above 0",
                                         origin, optarg);
                                return -EINVAL;
                        }
                        if (c == OPT_PIDS)
                                s->limits.pids = v;
                        else
                                s->limits.cpus = (unsigned)v;
                        break;
                }
                case OPT_CGROUP:
                        if (optarg[0] != '/') {
                                snprintf(err, errlen, "--cgroup '%s': must be an absolute path",
                                         optarg);
                                return -EINVAL;
                        }
                        free(s->cgroup_path);
                        s->cgroup_path = strdup(optarg);
                        if (!s->cgroup_path)
                                r = -ENOMEM;
                        break;
                case OPT_TMP_SIZE: {
                        uint64_t v;
                        if (cordon_parse_size(optarg, &v) < 0 || v > CORDON_TMP_SIZE_MAX) {
                                snprintf(err, errlen,
                                         "--tmp-size '%s': expected a size such as 64M or 1G, "
                                         "at most 1E",
                                         optarg);
                                return -EINVAL;
                        }
                        s->limits.tmp_size_bytes = v;
                        break;
                }
                case OPT_NO_PTY:
                        s->no_pty = true;
                        break;
                case OPT_TERMINAL_PASSTHROUGH:
                        s->terminal_passthrough = true;
                        break;
                case OPT_QUIET:
                        s->quiet = true;
                        break;
                case OPT_GIT_WRITABLE:
                        s->protect_git = false;
                        break;
                case OPT_DRY_RUN:
                        a->dry_run = true;
                        break;
                case OPT_HELP:
                        a->help = true;
                        return 0;
                default:
                        cli_options_error(c, argv, err, errlen);
                        return -EINVAL;
                }
                if (r < 0) {
                        snprintf(err, errlen, "%s", strerror(-r));
                        return r;
                }
        }
        if (optind >= argc) {
                snprintf(err, errlen, "no command given");
                return -EINVAL;
        }
        a->command = argv + optind;
        return 0;
}
