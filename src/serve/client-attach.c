/* cordon session attach: a command on a pty in a session, our terminal connected to it. One
 * thread, one curl multi handle: the process's output stream (NDJSON, reconnected with the last
 * seq when the connection breaks, so nothing is lost or repeated), our keys (one stdin request
 * in flight at a time, so they arrive in order), the window size on SIGWINCH, and the signals
 * that end us, read from a signalfd beside standard input in curl_multi_poll(). */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "serve/client-http.h"
#include "serve/client-wire.h"
#include "serve/client.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"

#define INPUT_MAX         (1u << 20)  /* bytes of keys held while the daemon takes them */
#define INPUT_CHUNK       (64u << 10) /* bytes of one stdin request */
#define RETRY_MIN_MS      50          /* the first wait before a broken stream is reconnected */
#define RETRY_MAX_MS      1000        /* the longest */
#define RECONNECT_GIVE_UP 30000       /* ms of a stream that cannot be reconnected: give up */
#define INPUT_RETRY_MS    200

/* The terminal as we found it, put back by every way out: the end of attach, exit(), a signal we
 * die of (read from the signalfd), a crash (on_crash()). */
static struct termios saved_termios;
static volatile sig_atomic_t terminal_is_raw;

static void terminal_restore(void)
{
        if (terminal_is_raw) {
                tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_termios);
                terminal_is_raw = 0;
        }
}

/* A crash: tcsetattr() is async-signal-safe; then the signal's own action. */
static void on_crash(int sig)
{
        if (terminal_is_raw)
                tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_termios);
        signal(sig, SIG_DFL);
        raise(sig);
}

static void terminal_raw(void)
{
        static bool hooked;
        struct termios raw;
        if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &raw) < 0)
                return;
        if (!hooked) {
                atexit(terminal_restore);
                static const int crashes[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
                for (size_t i = 0; i < ELEMENTSOF(crashes); i++)
                        signal(crashes[i], on_crash);
                hooked = true;
        }
        if (!terminal_is_raw)
                saved_termios = raw;
        cfmakeraw(&raw);
        terminal_is_raw = 1;
        tcsetattr(STDIN_FILENO, TCSADRAIN, &raw);
}

static bool window_size(unsigned *rows, unsigned *cols)
{
        struct winsize ws;
        for (int fd = STDIN_FILENO; fd <= STDOUT_FILENO; fd++)
                if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
                        *rows = ws.ws_row;
                        *cols = ws.ws_col;
                        return true;
                }
        return false;
}

static uint64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct attach {
        const char *socket;
        char *proc_path; /* /v1/sessions/ID/processes/PID */
        CURLM *multi;

        struct client_request *stream;
        struct client_lines lines;
        uint64_t last_seq, stream_retry_at, broken_since;
        unsigned delay_ms;
        bool progress; /* a record came on the current connection */

        struct client_request *input;
        char *in;
        size_t in_len, input_sent;
        bool in_eof, eof_sent, input_eof, input_dead;
        uint64_t input_retry_at;

        struct client_request *resize;
        bool resize_pending;

        bool done, timed_out;
        int64_t exit_code;
        int term_sig;
        char fatal[CLIENT_TEXT_MAX * 5];
};

static int on_line(const char *line, size_t len, void *userdata)
{
        struct attach *st = userdata;
        struct client_record rec;
        int r = client_record_parse(line, len, &rec);
        if (r < 0) {
                snprintf(st->fatal, sizeof(st->fatal),
                         "the daemon's output stream holds a malformed record");
                return -EPROTO;
        }
        st->progress = true;
        st->broken_since = 0;
        st->delay_ms = RETRY_MIN_MS;
        if (rec.kind == CLIENT_RECORD_ERROR) {
                snprintf(st->fatal, sizeof(st->fatal), "%s", rec.error);
                return -EPROTO;
        }
        if (rec.seq <= st->last_seq) { /* seen before the connection broke */
                client_record_clear(&rec);
                return 0;
        }
        st->last_seq = rec.seq;
        if (rec.kind == CLIENT_RECORD_EXIT) {
                st->done = true;
                st->exit_code = rec.exit_code;
                st->timed_out = rec.timed_out;
                return 0;
        }
        r = write_all(rec.to_stderr ? STDERR_FILENO : STDOUT_FILENO, rec.data, rec.len);
        client_record_clear(&rec);
        if (r < 0) {
                snprintf(st->fatal, sizeof(st->fatal), "cannot write the output: %s", strerror(-r));
                return -EPROTO;
        }
        return 0;
}

