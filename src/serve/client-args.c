/* cordon-session's command line (client-args.h): the option tables, the parser and the request
 * bodies. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/client-args.h"
#include "serve/client-wire.h"
#include "serve/holder-proto.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

enum {
        OPT_SOCKET = 0x100,
        OPT_JSON,
        OPT_HELP,
        OPT_VERSION,
        OPT_ID,
        OPT_LABEL,
        OPT_MOUNT,
        OPT_NET,
        OPT_MEMORY,
        OPT_CPUS,
        OPT_WALL_TIME,
        OPT_IDLE_TIMEOUT,
        OPT_FROM_SNAPSHOT,
        OPT_CWD,
        OPT_ENV,
        OPT_TIMEOUT,
        OPT_STDIN_FILE,
};

struct client_option {
        const char *long_name;
        char short_name; /* 0: none */
        const char *arg; /* the argument's name in help; NULL: none */
        int id;
        const char *help;
};

#define OPTION_SOCKET                                                                              \
        {                                                                                          \
                "socket", 0, "PATH", OPT_SOCKET,                                                   \
                    "cordon-serve's socket (default $XDG_RUNTIME_DIR/cordon/serve.sock)"           \
        }
#define OPTION_HELP                                                                                \
        {                                                                                          \
                "help", 'h', NULL, OPT_HELP, "show this help and exit"                             \
        }

static const struct client_option top_options[] = {
    OPTION_SOCKET,
    OPTION_HELP,
    {"version", 0, NULL, OPT_VERSION, "show the version and exit"},
};

static const struct client_option create_options[] = {
    {"id", 0, "ID", OPT_ID, "the session's id (default: one the daemon mints)"},
    {"label", 0, "KEY=VALUE", OPT_LABEL, "a label of the session (repeatable)"},
    {"mount", 0, "SRC:DST[:ro|rw]", OPT_MOUNT,
     "host directory SRC at DST inside, read-write unless :ro; an empty SRC is a fresh "
     "directory (repeatable)"},
    {"net", 0, "unrestricted|none|HOST,...", OPT_NET,
     "egress: unrestricted (the default), none, or only these hosts"},
    {"memory", 0, "MB", OPT_MEMORY, "memory limit in megabytes"},
    {"cpus", 0, "N", OPT_CPUS, "CPU count limit"},
    {"wall-time", 0, "S", OPT_WALL_TIME, "each exec's time limit in seconds (an exec's own wins)"},
    {"idle-timeout", 0, "S", OPT_IDLE_TIMEOUT, "suspend the session after S idle seconds"},
    {"from-snapshot", 0, "ID", OPT_FROM_SNAPSHOT, "start from this snapshot's files"},
    {"json", 0, NULL, OPT_JSON, "print the SandboxSession rather than its id"},
    OPTION_SOCKET,
    OPTION_HELP,
};

static const struct client_option ls_options[] = {
    {"json", 0, NULL, OPT_JSON, "print the list of SandboxSession objects"},
    OPTION_SOCKET,
    OPTION_HELP,
};

static const struct client_option exec_options[] = {
    {"cwd", 0, "DIR", OPT_CWD, "run in DIR (a relative one below the session's root)"},
    {"env", 0, "NAME=VALUE", OPT_ENV, "set a variable for the command (repeatable)"},
    {"timeout", 0, "S", OPT_TIMEOUT, "kill the command after S seconds: exit status 124"},
    {"stdin-file", 0, "FILE|-", OPT_STDIN_FILE,
     "the command's input: FILE's text, or ours with - (default: none)"},
    {"json", 0, NULL, OPT_JSON, "print the ExecResult rather than the output"},
    OPTION_SOCKET,
    OPTION_HELP,
};

static const struct client_option attach_options[] = {
    {"cwd", 0, "DIR", OPT_CWD, "run in DIR (a relative one below the session's root)"},
    {"env", 0, "NAME=VALUE", OPT_ENV, "set a variable for the command (repeatable)"},
    OPTION_SOCKET,
    OPTION_HELP,
};

static const struct client_option id_json_options[] = {
    {"json", 0, NULL, OPT_JSON, "print the daemon's answer"},
    OPTION_SOCKET,
    OPTION_HELP,
};

static const struct client_option rm_options[] = {
    OPTION_SOCKET,
    OPTION_HELP,
};

