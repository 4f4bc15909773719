/* `cordon run` options: one table for parsing and help. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run-options.h"
#include "shared/macro.h"

const struct cli_option run_options_table[] = {
    {"project-dir", 'p', "DIR", OPT_PROJECT_DIR,
     "the writable project directory (default: the working directory)", "PROJECT_DIR", NULL, 0},
    {"allow-parent", 0, "DIR", OPT_ALLOW_PARENT,
     "also allow projects below DIR (built-in: $HOME, /tmp, /var/tmp)", "ALLOWED_PROJECT_PARENTS",
     NULL, 0},
    {"home-access", 0, "MODE", OPT_HOME_ACCESS,
     "how much of $HOME is visible: tmpwrite (default), restricted, read, write", "HOME_ACCESS",
     NULL, 0},
    {"ro", 0, "PATH", OPT_RO, "bind PATH read-only at the same place", "READONLY_MOUNTS", NULL, 0},
    {"rw", 0, "PATH", OPT_RW, "bind PATH read-write at the same place", "EXTRA_WRITABLE_PATHS",
     NULL, 0},
    {"mask", 0, "PATH", OPT_MASK,
     "hide file PATH behind an empty read-only file (a missing one gets a placeholder)",
     "BLOCKED_FILES", NULL, 0},
    {"hide", 0, "PATH", OPT_HIDE, "hide PATH behind an empty read-only directory",
     "EXTRA_BLOCKED_PATHS", NULL, 0},
    {"device", 0, "GLOB", OPT_DEVICE,
     "expose matching device nodes (never those of the device blacklist)", "DEVICES", NULL, 0},
    {"setenv", 0, "NAME=VALUE", OPT_SETENV, "set a variable for the command", "SANDBOX_ENV", NULL,
     0},
    {"backend", 0, "NAME", OPT_BACKEND,
     "auto (default), ns (namespaces + Landlock + seccomp) or landlock (no namespaces)",
     "SANDBOX_BACKEND", NULL, CLI_OPTION_NONEMPTY},
    {"profile", 0, "NAME", OPT_PROFILE,
     "worktree (default), os_hardened (every layer required) or unrestricted (no Landlock, "
     "no seccomp deny list; network rules stay)",
     "SANDBOX_PROFILE", NULL, 0},
    {"policy", 0, "FILE", OPT_POLICY,
     "confine by a capability policy (JSON, see cordon-policy(5)) instead of a project"},
    {"receipt", 0, "FILE", OPT_RECEIPT,
     "write a JSON receipt of the confinement applied and the outcome to FILE"},
    {"timeout", 0, "SECONDS", OPT_TIMEOUT,
     "kill the whole sandbox after SECONDS (decimals allowed) and exit 124", "TIMEOUT", NULL, 0},
    {"memory", 0, "SIZE", OPT_MEMORY,
     "a hard memory ceiling such as 512M or 4G (cgroup, or per-process rlimits without one)",
     "MEMORY_LIMIT", NULL, 0},
    {"pids", 0, "N", OPT_PIDS, "at most N processes and threads", "PIDS_LIMIT", NULL, 0},
    {"cpus", 0, "N", OPT_CPUS, "at most N CPUs (cpu quota, or CPU affinity without a cgroup)",
     "CPU_LIMIT", NULL, 0},
    {"cgroup", 0, "PATH", OPT_CGROUP,
     "a writable cgroup v2 directory to put the sandbox's cgroup in", "CGROUP_PATH", NULL, 0},
    {"tmp-size", 0, "SIZE", OPT_TMP_SIZE,
     "size of each of the private /tmp, the tmpfs home and /dev/shm (default: together a "
     "quarter of RAM; ns backend only)",
     "TMP_SIZE", NULL, 0},
    {"no-pty", 0, NULL, OPT_NO_PTY,
     "hand the command the caller's terminal instead of a pseudo-terminal of its own", "NO_PTY",
     "true", 0},
    {"terminal-passthrough", 0, NULL, OPT_TERMINAL_PASSTHROUGH,
     "relay clipboard, title and query escape sequences to the terminal (filtered by default)",
     "TERMINAL_PASSTHROUGH", "true", 0},
    {"quiet", 'q', NULL, OPT_QUIET, "do not print the startup banner", "SANDBOX_QUIET", "true", 0},
    {"git-writable", 0, NULL, OPT_GIT_WRITABLE,
     "leave the project's git directory writable (kept by an allow list by default)",
     "PROTECT_GIT_CONFIG", "false", 0},
    {"net", 0, "MODE", OPT_NET,
     "filtered (default: pasta with a port and address firewall), proxied (only through "
     "cordon's HTTP/SOCKS5 proxy), open (the host's network) or isolated (none); a mode given "
     "here is delivered or the sandbox does not start",
     "NETWORK_FILTER_MODE", NULL, CLI_OPTION_NONEMPTY},
    {"block", 0, "PATTERN", OPT_BLOCK,
     "also block host or glob (*.suffix, * and ? as in bash)[:port][/path], address, CIDR[:port], "
     "port or *",
     "NETWORK_BLOCKLIST", NULL, CLI_OPTION_NONEMPTY},
    {"allow-host", 0, "PATTERN", OPT_ALLOW_HOST,
     "an exception to the blocklist (never to the built-in floor); alone it restricts nothing",
     "NETWORK_BLOCKLIST_EXCEPT", NULL, CLI_OPTION_NONEMPTY},
    {"allow-only", 0, "PATTERN", OPT_ALLOW_ONLY,
     "an allow list: --allow-host PATTERN, and --block '*' for everything else (repeatable)",
     "NETWORK_BLOCKLIST_EXCEPT", NULL, CLI_OPTION_NONEMPTY},
    {"network-policy", 0, "FILE", OPT_NETWORK_POLICY,
     "a NetworkPolicy (JSON): unrestricted, or limited to allowed_hosts through the proxy"},
    {"proxy-dns", 0, "ADDR[:PORT]", OPT_PROXY_DNS,
     "the DNS server the proxy and the filtered mode's resolver ask (default: the host's)",
     "NETWORK_PROXY_DNS", NULL, 0},
    {"net-log", 0, "FILE", OPT_NET_LOG,
     "append one JSON line per proxy decision and refused name to FILE", "NETWORK_LOG", NULL,
     CLI_OPTION_NONEMPTY},
    {"cleanup-materialized", 0, NULL, OPT_CLEANUP_MATERIALIZED,
     "after the command exits, remove the BLOCKED_FILES placeholders this run created (only "
     "while still empty)",
     "CLEANUP_MATERIALIZED_BLOCKED_FILES", "1", 0},
    {"set", 0, "NAME=VALUE", OPT_SET,
     "set any configuration variable (a list gets VALUE appended), as sandbox.conf would"},
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
                   "other projects are invisible, and the network is filtered.\n\nOptions:\n");
        cli_options_print(f, run_options_table, run_options_count, 28);
        fprintf(f, "\nExit status: the command's, 128+N if it was killed by signal N, 125 if the\n"
                   "sandbox could not be set up, 126/127 if COMMAND could not be executed/found,\n"
                   "2 for a usage error.\n");
}

/* What --net also sets, under its name. */
static const struct cli_option strict_fallback = {.long_name = "net",
                                                  .variable = "NETWORK_FILTER_FALLBACK"};