static int on_stream_data(const char *data, size_t n, void *userdata)
{
        struct attach *st = userdata;
        return client_lines_feed(&st->lines, data, n, on_line, st);
}

static int start(struct attach *st, struct client_request **slot, const char *method,
                 const char *suffix, char *body)
{
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s%s", st->proc_path, suffix) < 0) {
                free(body);
                return -ENOMEM;
        }
        int r = client_request_new(st->socket, method, path, body, slot);
        if (r < 0)
                return r;
        if (curl_multi_add_handle(st->multi, (*slot)->easy) != CURLM_OK) {
                *slot = client_request_free(*slot);
                return -ENOMEM;
        }
        return 0;
}

static int stream_start(struct attach *st)
{
        char suffix[64];
        snprintf(suffix, sizeof(suffix), "/output?after_seq=%" PRIu64, st->last_seq);
        int r = start(st, &st->stream, "GET", suffix, NULL);
        if (r >= 0) {
                st->stream->on_data = on_stream_data;
                st->stream->userdata = st;
                st->progress = false;
        }
        return r;
}

/* The stream ended: at the exit record, else reconnect (at once after a clean end that brought
 * records, after a growing wait otherwise) or give up. */
static void stream_done(struct attach *st, struct client_request *req, CURLcode code)
{
        char err[512];
        int r = client_request_result(req, code, err, sizeof(err));
        unsigned status = req->answer.status;
        client_lines_clear(&st->lines); /* a cut line comes again, whole */
        if (st->done || st->fatal[0])
                return;
        uint64_t now = now_ms();
        if (r == 0 && (status < 200 || status > 299)) {
                client_error_line(status, req->answer.body, req->answer.len, st->fatal,
                                  sizeof(st->fatal));
                return;
        }
        bool broken =
            r == -EPIPE || r == -ECONNREFUSED || r == -ENOENT || r == -ETIMEDOUT || r == -EAGAIN;
        if (r < 0 && !broken) {
                snprintf(st->fatal, sizeof(st->fatal), "%s", err);
                return;
        }
        if (r == 0 && st->progress) {
                st->stream_retry_at = now;
                return;
        }
        if (broken) {
                if (!st->broken_since)
                        st->broken_since = now;
                if (now - st->broken_since > RECONNECT_GIVE_UP) {
                        snprintf(st->fatal, sizeof(st->fatal), "%s (gave up after %d s)", err,
                                 RECONNECT_GIVE_UP / 1000);
                        return;
                }
        }
        st->stream_retry_at = now + st->delay_ms;
        st->delay_ms = st->delay_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : st->delay_ms * 2;
}

static int input_start(struct attach *st)
{
        size_t n = st->in_len < INPUT_CHUNK ? st->in_len : INPUT_CHUNK;
        bool eof = st->in_eof && n == st->in_len;
        char *body = client_stdin_body(st->in, n, eof);
        if (!body)
                return -ENOMEM;
        st->input_sent = n;
        st->input_eof = eof;
        return start(st, &st->input, "POST", "/stdin", body);
}

/* Keys taken are dropped from the buffer; a daemon out of reach gets them again later; a
 * refusal (the process has ended) ends the input. */