/* What a command takes besides options. */
enum operands { NONE, ID, ID_COMMAND };

static const struct command_info {
        const char *name, *operands, *summary, *description;
        enum operands takes;
        const struct client_option *options;
        size_t n_options;
} commands[] = {
#define OPTIONS(t) t, ELEMENTSOF(t)
    [CLIENT_CREATE] = {"create", "[OPTIONS]", "start a session and print its id",
                       "Starts a session (POST /v1/sessions) and prints its id.", NONE,
                       OPTIONS(create_options)},
    [CLIENT_LS] = {"ls", "[OPTIONS]", "list the sessions",
                   "Lists the sessions (GET /v1/sessions): id, state, backend, when it was\n"
                   "created and its labels.",
                   NONE, OPTIONS(ls_options)},
    [CLIENT_EXEC] = {"exec", "[OPTIONS] ID [--] COMMAND [ARGS...]",
                     "run a command in a session and wait for it",
                     "Runs COMMAND in session ID (POST /v1/sessions/ID/exec), writes its output\n"
                     "to ours and exits with its exit status (124 when it timed out, as\n"
                     "timeout(1) does; 255 for a code outside 0-255).",
                     ID_COMMAND, OPTIONS(exec_options)},
    [CLIENT_ATTACH] = {"attach", "[OPTIONS] ID [-- COMMAND [ARGS...]]",
                       "run an interactive command in a session on a terminal",
                       "Runs COMMAND ($SHELL, else /bin/sh, by default) in session ID on a\n"
                       "terminal of its own and connects ours to it (raw mode, restored on every\n"
                       "exit), following its output and sending our keys and window size; exits\n"
                       "with its exit status.",
                       ID_COMMAND, OPTIONS(attach_options)},
    [CLIENT_SNAPSHOT] = {"snapshot", "[OPTIONS] ID", "snapshot a session, print the snapshot id",
                         "Snapshots session ID's files and prints the snapshot's id, which\n"
                         "create --from-snapshot takes.",
                         ID, OPTIONS(id_json_options)},
    [CLIENT_SUSPEND] = {"suspend", "[OPTIONS] ID", "suspend a session",
                        "Suspends session ID: its processes stop until it is resumed.", ID,
                        OPTIONS(id_json_options)},
    [CLIENT_RESUME] = {"resume", "[OPTIONS] ID", "resume a suspended session",
                       "Resumes session ID after a suspend.", ID, OPTIONS(id_json_options)},
    [CLIENT_RM] = {"rm", "[OPTIONS] ID", "end a session and remove it",
                   "Ends session ID (DELETE /v1/sessions/ID): its processes are killed and its\n"
                   "files removed.",
                   ID, OPTIONS(rm_options)},
#undef OPTIONS
};

const char *client_command_name(enum client_command c)
{
        return (unsigned)c < ELEMENTSOF(commands) ? commands[c].name : "";
}

static void options_print(FILE *f, const struct client_option *t, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                char left[80], shortpart[8] = "    ";
                if (t[i].short_name)
                        snprintf(shortpart, sizeof(shortpart), "-%c, ", t[i].short_name);
                snprintf(left, sizeof(left), "%s--%s%s%s", shortpart, t[i].long_name,
                         t[i].arg ? " " : "", strempty(t[i].arg));
                if (strlen(left) > 24)
                        fprintf(f, "  %s\n  %-24s %s\n", left, "", t[i].help);
                else
                        fprintf(f, "  %-24s %s\n", left, t[i].help);
        }
}

void client_help(FILE *f, enum client_command c)
{
        if ((unsigned)c >= ELEMENTSOF(commands)) {
                fprintf(f, "Usage: cordon session [--socket PATH] COMMAND [OPTIONS]\n\n"
                           "A client of cordon-serve, the daemon of `cordon serve`: sessions are\n"
                           "sandboxes that stay up and run many commands.\n\nCommands:\n");
                for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
                fprintf(f, "\nOptions:\n");
                options_print(f, top_options, ELEMENTSOF(top_options));
                fprintf(f, "\nRun 'cordon session COMMAND --help' for a command's options, 'man "
                           "cordon-session' for more.\n"
                           "Exit status: 1 when the daemon refuses (one line: KIND: MESSAGE), 2 "
                           "for a usage error.\n");
                return;
        }
        const struct command_info *ci = &commands[c];
        fprintf(f, "Usage: cordon session %s %s\n\n%s\n\nOptions:\n", ci->name, ci->operands,
                ci->description);
        options_print(f, ci->options, ci->n_options);
}

