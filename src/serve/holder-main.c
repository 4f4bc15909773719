/* cordon-serve-session: the holder of one session (issue 26; its contract with the daemon is
 * holder-proto.h). This file: options, the spec on fd 0, the session's state directory, the
 * start hand-shake on fd 3, the record, the session of its own, signals and the loop. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cordon/sandbox.h"
#include "serve/holder.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"

#define READY_FD 3

static void help(FILE *f)
{
        fprintf(f,
                "Usage: " HOLDER_PROGRAM " --name NAME --state-dir DIR --socket PATH [OPTIONS]\n"
                "Holds one session of cordon-serve: reads its SandboxSpec (JSON) on standard "
                "input,\nstarts the sandbox, answers the daemon on PATH and says it is ready on "
                "fd 3\n(see cordon-serve(8)).\n\n"
                "  --name NAME             the store's name of the session (32 hex digits)\n"
                "  --state-dir DIR         the session's state directory (removed at its end)\n"
                "  --socket PATH           the socket to listen on\n"
                "  --output-cap BYTES      bytes of each exec's stdout and stderr kept "
                "(default %u)\n"
                "  --from-snapshot ARCHIVE restore a snapshot into the new session\n"
                "  -h, --help              show this help\n"
                "      --version           show the version\n",
                SERVE_OUTPUT_CAP_DEFAULT);
}

static int parse_args(int argc, char **argv, struct holder *h)
{
        enum { OPT_NAME = 256, OPT_STATE, OPT_SOCKET, OPT_CAP, OPT_SNAPSHOT, OPT_VERSION };
        static const struct option opts[] = {
            {"name", required_argument, NULL, OPT_NAME},
            {"state-dir", required_argument, NULL, OPT_STATE},
            {"socket", required_argument, NULL, OPT_SOCKET},
            {"output-cap", required_argument, NULL, OPT_CAP},
            {"from-snapshot", required_argument, NULL, OPT_SNAPSHOT},
            {"help", no_argument, NULL, 'h'},
            {"version", no_argument, NULL, OPT_VERSION},
            {},
        };
        h->output_cap = SERVE_OUTPUT_CAP_DEFAULT;
        int c;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                switch (c) {
                case OPT_NAME:
                        h->name = optarg;
                        break;
                case OPT_STATE:
                        h->state_dir = optarg;
                        break;
                case OPT_SOCKET:
                        h->socket_path = optarg;
                        break;
                case OPT_CAP: {
                        char *e;
                        errno = 0;
                        unsigned long long v = strtoull(optarg, &e, 10);
                        if (errno || *e || e == optarg || optarg[0] == '-' || v == 0 ||
                            v > SERVE_BODY_MAX * 8ull) {
                                log_error("--output-cap: '%s' is not a size in bytes (1-%llu)",
                                          optarg, SERVE_BODY_MAX * 8ull);
                                return -EINVAL;
                        }
                        h->output_cap = (size_t)v;
                        break;
                }
                case OPT_SNAPSHOT:
                        h->from_snapshot = optarg;
                        break;
                case 'h':
                        help(stdout);
                        return 0;
                case OPT_VERSION:
                        printf(HOLDER_PROGRAM " %s\n", CORDON_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                log_error("unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        if (!holder_name_valid(h->name)) {
                log_error("--name must be %d lowercase hex digits", HOLDER_NAME_LEN);
                return -EINVAL;
        }
        if (!h->state_dir || h->state_dir[0] != '/' || !h->socket_path ||
            h->socket_path[0] != '/' || (h->from_snapshot && h->from_snapshot[0] != '/')) {
                log_error("--state-dir, --socket (and --from-snapshot) take absolute paths");
                return -EINVAL;
        }
        return 1;
}

/* DIR made 0700 (or ours and 0700 already), its real path, and DIR/root. */
static int make_state_dir(struct holder *h, char **ret_real, bool *ret_made,
                          struct serve_error *err)
{
        int k = mkdir(h->state_dir, 0700);
        if (k < 0 && errno != EEXIST)
                return serve_error_set(err, SERVE_ERR_IO, "cannot create '%s': %m", h->state_dir);
        *ret_made = k == 0;
        struct stat st;
        if (lstat(h->state_dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
            (st.st_mode & 077))
                return serve_error_set(err, SERVE_ERR_IO,
                                       "'%s' must be a directory of ours with mode 0700",
                                       h->state_dir);
        char *real = realpath(h->state_dir, NULL);
        if (!real)
                return serve_error_set(err, SERVE_ERR_IO, "'%s': %m", h->state_dir);
        *ret_real = real;
        if (asprintf(&h->root, "%s/root", real) < 0)
                return -ENOMEM;
        if (mkdir(h->root, 0700) < 0 && errno != EEXIST)
                return serve_error_set(err, SERVE_ERR_IO, "cannot create '%s': %m", h->root);
        return 0;
}

static int read_spec(struct holder *h, struct serve_error *err)
{
        _cleanup_free_ char *body = NULL;
        size_t len = 0;
        int r = read_full_fd(STDIN_FILENO, SERVE_BODY_MAX, &body, &len);
        if (r < 0)
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                       "cannot read the SandboxSpec on standard input: %s",
                                       r == -EFBIG ? "too large" : strerror(-r));
        if ((r = serve_spec_parse(body, len, &h->spec, err)) < 0)
                return r;
        if (h->spec.session_id) {
                h->session_id = strdup(h->spec.session_id);
                return h->session_id ? 0 : -ENOMEM;
        }
        uint8_t b[8];
        if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
                return serve_error_set(err, SERVE_ERR_IO, "getrandom: %m");
        if (asprintf(&h->session_id, "session-%02x%02x%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                     b[3], b[4], b[5], b[6], b[7]) < 0)
                return -ENOMEM;
        return 0;
}

/* The record a restarted daemon re-adopts the session by, replaced atomically. */
static int write_record(const struct holder *h, struct serve_error *err)
{
        uint64_t start = 0;
        int r = holder_proc_start_time(getpid(), &start);
        if (r < 0)
                return serve_error_set(err, SERVE_ERR_IO, "our start time: %s", strerror(-r));
        _cleanup_json_ json_t *j = json_pack(
            "{s:i,s:s,s:s,s:i,s:I,s:s,s:s,s:I}", "version", 1, "name", h->name, "session_id",
            h->session_id, "holder_pid", (int)getpid(), "holder_start", (json_int_t)start, "socket",
            h->socket_path, "backend", HOLDER_BACKEND_NAME, "created", (json_int_t)time(NULL));
        _cleanup_free_ char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        _cleanup_free_ char *tmp = NULL, *path = NULL;
        if (!text || asprintf(&tmp, "%s/." HOLDER_RECORD_FILE ".tmp", h->state_dir) < 0 ||
            asprintf(&path, "%s/" HOLDER_RECORD_FILE, h->state_dir) < 0)
                return -ENOMEM;
        /* Replaced by a rename, so a daemon never reads half of one; not fsync'd: the record
         * names a live process, and none survives the crash of the machine that fsync would
         * guard against (one took 331 ms of a start on a busy disk). A record left by a crash
         * names a dead holder and is cleaned up by the next daemon. */
        _cleanup_close_ int fd =
            open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || write_all(fd, text, strlen(text)) < 0 || rename(tmp, path) < 0) {
                r = -errno;
                (void)unlink(tmp);
                return serve_error_set(err, SERVE_ERR_IO, "cannot write '%s': %s", path,
                                       strerror(-r));
        }
        return 0;
}

/* One frame on fd 3, then it is closed: the daemon reads the outcome of the start. */
static void ready(json_t *msg)
{
        _cleanup_json_ json_t *j = msg;
        _cleanup_free_ char *frame = NULL;
        size_t len = 0;
        if (!j || holder_frame_encode(j, &frame, &len) < 0 || write_all(READY_FD, frame, len) < 0)
                log_error("cannot say the outcome of the start on fd %d", READY_FD);
        (void)close(READY_FD);
}

static int on_signal(int fd, uint32_t events, void *userdata)
{
        struct holder *h = userdata;
        struct signalfd_siginfo si;
        (void)events;
        if (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                log_info("signal %u: ending the session", si.ssi_signo);
                h->quit = true;
                serve_loop_quit(h->loop);
        }
        return 0;
}

/* The sandbox ended by itself (killed): nothing is left to hold. */
static void sandbox_ended(struct holder *h, int r)
{
        if (r < 0)
                log_error("supervising the session failed: %s", strerror(-r));
        else
                log_info("the session's sandbox has ended");
        h->state = SERVE_TERMINATED;
        h->quit = true;
        serve_loop_quit(h->loop);
}

static int on_sandbox(int fd, uint32_t events, void *userdata)
{
        struct holder *h = userdata;
        (void)fd;
        (void)events;
        int r = cordon_sandbox_process(h->sb);
        h->sb_turned = true;
        if (r != 0)
                sandbox_ended(h, r);
        return 0;
}

static int64_t on_timeout(void *userdata)
{
        struct holder *h = userdata;
        uint64_t sb = UINT64_MAX;
        int64_t best = -1;
        if (cordon_sandbox_get_timeout(h->sb, &sb) >= 0 && sb != UINT64_MAX)
                best = (int64_t)(sb > INT64_MAX ? INT64_MAX : sb);
        int64_t t[] = {holder_exec_timeout(h), holder_session_idle_timeout(h)};
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                if (t[i] >= 0 && (best < 0 || t[i] < best))
                        best = t[i];
        return best < 0 ? -1 : (best + 999) / 1000;
}

static int on_tick(void *userdata)
{
        struct holder *h = userdata;
        int r = cordon_sandbox_process(h->sb);
        if (r != 0) {
                sandbox_ended(h, r);
                return 0;
        }
        holder_exec_tick(h);
        holder_session_idle_check(h);
        return 0;
}

static void cleanup(struct holder *h, const char *state_real)
{
        holder_exec_free_all(h);
        holder_session_free(h);
        holder_ops_close(h);
        if (state_real)
                remove_tree_physical(state_real);
}

int main(int argc, char **argv)
{
        if (stdio_open_missing() < 0)
                return 125;
        static struct holder h = {.conn = {.fd = -EBADF},
                                  .listen = {.fd = -EBADF, .lock_fd = -EBADF}};
        int r = parse_args(argc, argv, &h);
        if (r <= 0)
                return r < 0 ? 2 : 0;
        if (fcntl(READY_FD, F_SETFD, FD_CLOEXEC) < 0) {
                log_error("fd %d (the ready pipe) is not open", READY_FD);
                return 2;
        }
        umask(0077);
        signal(SIGPIPE, SIG_IGN);
        /* A session of our own: the daemon's end (its process group, its terminal) is not ours. */
        (void)setsid();
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGHUP);
        sigprocmask(SIG_BLOCK, &set, NULL);

