/* cordon-serve: libcordon's sessions behind a local HTTP socket (issue 26). This file: options,
 * start-up (capabilities, sockets, the store, the sessions re-adopted), the signals. Single-
 * threaded. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "cordon/doctor.h"
#include "cordon/settings.h"
#include "serve/holder-proto.h"
#include "serve/serve-holders.h"
#include "serve/serve-http.h"
#include "serve/serve-loop.h"
#include "serve/serve-socket.h"
#include "serve/serve-store.h"
#include "shared/fd-util.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define TOKEN_MAX 4096
#define TOKEN_MIN 16
/* --output-cap's ceiling: an ExecResult of two capped streams, each byte escaped at worst to
 * six, stays within one holder frame (HOLDER_FRAME_MAX). */
#define OUTPUT_CAP_MAX       (2u << 20)
#define MAX_SESSIONS_DEFAULT 1024
#define MAX_SESSIONS_CEILING 16384

struct serve_args {
        const char *socket;
        const char *token_file;
        long tcp; /* -1: none */
        unsigned long output_cap;
        unsigned long max_sessions;
};

static void help(FILE *f)
{
        fprintf(f,
                "Usage: cordon-serve [OPTIONS]\n"
                "Serves libcordon's sandbox sessions over HTTP on a local socket (see "
                "cordon-serve(8)).\n\n"
                "  --socket PATH      listen on PATH (default $XDG_RUNTIME_DIR/cordon/serve.sock)\n"
                "  --tcp PORT         also listen on 127.0.0.1:PORT (0: any free port, printed)\n"
                "  --token-file FILE  the bearer token TCP requests must carry (a 0600 file)\n"
                "  --output-cap BYTES the bytes of an exec's stdout and of its stderr kept in\n"
                "                     its answer (default 1048576, at most 2097152)\n"
                "  --max-sessions N   the sessions this daemon holds at most (default 1024)\n"
                "  -h, --help         show this help\n"
                "      --version      show the version\n");
}