_printf_(3, 4) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* getopt_long()'s tables for @t (at most 16 options, one short option). */
struct getopt_tables {
        struct option longopts[17];
        char shortopts[8];
};

static void tables_prepare(const struct client_option *t, size_t n, struct getopt_tables *g)
{
        size_t ns = 0;
        g->shortopts[ns++] = '+'; /* stop at the first operand: a command's own options are its */
        g->shortopts[ns++] = ':';
        for (size_t i = 0; i < n && i < ELEMENTSOF(g->longopts) - 1; i++) {
                g->longopts[i] = (struct option){
                    t[i].long_name, t[i].arg ? required_argument : no_argument, NULL, t[i].id};
                if (t[i].short_name && ns < sizeof(g->shortopts) - 2)
                        g->shortopts[ns++] = t[i].short_name;
        }
        g->longopts[n < ELEMENTSOF(g->longopts) - 1 ? n : ELEMENTSOF(g->longopts) - 1] =
            (struct option){0};
        g->shortopts[ns] = 0;
        optind = 0; /* a full reset: the parser runs twice (the program, then the command) */
        opterr = 0;
}

/* The id of getopt's result @c: a short option mapped to its table's id. */
static int option_id(int c, const struct client_option *t, size_t n)
{
        for (size_t i = 0; c > 0 && c < 0x100 && i < n; i++)
                if (t[i].short_name == c)
                        return t[i].id;
        return c;
}

/* The line for getopt's ':' (missing value) or '?' (unknown) at argv[optind - 1]. */
static int option_error(int c, char **argv, char *err, size_t errlen)
{
        const char *arg = argv[optind - 1];
        if (c == ':')
                return fail(err, errlen, "option '%s' needs a value", arg);
        if (optopt && optopt < 0x100 && !startswith(arg, "--"))
                return fail(err, errlen, "unknown option '-%c'", optopt);
        return fail(err, errlen, "unknown option '%.*s'", (int)strcspn(arg, "="), arg);
}

/* @s as JSON text must be UTF-8: refused (naming @what) otherwise. */
static int need_utf8(const char *what, const char *s, char *err, size_t errlen)
{
        if (client_utf8_valid(s, strlen(s)))
                return 0;
        return fail(err, errlen, "%s: the value is not UTF-8 text", what);
}

static int parse_u32(const char *opt, const char *s, uint32_t *ret, char *err, size_t errlen)
{
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (*s < '0' || *s > '9' || *end || errno || v == 0 || v > UINT32_MAX)
                return fail(err, errlen, "--%s: '%s' is not a whole number from 1 to %" PRIu32, opt,
                            s, UINT32_MAX);
        *ret = (uint32_t)v;
        return 0;
}

int client_parse_seconds(const char *s, struct serve_duration *ret)
{
        uint64_t secs = 0;
        uint32_t nanos = 0;
        const char *c = s;
        if (*c < '0' || *c > '9')
                return -EINVAL;
        for (; *c >= '0' && *c <= '9'; c++) {
                secs = secs * 10 + (uint64_t)(*c - '0');
                if (secs > (UINT64_C(1) << 53))
                        return -EINVAL;
        }
        if (*c == '.') {
                c++;
                unsigned digits = 0;
                uint32_t scale = 100000000;
                for (; *c >= '0' && *c <= '9'; c++, digits++) {
                        if (digits >= 9)
                                return -EINVAL;
                        nanos += (uint32_t)(*c - '0') * scale;
                        scale /= 10;
                }
                if (digits == 0)
                        return -EINVAL;
        }
        if (*c)
                return -EINVAL;
        *ret = (struct serve_duration){.set = true, .secs = secs, .nanos = nanos};
        return 0;
}

static int parse_seconds(const char *opt, const char *s, struct serve_duration *ret, char *err,
                         size_t errlen)
{
        if (client_parse_seconds(s, ret) < 0)
                return fail(err, errlen,
                            "--%s: '%s' is not a number of seconds (such as 30 or 0.5)", opt, s);
        return 0;
}