static void input_done(struct attach *st, struct client_request *req, CURLcode code)
{
        char err[512];
        int r = client_request_result(req, code, err, sizeof(err));
        unsigned status = req->answer.status;
        if (r == 0 && status >= 200 && status <= 299) {
                memmove(st->in, st->in + st->input_sent, st->in_len - st->input_sent);
                st->in_len -= st->input_sent;
                st->eof_sent = st->input_eof;
        } else if (r == 0) {
                st->input_dead = true;
                st->in_len = 0;
        } else
                st->input_retry_at = now_ms() + INPUT_RETRY_MS;
}

static int resize_start(struct attach *st)
{
        unsigned rows, cols;
        st->resize_pending = false;
        if (!window_size(&rows, &cols))
                return 0;
        char *body = client_resize_body(rows, cols);
        if (!body)
                return -ENOMEM;
        return start(st, &st->resize, "POST", "/resize", body);
}

static void read_input(struct attach *st)
{
        size_t space = INPUT_MAX - st->in_len;
        ssize_t n =
            read(STDIN_FILENO, st->in + st->in_len, space < INPUT_CHUNK ? space : INPUT_CHUNK);
        if (n > 0)
                st->in_len += (size_t)n;
        else if (n == 0 || (errno != EAGAIN && errno != EINTR))
                st->in_eof = true; /* EOF, or EIO: the terminal hung up */
}

static void read_signals(struct attach *st, int sfd)
{
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                switch (si.ssi_signo) {
                case SIGWINCH:
                        st->resize_pending = true;
                        break;
                case SIGTSTP:
                        /* Stopped from outside: the terminal as it was while we are stopped. */
                        terminal_restore();
                        kill(getpid(), SIGSTOP);
                        terminal_raw();
                        st->resize_pending = true;
                        break;
                case SIGCONT:
                        terminal_raw();
                        st->resize_pending = true;
                        break;
                default:
                        st->term_sig = (int)si.ssi_signo;
                        break;
                }
        }
}

/* The process's id from the processes route's answer: a string, or a number. */
static int process_id(const json_t *j, char *buf, size_t size)
{
        json_t *p = json_object_get(j, "process_id");
        if (json_is_string(p) && json_string_length(p) > 0 && json_string_length(p) < size &&
            strlen(json_string_value(p)) == json_string_length(p)) {
                snprintf(buf, size, "%s", json_string_value(p));
                return 0;
        }
        if (json_is_integer(p)) {
                snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(p));
                return 0;
        }
        return -EBADMSG;
}

static void finish(struct attach *st, struct client_request **slot)
{
        if (*slot)
                curl_multi_remove_handle(st->multi, (*slot)->easy);
        *slot = client_request_free(*slot);
}

/* The loop: until the exit record, a fatal error or a signal that ends us. */
static int run(struct attach *st, int sfd)
{
        while (!st->done && !st->fatal[0] && !st->term_sig) {
                uint64_t now = now_ms();
                int r = 0;
                if (!st->stream && now >= st->stream_retry_at)
                        r = stream_start(st);
                if (r >= 0 && !st->input && !st->input_dead &&
                    (st->in_len > 0 || (st->in_eof && !st->eof_sent)) && now >= st->input_retry_at)
                        r = input_start(st);
                if (r >= 0 && !st->resize && st->resize_pending)
                        r = resize_start(st);
                if (r < 0)
                        return r;

                struct curl_waitfd fds[2] = {{.fd = sfd, .events = POLLIN}};
                unsigned n = 1;
                if (!st->in_eof && !st->input_dead && st->in_len < INPUT_MAX)
                        fds[n++] = (struct curl_waitfd){.fd = STDIN_FILENO, .events = POLLIN};
                /* Woken by curl, a signal, a key, or the next retry that is due. */
                uint64_t wake = now + 1000;
                if (!st->stream && st->stream_retry_at < wake)
                        wake = st->stream_retry_at;
                if (!st->input && st->input_retry_at > now && st->input_retry_at < wake)
                        wake = st->input_retry_at;
                int timeout = wake > now ? (int)(wake - now) : 0;
                if (curl_multi_poll(st->multi, fds, n, timeout, NULL) != CURLM_OK)
                        return -EIO;
                if (fds[0].revents)
                        read_signals(st, sfd);
                if (n > 1 && fds[1].revents)
                        read_input(st);
                int running;
                curl_multi_perform(st->multi, &running);
                CURLMsg *msg;
                int queued;
                while ((msg = curl_multi_info_read(st->multi, &queued))) {
                        if (msg->msg != CURLMSG_DONE)
                                continue;
                        CURL *e = msg->easy_handle;
                        CURLcode code = msg->data.result;
                        if (st->stream && e == st->stream->easy) {
                                stream_done(st, st->stream, code);
                                finish(st, &st->stream);
                        } else if (st->input && e == st->input->easy) {
                                input_done(st, st->input, code);
                                finish(st, &st->input);
                        } else if (st->resize && e == st->resize->easy) {
                                char err[512];
                                if (client_request_result(st->resize, code, err, sizeof(err)) < 0)
                                        st->resize_pending = true; /* again when it is back */
                                finish(st, &st->resize);
                        }
                }
        }
        return 0;
}