static int parse_number(const char *s, unsigned long min, unsigned long max, unsigned long *ret)
{
        char *e;
        errno = 0;
        unsigned long v = strtoul(s, &e, 10);
        if (errno || e == s || *e || s[0] == '-' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_args(int argc, char **argv, struct serve_args *a)
{
        enum { OPT_SOCKET = 256, OPT_TCP, OPT_TOKEN, OPT_VERSION, OPT_OUTPUT_CAP, OPT_MAX };
        static const struct option opts[] = {
            {"socket", required_argument, NULL, OPT_SOCKET},
            {"tcp", required_argument, NULL, OPT_TCP},
            {"token-file", required_argument, NULL, OPT_TOKEN},
            {"output-cap", required_argument, NULL, OPT_OUTPUT_CAP},
            {"max-sessions", required_argument, NULL, OPT_MAX},
            {"help", no_argument, NULL, 'h'},
            {"version", no_argument, NULL, OPT_VERSION},
            {},
        };
        *a = (struct serve_args){.tcp = -1,
                                 .output_cap = SERVE_OUTPUT_CAP_DEFAULT,
                                 .max_sessions = MAX_SESSIONS_DEFAULT};
        int c;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                switch (c) {
                case OPT_SOCKET:
                        a->socket = optarg;
                        break;
                case OPT_TCP: {
                        char *e;
                        errno = 0;
                        a->tcp = strtol(optarg, &e, 10);
                        if (errno || *e || e == optarg || a->tcp < 0 || a->tcp > 65535) {
                                log_error("--tcp: '%s' is not a port (0-65535)", optarg);
                                return -EINVAL;
                        }
                        break;
                }
                case OPT_TOKEN:
                        a->token_file = optarg;
                        break;
                case OPT_OUTPUT_CAP:
                        if (parse_number(optarg, 1, OUTPUT_CAP_MAX, &a->output_cap) < 0) {
                                log_error("--output-cap: '%s' is not a number of bytes from 1 "
                                          "to %u",
                                          optarg, OUTPUT_CAP_MAX);
                                return -EINVAL;
                        }
                        break;
                case OPT_MAX:
                        if (parse_number(optarg, 1, MAX_SESSIONS_CEILING, &a->max_sessions) < 0) {
                                log_error("--max-sessions: '%s' is not a number from 1 to %u",
                                          optarg, MAX_SESSIONS_CEILING);
                                return -EINVAL;
                        }
                        break;
                case 'h':
                        help(stdout);
                        return 0;
                case OPT_VERSION:
                        printf("cordon-serve %s\n", CORDON_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                log_error("unexpected argument '%s'; see 'cordon-serve --help'", argv[optind]);
                return -EINVAL;
        }
        if ((a->tcp >= 0) != (a->token_file != NULL)) {
                log_error("--tcp and --token-file go together: TCP is served only with a token");
                return -EINVAL;
        }
        return 1;
}

/* The token: a regular file of ours that nobody else can read, at most TOKEN_MAX bytes, trailing
 * white space dropped. */
static int read_token(const char *path, char **ret)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return log_error_errno(-errno, "cannot open the token file '%s': %m", path);
        struct stat st;
        if (fstat(fd, &st) < 0)
                return log_error_errno(-errno, "cannot stat '%s': %m", path);
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
                return log_error_errno(-EPERM,
                                       "the token file '%s' must be a regular file of ours that "
                                       "only we can read (mode 0600); it has mode %04o",
                                       path, (unsigned)(st.st_mode & 07777));
        _cleanup_free_ char *t = NULL;
        size_t len;
        int r = read_full_fd(fd, TOKEN_MAX, &t, &len);
        if (r < 0)
                return log_error_errno(r, "cannot read the token file '%s': %m", path);
        while (len > 0 && strchr(" \t\r\n", t[len - 1]))
                t[--len] = 0;
        if (len < TOKEN_MIN || strlen(t) != len || strpbrk(t, " \t\r\n"))
                return log_error_errno(-EINVAL,
                                       "the token in '%s' must be one word of at least %d bytes",
                                       path, TOKEN_MIN);
        *ret = TAKE_PTR(t);
        return 0;
}

/* The settings as `cordon run` loads them (sandbox.conf, the environment); the defaults when
 * they do not load, with a warning. NULL only on ENOMEM. */
static struct cordon_settings *load_settings(void)
{
        struct cordon_settings *s = NULL;
        struct cordon_diag diag = {0};
        _cleanup_strv_free_ char **warnings = NULL;
        if (cordon_settings_new(getenv("HOME"), &s) < 0)
                return NULL;
        const struct cordon_config_options o = {.envp = environ};
        int r = cordon_settings_load_config(s, &o, &warnings, &diag);
        if (r >= 0)
                r = cordon_settings_apply_environment(s, environ, &diag);
        if (r >= 0) {
                strv_free(TAKE_PTR(warnings));
                r = cordon_settings_finalize(s, &warnings, &diag);
        }
        if (r < 0) {
                log_warning("the configuration does not load (%s); capabilities are those of "
                            "the defaults",
                            *diag.message ? diag.message : strerror(-r));
                cordon_settings_free(s);
                if (cordon_settings_new(getenv("HOME"), &s) < 0)
                        return NULL;
        }
        return s;
}

/* The holder program: cordon-serve-session beside this binary (the directory of
 * /proc/self/exe, so that a build tree works as an installed one). NULL: ENOMEM or unknown. */
static char *holder_program(void)
{
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0)
                return NULL;
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (!slash)
                return NULL;
        *slash = 0;
        char *p;
        return asprintf(&p, "%s/%s", self, HOLDER_PROGRAM) < 0 ? NULL : p;
}

/* SandboxCapabilities for this host, from libcordon's doctor: a backend can start a sandbox
 * here and the holder program is there (else no session can start, and every capability is
 * false); the proxied network mode (which enforces allowed hosts) can run; snapshots' libraries
 * load. Every session can be suspended and resumed (cgroup.freeze where it has a cgroup of its
 * own, stop signals otherwise: libcordon has a mechanism for each backend), and its holder
 * suspends it after its idle_timeout. */
static int capabilities(const char *holder, struct serve_capabilities *ret)
{
        _cleanup_(cordon_doctor_report_clear) struct cordon_doctor_report report = {0};
        int r = cordon_doctor_collect(getenv("PATH"), &report);
        if (r < 0)
                return log_error_errno(r, "cannot run the host checks: %m");
        struct cordon_settings *s = load_settings();
        if (!s)
                return log_error_errno(-ENOMEM, "out of memory");
        struct cordon_doctor_setup setup;
        r = cordon_doctor_assess(&report, s, &setup);
        cordon_settings_free(s);
        if (r < 0)
                return log_error_errno(r, "cannot assess the host: %m");
        bool backend = setup.backend >= 0 && setup.backend_usable;
        bool holder_ok = holder && access(holder, X_OK) == 0;
        if (backend && !holder_ok)
                log_warning("the session holder '%s' is missing: no session can start here",
                            holder ? holder : HOLDER_PROGRAM);
        bool sessions = backend && holder_ok;
        struct cordon_diag diag = {0};
        bool snapshot = sessions && cordon_doctor_check_snapshot(&diag) == 0;
        if (sessions && !snapshot)
                log_warning("snapshots cannot be made here: %s", diag.message);
        *ret = (struct serve_capabilities){
            .local_process_sandbox = sessions,
            .network_policy = sessions && setup.net_deliverable[CORDON_NET_PROXIED],
            .snapshot = snapshot,
            .resume = sessions,
            .suspend_on_idle = sessions,
        };
        return 0;
}

struct serve_main {
        struct serve_loop *loop;
        struct serve_http *unix_http, *tcp_http;
        struct serve_holders *holders;
};

static int on_signal(int fd, uint32_t events, void *userdata)
{
        struct serve_main *m = userdata;
        struct signalfd_siginfo si;
        while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                if (si.ssi_signo == SIGCHLD)
                        serve_holders_reap(m->holders);
                else
                        serve_loop_quit(m->loop);
        }
        return 0;
}