        struct serve_error err = {.kind = SERVE_ERR_IO};
        snprintf(err.message, sizeof(err.message), "out of memory");
        _cleanup_free_ char *state_real = NULL;
        _cleanup_close_ int sfd = -EBADF;
        bool made = false;
        r = read_spec(&h, &err);
        /* No descriptor of the daemon's but stderr is kept (nor passed to the sandbox, whose
         * processes live longer than a pipe's reader): stdin and stdout are /dev/null. */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0) {
                log_error("cannot put /dev/null on stdin and stdout: %m");
                return 1;
        }
        safe_close(null);
        if (r >= 0)
                r = make_state_dir(&h, &state_real, &made, &err);
        if (r >= 0) {
                h.state_dir = state_real;
                if (chdir(h.root) < 0)
                        r = serve_error_set(&err, SERVE_ERR_IO, "chdir '%s': %m", h.root);
        }
        if (r >= 0 && (r = serve_loop_new(&h.loop)) < 0)
                serve_error_set(&err, SERVE_ERR_IO, "the event loop: %s", strerror(-r));
        if (r >= 0)
                r = holder_session_start(&h, &err);
        if (r >= 0 && (r = serve_loop_add(h.loop, cordon_sandbox_get_fd(h.sb), EPOLLIN, on_sandbox,
                                          &h, &h.sb_source)) < 0)
                serve_error_set(&err, SERVE_ERR_IO, "the session's loop: %s", strerror(-r));
        if (r >= 0 && (sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
                r = serve_error_set(&err, SERVE_ERR_IO, "signalfd: %m");
        if (r >= 0)
                r = serve_loop_add(h.loop, sfd, EPOLLIN, on_signal, &h, NULL);
        if (r >= 0)
                r = holder_ops_listen(&h, &err);
        if (r >= 0)
                r = write_record(&h, &err);
        if (r < 0) {
                log_error("the session does not start: %s", err.message);
                json_t *e = holder_reply_error(1, &err);
                json_t *inner = e ? json_incref(json_object_get(e, "error")) : NULL;
                json_decref(e);
                ready(inner ? json_pack("{s:b,s:o}", "ok", 0, "error", inner) : NULL);
                /* What this start made goes; a directory it was given stays the daemon's. */
                cleanup(&h, made ? state_real : NULL);
                serve_loop_free(h.loop);
                serve_spec_clear(&h.spec);
                return 1;
        }
        log_info("session %s (%s) ready on %s", h.name, cordon_backend_to_string(h.backend),
                 h.socket_path);
        /* From here on the daemon may come and go: stderr stays what it gave (its log, or
         * /dev/null), nothing else of its is held. */
        ready(json_pack("{s:b,s:o}", "ok", 1, "result", holder_session_view(&h)));

        serve_loop_set_tick(h.loop, on_timeout, on_tick, &h);
        r = serve_loop_run(h.loop);
        if (r < 0)
                log_error("the holder stops: %s", strerror(-r));
        cleanup(&h, state_real);
        serve_loop_free(h.loop);
        serve_spec_clear(&h.spec);
        free(h.session_id);
        free(h.root);
        return r < 0 ? 1 : 0;
}