/* @form (KEY=VALUE) with a non-empty KEY: copies of both. */
static int split_pair(const char *opt, const char *form, const char *s, char **ret_key,
                      char **ret_value, char *err, size_t errlen)
{
        const char *eq = strchr(s, '=');
        if (!eq || eq == s)
                return fail(err, errlen, "%s: '%s' is not %s", opt, s, form);
        int r = need_utf8(opt, s, err, errlen);
        if (r < 0)
                return r;
        _cleanup_free_ char *k = strndup(s, (size_t)(eq - s));
        char *v = strdup(eq + 1);
        if (!k || !v) {
                free(v);
                return -ENOMEM;
        }
        *ret_key = TAKE_PTR(k);
        *ret_value = v;
        return 0;
}

static int add_label(struct serve_spec *spec, const char *s, char *err, size_t errlen)
{
        if (spec->n_labels >= SERVE_LABELS_MAX)
                return fail(err, errlen, "--label: more than %d labels", SERVE_LABELS_MAX);
        struct serve_label *l = realloc(spec->labels, (spec->n_labels + 1) * sizeof(*l));
        if (!l)
                return -ENOMEM;
        spec->labels = l;
        l = &spec->labels[spec->n_labels];
        int r = split_pair("--label", "KEY=VALUE", s, &l->key, &l->value, err, errlen);
        if (r < 0)
                return r;
        spec->n_labels++;
        return 0;
}

/* SRC:DST[:ro|rw]: DST is what follows the last ':' (after an access suffix is taken off), so
 * SRC may hold ':'. A relative SRC is made absolute against @cwd: the daemon has another
 * working directory. */
static int add_mount(struct serve_spec *spec, const char *s, const char *cwd, char *err,
                     size_t errlen)
{
        if (spec->n_mounts >= SERVE_MOUNTS_MAX)
                return fail(err, errlen, "--mount: more than %d mounts", SERVE_MOUNTS_MAX);
        int r = need_utf8("--mount", s, err, errlen);
        if (r < 0)
                return r;
        _cleanup_free_ char *copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        enum serve_access access = SERVE_READ_WRITE;
        char *last = strrchr(copy, ':');
        if (last && last != copy && (streq(last + 1, "ro") || streq(last + 1, "rw")) &&
            memchr(copy, ':', (size_t)(last - copy))) {
                access = streq(last + 1, "ro") ? SERVE_READ_ONLY : SERVE_READ_WRITE;
                *last = 0;
                last = strrchr(copy, ':');
        }
        if (!last || !last[1])
                return fail(err, errlen, "--mount: '%s' is not SRC:DST[:ro|rw]", s);
        *last = 0;
        const char *src = copy, *dst = last + 1;
        char *source;
        if (*src && *src != '/') {
                if (!cwd || *cwd != '/')
                        return fail(err, errlen,
                                    "--mount: '%s' is relative and the working "
                                    "directory is unknown",
                                    src);
                if (asprintf(&source, "%s%s%s", cwd, streq(cwd, "/") ? "" : "/", src) < 0)
                        return -ENOMEM;
        } else if (!(source = strdup(src)))
                return -ENOMEM;
        char *target = strdup(dst);
        struct serve_mount *m = realloc(spec->mounts, (spec->n_mounts + 1) * sizeof(*m));
        if (!target || !m) {
                free(source);
                free(target);
                if (m)
                        spec->mounts = m;
                return -ENOMEM;
        }
        spec->mounts = m;
        spec->mounts[spec->n_mounts++] =
            (struct serve_mount){.source = source, .target = target, .access = access};
        return 0;
}

static int set_network(struct serve_spec *spec, const char *s, char *err, size_t errlen)
{
        serve_network_policy_clear(&spec->network);
        if (streq(s, "unrestricted"))
                return 0;
        spec->network.limited = true;
        if (streq(s, "none"))
                return 0;
        int r = need_utf8("--net", s, err, errlen);
        if (r < 0)
                return r;
        for (const char *h = s;;) {
                size_t n = strcspn(h, ",");
                if (n == 0)
                        return fail(err, errlen,
                                    "--net: '%s' has an empty host (unrestricted, none, or "
                                    "HOST,HOST...)",
                                    s);
                if (spec->network.n_hosts >= SERVE_HOSTS_MAX)
                        return fail(err, errlen, "--net: more than %d hosts", SERVE_HOSTS_MAX);
                char *host = strndup(h, n);
                if (!host || strv_consume(&spec->network.allowed_hosts, host) < 0)
                        return -ENOMEM;
                spec->network.n_hosts++;
                if (!h[n])
                        break;
                h += n + 1;
        }
        return 0;
}