/* What --allow-only also sets: the block its exceptions are exceptions to. */
static const struct cli_option allow_only_block = {.long_name = "allow-only",
                                                   .variable = "NETWORK_BLOCKLIST"};

/* An option row's variable, set through the settings registry; a failure names the option. */
static int set_variable(struct run_args *a, const struct cli_option *o, const char *value,
                        char *err, size_t errlen)
{
        char spelling[64];
        snprintf(spelling, sizeof(spelling), "--%s", o->long_name);
        struct cordon_diag diag = {0};
        if ((o->flags & CLI_OPTION_NONEMPTY) && !*value) {
                snprintf(err, errlen, "%s '': expected a value", spelling);
                return -EINVAL;
        }
        int r = cordon_settings_set(a->settings, o->variable, value, spelling, &diag);
        if (r < 0) {
                cordon_settings_diag_respell(&diag, o->variable, spelling);
                snprintf(err, errlen, "%s", *diag.message ? diag.message : strerror(-r));
        }
        return r;
}

/* Whether list @variable holds @value already. */
static bool list_has(const struct cordon_settings *s, const char *variable, const char *value)
{
        ssize_t n = cordon_settings_count(s, variable);
        for (ssize_t i = 0; i < n; i++) {
                const char *item = NULL;
                if (cordon_settings_get_item(s, variable, (size_t)i, &item, NULL) >= 0 &&
                    streq(item, value))
                        return true;
        }
        return false;
}

/* --set NAME=VALUE: any variable of the registry, origin "--set NAME"; a failure names it as
 * "--set NAME". */
static int set_any(struct run_args *a, const char *arg, char *err, size_t errlen)
{
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg) {
                snprintf(err, errlen, "--set '%s': expected NAME=VALUE", arg);
                return -EINVAL;
        }
        _cleanup_free_ char *name = strndup(arg, (size_t)(eq - arg));
        if (!name)
                return -ENOMEM;
        char spelling[128];
        snprintf(spelling, sizeof(spelling), "--set %s", name);
        struct cordon_diag diag = {0};
        int r = cordon_settings_set(a->settings, name, eq + 1, spelling, &diag);
        char dym[CLI_SUGGEST_MAX + 32];
        if (r == -ENOENT)
                snprintf(err, errlen, "--set '%s': no such configuration variable%s", name,
                         cli_did_you_mean("", cli_suggest_variable(name), dym, sizeof(dym)));
        else if (r < 0) {
                cordon_settings_diag_respell(&diag, name, spelling);
                snprintf(err, errlen, "%s", *diag.message ? diag.message : strerror(-r));
        }
        return r;
}