int client_attach(struct client_args *a, const char *socket, int *ret_status)
{
        _cleanup_free_ char *sid = client_session_path(a->id, "/processes");
        char *body = client_exec_body(a);
        if (!sid || !body) {
                free(body);
                return -ENOMEM;
        }
        _cleanup_json_ json_t *j = NULL;
        int r = client_call(socket, "POST", sid, body, &j);
        if (r < 0)
                return r;
        char pid[256];
        _cleanup_free_ char *epid = NULL;
        if (process_id(j, pid, sizeof(pid)) < 0) {
                client_fail("the daemon's answer has no process_id");
                return -EBADMSG;
        }
        struct attach st = {.socket = socket, .delay_ms = RETRY_MIN_MS};
        epid = client_path_escape(pid);
        st.in = malloc(INPUT_MAX);
        st.multi = curl_multi_init();
        if (!epid || !st.in || !st.multi || asprintf(&st.proc_path, "%s/%s", sid, epid) < 0) {
                free(st.in);
                if (st.multi)
                        curl_multi_cleanup(st.multi);
                return -ENOMEM;
        }

        /* The signals that end us, the window's size, stops: read in the loop. */
        sigset_t set, old;
        sigemptyset(&set);
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGTSTP, SIGCONT};
        for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
                sigaddset(&set, sigs[i]);
        sigprocmask(SIG_BLOCK, &set, &old);
        _cleanup_close_ int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sfd < 0)
                r = -errno;
        else {
                terminal_raw();
                st.resize_pending = true;
                r = run(&st, sfd);
        }
        finish(&st, &st.stream);
        finish(&st, &st.input);
        finish(&st, &st.resize);
        curl_multi_cleanup(st.multi);
        client_lines_clear(&st.lines);
        free(st.in);
        /* The terminal first: nothing below may leave it raw, a daemon that hangs included. */
        terminal_restore();
        if (st.term_sig) {
                /* We are going away: to the process that is a hangup, as when a terminal
                 * closes. */
                struct client_answer ans = {};
                char err[512];
                _cleanup_free_ char *path = NULL;
                char *sb = client_signal_body(SIGHUP);
                if (sb && asprintf(&path, "%s/signal", st.proc_path) >= 0 &&
                    client_http_request(socket, "POST", path, TAKE_PTR(sb), &ans, err,
                                        sizeof(err)) >= 0)
                        client_answer_clear(&ans);
                free(sb);
        }
        free(st.proc_path);
        if (st.term_sig) {
                signal(st.term_sig, SIG_DFL);
                sigprocmask(SIG_SETMASK, &old, NULL);
                raise(st.term_sig);
                *ret_status = 128 + st.term_sig;
                return 0;
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (r < 0)
                client_fail("attach: %s", strerror(-r));
        else if (st.fatal[0]) {
                client_fail("%s", st.fatal);
                r = -EPROTO;
        } else
                *ret_status = client_exit_status(st.exit_code, st.timed_out);
        return r;
}