static int add_env(struct serve_exec_request *x, const char *s, char *err, size_t errlen)
{
        if (x->n_env >= SERVE_ENV_MAX)
                return fail(err, errlen, "--env: more than %d variables", SERVE_ENV_MAX);
        _cleanup_free_ char *k = NULL, *v = NULL;
        int r = split_pair("--env", "NAME=VALUE", s, &k, &v, err, errlen);
        if (r < 0)
                return r;
        if (strv_extendf(&x->env, "%s=%s", k, v) < 0)
                return -ENOMEM;
        x->n_env++;
        return 0;
}

static int dup_to(char **dst, const char *what, const char *s, char *err, size_t errlen)
{
        int r = need_utf8(what, s, err, errlen);
        if (r < 0)
                return r;
        char *c = strdup(s);
        if (!c)
                return -ENOMEM;
        free(*dst);
        *dst = c;
        return 0;
}

/* One option of a command. */
static int command_option(struct client_args *a, int id, const char *v, const char *cwd, char *err,
                          size_t errlen)
{
        switch (id) {
        case OPT_SOCKET:
                a->socket = v;
                return 0;
        case OPT_JSON:
                a->json = true;
                return 0;
        case OPT_HELP:
                a->help = true;
                return 0;
        case OPT_ID:
                return dup_to(&a->spec.session_id, "--id", v, err, errlen);
        case OPT_LABEL:
                return add_label(&a->spec, v, err, errlen);
        case OPT_MOUNT:
                return add_mount(&a->spec, v, cwd, err, errlen);
        case OPT_NET:
                return set_network(&a->spec, v, err, errlen);
        case OPT_MEMORY:
                a->spec.limits.has_memory_mb = true;
                return parse_u32("memory", v, &a->spec.limits.memory_mb, err, errlen);
        case OPT_CPUS:
                a->spec.limits.has_cpu_count = true;
                return parse_u32("cpus", v, &a->spec.limits.cpu_count, err, errlen);
        case OPT_WALL_TIME:
                return parse_seconds("wall-time", v, &a->spec.limits.wall_time, err, errlen);
        case OPT_IDLE_TIMEOUT:
                return parse_seconds("idle-timeout", v, &a->spec.limits.idle_timeout, err, errlen);
        case OPT_FROM_SNAPSHOT:
                return dup_to(&a->spec.from_snapshot, "--from-snapshot", v, err, errlen);
        case OPT_CWD:
                return dup_to(&a->exec.cwd, "--cwd", v, err, errlen);
        case OPT_ENV:
                return add_env(&a->exec, v, err, errlen);
        case OPT_TIMEOUT:
                return parse_seconds("timeout", v, &a->exec.timeout, err, errlen);
        case OPT_STDIN_FILE:
                a->stdin_file = v;
                return 0;
        }
        return fail(err, errlen, "internal error: option %d", id);
}

/* The command line from @argv[0] on: COMMAND [ARGS...]. */
static int set_command(struct serve_exec_request *x, const char *const *argv, int argc, char *err,
                       size_t errlen)
{
        if (argc - 1 > SERVE_ARGS_MAX)
                return fail(err, errlen, "more than %d arguments", SERVE_ARGS_MAX);
        for (int i = 0; i < argc; i++) {
                int r = need_utf8(i == 0 ? "the command" : "an argument", argv[i], err, errlen);
                if (r < 0)
                        return r;
        }
        x->command = strdup(argv[0]);
        if (!x->command)
                return -ENOMEM;
        for (int i = 1; i < argc; i++) {
                if (strv_extend(&x->args, argv[i]) < 0)
                        return -ENOMEM;
                x->n_args++;
        }
        return 0;
}