int run_args_parse(struct run_args *a, int argc, char **argv, char *err, size_t errlen)
{
        struct cli_getopt g;
        cli_options_prepare(run_options_table, run_options_count, "+:", &g);

        for (;;) {
                int c = cli_options_next(run_options_table, run_options_count, &g, argc, argv);
                if (c == -1)
                        break;
                const struct cli_option *o = c >= OPT_PROJECT_DIR && c <= OPT_HELP
                                                 ? &run_options_table[c - OPT_PROJECT_DIR]
                                                 : NULL;
                if (o && o->variable) {
                        int r = set_variable(a, o, o->arg ? optarg : o->value, err, errlen);
                        /* A mode asked for here is delivered or refused, never weakened. */
                        if (r >= 0 && c == OPT_NET)
                                r = set_variable(a, &strict_fallback, "strict", err, errlen);
                        /* An allow list: everything the exceptions do not name is blocked. */
                        if (r >= 0 && c == OPT_ALLOW_ONLY &&
                            !list_has(a->settings, "NETWORK_BLOCKLIST", "*"))
                                r = set_variable(a, &allow_only_block, "*", err, errlen);
                        if (r < 0)
                                return r;
                        continue;
                }
                switch (c) {
                case OPT_SET: {
                        int r = set_any(a, optarg, err, errlen);
                        if (r < 0)
                                return r;
                        break;
                }
                case OPT_POLICY:
                        a->policy_file = optarg;
                        break;
                case OPT_NETWORK_POLICY:
                        a->network_policy_file = optarg;
                        break;
                case OPT_RECEIPT:
                        a->receipt_file = optarg;
                        break;
                case OPT_DRY_RUN:
                        a->dry_run = true;
                        break;
                case OPT_HELP:
                        a->help = true;
                        return 0;
                default:
                        cli_options_error(c, run_options_table, run_options_count, argv, err,
                                          errlen);
                        return -EINVAL;
                }
        }
        if (optind >= argc) {
                snprintf(err, errlen, "no command given");
                return -EINVAL;
        }
        a->command = argv + optind;
        return 0;
}

/* @value as one shell word: as it is when every byte is plain, else in single quotes. */
static void shell_word(const char *value, char *buf, size_t size)
{
        if (*value && strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789/._+-@%=:,~") == strlen(value)) {
                snprintf(buf, size, "%s", value);
                return;
        }
        size_t n = 0;
        if (size == 0)
                return;
        for (const char *c = "'"; *c && n + 1 < size; c++)
                buf[n++] = *c;
        for (const char *v = value; *v && n + 1 < size; v++) {
                const char *piece = *v == '\'' ? "'\\''" : NULL;
                if (!piece) {
                        buf[n++] = *v;
                        continue;
                }
                for (; *piece && n + 1 < size; piece++)
                        buf[n++] = *piece;
        }
        if (n + 1 < size)
                buf[n++] = '\'';
        buf[n] = 0;
}

void run_options_spell_fix(const char *variable, const char *value, char *buf, size_t size)
{
        char word[1200];
        shell_word(value, word, sizeof(word));
        for (size_t i = 0; i < run_options_count; i++) {
                const struct cli_option *o = &run_options_table[i];
                if (o->arg && o->variable && streq(o->variable, variable)) {
                        snprintf(buf, size, "--%s %s", o->long_name, word);
                        return;
                }
                /* A switch that sets exactly this value: PROTECT_GIT_CONFIG=false is
                 * --git-writable. */
                if (!o->arg && o->variable && streq(o->variable, variable) && o->value &&
                    streq(o->value, value)) {
                        snprintf(buf, size, "--%s", o->long_name);
                        return;
                }
        }
        char assignment[1300];
        snprintf(assignment, sizeof(assignment), "%s=%s", variable, value);
        shell_word(assignment, word, sizeof(word));
        snprintf(buf, size, "--set %s", word);
}

const char *run_options_long_name(const char *variable)
{
        for (size_t i = 0; i < run_options_count; i++)
                if (run_options_table[i].arg && run_options_table[i].variable &&
                    streq(run_options_table[i].variable, variable))
                        return run_options_table[i].long_name;
        return NULL;
}

void run_options_spell_fix_home(const char *variable, const char *value, const char *home,
                                char *buf, size_t size)
{
        run_options_spell_fix(variable, value, buf, size);
        size_t n = home ? strlen(home) : 0;
        /* Quoted, "~" would reach the option as it is: only a plain word is respelled. */
        if (n < 2 || strncmp(value, home, n) != 0 || value[n] != '/' || strchr(buf, '\''))
                return;
        char tilde[1200];
        snprintf(tilde, sizeof(tilde), "~%s", value + n);
        run_options_spell_fix(variable, tilde, buf, size);
}