static int64_t min_timeout(int64_t a, int64_t b)
{
        return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

static int64_t on_timeout(void *userdata)
{
        struct serve_main *m = userdata;
        int64_t t = min_timeout(serve_http_timeout(m->unix_http),
                                m->tcp_http ? serve_http_timeout(m->tcp_http) : -1);
        return min_timeout(t, serve_holders_timeout(m->holders));
}

static int on_tick(void *userdata)
{
        struct serve_main *m = userdata;
        serve_holders_tick(m->holders);
        int r = serve_http_run(m->unix_http);
        if (r >= 0 && m->tcp_http)
                r = serve_http_run(m->tcp_http);
        return r;
}

int main(int argc, char **argv)
{
        if (stdio_open_missing() < 0)
                return 125;
        struct serve_args a;
        int r = parse_args(argc, argv, &a);
        if (r <= 0)
                return r < 0 ? 2 : 0;
        umask(0077);
        /* A client gone mid-answer is an error of that write, not a reason to die. */
        signal(SIGPIPE, SIG_IGN);

        _cleanup_free_ char *token = NULL;
        if (a.token_file && read_token(a.token_file, &token) < 0)
                return 1;

        static struct serve_ctx state;
        _cleanup_free_ char *holder = holder_program();
        if (capabilities(holder, &state.caps) < 0)
                return 1;

        char err[512] = "";
        struct serve_socket us = SERVE_SOCKET_NULL, tcp = SERVE_SOCKET_NULL;
        r = serve_socket_from_activation(&us, err, sizeof(err));
        if (r == 0) {
                _cleanup_free_ char *def = NULL;
                if (!a.socket && (r = serve_socket_default_path(&def, err, sizeof(err))) < 0) {
                        log_error("%s", err);
                        return 1;
                }
                r = serve_socket_listen(a.socket ?: def, &us, err, sizeof(err));
        }
        if (r < 0) {
                log_error("%s", *err ? err : strerror(-r));
                return 1;
        }
        uint16_t port = (uint16_t)a.tcp;
        if (a.tcp >= 0 && (r = serve_socket_listen_tcp(&port, &tcp, err, sizeof(err))) < 0) {
                log_error("%s", err);
                serve_socket_close(&us);
                return 1;
        }

        /* The store; the holders' sockets go beside our own (the directory of the socket we
         * made, or $XDG_RUNTIME_DIR/cordon when systemd made it). */
        struct serve_store store = SERVE_STORE_NULL;
        _cleanup_free_ char *runtime = NULL;
        const char *rt = getenv("XDG_RUNTIME_DIR");
        if (us.path)
                runtime = strndup(us.path, (size_t)(strrchr(us.path, '/') - us.path));
        else if (rt && rt[0] == '/' && asprintf(&runtime, "%s/cordon", rt) < 0)
                runtime = NULL;
        r = runtime ? serve_store_open(getenv("XDG_STATE_HOME"), getenv("HOME"), runtime, &store,
                                       err, sizeof(err))
                    : -ENXIO;
        if (r >= 0 && (r = serve_store_snapshots_load(&store)) < 0)
                snprintf(err, sizeof(err), "cannot read the snapshots: %s", strerror(-r));
        if (r < 0) {
                log_error("the store cannot be opened: %s",
                          runtime ? err : "XDG_RUNTIME_DIR is not set (systemd's socket)");
                serve_store_close(&store);
                serve_socket_close(&tcp);
                serve_socket_close(&us);
                return 1;
        }
        state.store = &store;

        /* SIGTERM (systemd's stop) and SIGINT end the loop; the socket we made is removed, and
         * the sessions live on for the next daemon. SIGCHLD: a holder of ours exited. */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGCHLD);
        sigprocmask(SIG_BLOCK, &set, NULL);
        _cleanup_close_ int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);

        struct serve_main m = {0};
        const struct serve_holders_options ho = {.program = holder ?: HOLDER_PROGRAM,
                                                 .output_cap = a.output_cap,
                                                 .max_sessions = (unsigned)a.max_sessions};
        r = sfd < 0 ? -errno : serve_loop_new(&m.loop);
        if (r >= 0)
                r = serve_loop_add(m.loop, sfd, EPOLLIN, on_signal, &m, NULL);
        if (r >= 0)
                r = serve_holders_new(m.loop, &store, &ho, &m.holders);
        if (r >= 0) {
                state.holders = m.holders;
                serve_holders_adopt(m.holders);
                r = serve_http_new(m.loop, us.fd, NULL, &state, &m.unix_http);
        }
        if (r >= 0 && tcp.fd >= 0)
                r = serve_http_new(m.loop, tcp.fd, token, &state, &m.tcp_http);
        if (r >= 0) {
                serve_loop_set_tick(m.loop, on_timeout, on_tick, &m);
                if (us.path)
                        log_info("listening on %s", us.path);
                else
                        log_info("listening on the socket systemd passed");
                if (tcp.fd >= 0)
                        log_info("listening on 127.0.0.1:%u", (unsigned)port);
                r = serve_loop_run(m.loop);
        }
        if (r < 0)
                log_error_errno(r, "cordon-serve stops: %m");
        /* HTTP first: what its requests wait for is cancelled before the sessions go. */
        serve_http_free(m.tcp_http);
        serve_http_free(m.unix_http);
        serve_holders_free(m.holders);
        serve_loop_free(m.loop);
        serve_store_close(&store);
        serve_socket_close(&tcp);
        serve_socket_close(&us);
        return r < 0 ? 1 : 0;
}