/* A command's options and operands; @argv[0] is the command's name. */
static int parse_command(struct client_args *a, int argc, char **argv, const char *cwd,
                         const char *shell, char *err, size_t errlen)
{
        const struct command_info *ci = &commands[a->command];
        struct getopt_tables g;
        tables_prepare(ci->options, ci->n_options, &g);
        int cmd_start = -1;
        for (;;) {
                int prev = optind ? optind : 1;
                int c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL);
                if (c == ':' || c == '?')
                        return option_error(c, argv, err, errlen);
                if (c >= 0) {
                        int r = command_option(a, option_id(c, ci->options, ci->n_options), optarg,
                                               cwd, err, errlen);
                        if (r < 0 || a->help)
                                return r;
                        continue;
                }
                /* The end of the options: "--", an operand, or the end of the line. */
                bool dashdash = optind == prev + 1 && streq(argv[prev], "--");
                if (optind >= argc)
                        break;
                if (ci->takes == NONE || (ci->takes == ID && a->id))
                        return fail(err, errlen, "unexpected argument '%s'", argv[optind]);
                if (!a->id) {
                        a->id = argv[optind++];
                        if (!dashdash)
                                continue; /* options may follow the id */
                        /* After "--" nothing is an option: the id, then the command. */
                        if (ci->takes == ID) {
                                if (optind < argc)
                                        return fail(err, errlen, "unexpected argument '%s'",
                                                    argv[optind]);
                                break;
                        }
                }
                cmd_start = optind;
                break;
        }
        if (ci->takes != NONE && !a->id)
                return fail(err, errlen, "no session id given");
        if (a->id) {
                int r = need_utf8("the session id", a->id, err, errlen);
                if (r < 0)
                        return r;
        }
        if (ci->takes != ID_COMMAND)
                return 0;
        if (cmd_start >= 0 && cmd_start < argc)
                return set_command(&a->exec, (const char *const *)argv + cmd_start,
                                   argc - cmd_start, err, errlen);
        if (a->command == CLIENT_EXEC)
                return fail(err, errlen, "no command given");
        const char *sh[] = {shell && *shell ? shell : "/bin/sh", NULL};
        return set_command(&a->exec, sh, 1, err, errlen);
}

int client_args_parse(int argc, char **argv, const char *cwd, const char *shell,
                      struct client_args *ret, char *err, size_t errlen)
{
        *ret = (struct client_args){.command = _CLIENT_COMMAND_MAX};
        struct getopt_tables g;
        tables_prepare(top_options, ELEMENTSOF(top_options), &g);
        for (;;) {
                int c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL);
                if (c == -1)
                        break;
                if (c == ':' || c == '?')
                        return option_error(c, argv, err, errlen);
                switch (option_id(c, top_options, ELEMENTSOF(top_options))) {
                case OPT_SOCKET:
                        ret->socket = optarg;
                        break;
                case OPT_HELP:
                        ret->help = true;
                        return 0;
                case OPT_VERSION:
                        ret->version = true;
                        return 0;
                }
        }
        if (optind >= argc)
                return fail(err, errlen, "no command given");
        const char *name = argv[optind];
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (streq(name, commands[i].name))
                        ret->command = (enum client_command)i;
        if (ret->command == _CLIENT_COMMAND_MAX)
                return fail(err, errlen, "unknown command '%s'", name);
        ret->exec.pty = ret->command == CLIENT_ATTACH;
        return parse_command(ret, argc - optind, argv + optind, cwd, shell, err, errlen);
}

void client_args_clear(struct client_args *a)
{
        serve_spec_clear(&a->spec);
        serve_exec_request_clear(&a->exec);
}

char *client_spec_body(const struct client_args *a)
{
        return serve_json_dump(serve_spec_to_json(&a->spec));
}

char *client_exec_body(const struct client_args *a)
{
        return serve_json_dump(serve_exec_request_to_json(&a->exec));
}

char *client_stdin_body(const void *data, size_t len, bool eof)
{
        _cleanup_free_ char *b = holder_base64_encode(data, len);
        json_t *j = b ? json_pack("{s:s, s:b}", "data", b, "eof", eof) : NULL;
        return serve_json_dump(j);
}

char *client_resize_body(unsigned rows, unsigned cols)
{
        return serve_json_dump(
            json_pack("{s:I, s:I}", "rows", (json_int_t)rows, "cols", (json_int_t)cols));
}

char *client_signal_body(int sig)
{
        return serve_json_dump(json_pack("{s:i}", "signal", sig));
}
