/* cordon-session: `cordon session create|ls|exec|attach|snapshot|suspend|resume|rm`, a client of
 * cordon-serve's HTTP API over its unix socket (issue 26). A program of its own, so that
 * `cordon run` pays nothing for HTTP: `cordon session` execs it. This file: the command line's
 * outcome, the socket's path, and every command but attach (client-attach.c). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "serve/client-args.h"
#include "serve/client.h"
#include "serve/client-http.h"
#include "serve/client-wire.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"

#define EXIT_USAGE 2

_printf_(1, 2) void client_fail(const char *fmt, ...)
{
        char buf[4096];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        fprintf(stderr, "cordon session: %s\n", buf);
}

/* The daemon's socket: --socket, else $XDG_RUNTIME_DIR/cordon/serve.sock. */
static int socket_path(const char *given, char **ret)
{
        if (given) {
                *ret = strdup(given);
                return *ret ? 0 : -ENOMEM;
        }
        const char *run = getenv("XDG_RUNTIME_DIR");
        if (!run || *run != '/') {
                client_fail("XDG_RUNTIME_DIR is not set to an absolute path: give cordon-serve's "
                            "socket with --socket PATH");
                return -EINVAL;
        }
        return asprintf(ret, "%s/cordon/serve.sock", run) < 0 ? -ENOMEM : 0;
}

int client_call(const char *socket, const char *method, const char *path, char *body, json_t **ret)
{
        struct client_answer a = {};
        char err[512];
        int r = client_http_request(socket, method, path, body, &a, err, sizeof(err));
        if (r < 0) {
                client_fail("%s", err);
                return r;
        }
        if (a.status < 200 || a.status > 299) {
                char line[CLIENT_TEXT_MAX * 5];
                client_error_line(a.status, a.body, a.len, line, sizeof(line));
                client_fail("%s", line);
                client_answer_clear(&a);
                return -EPROTO;
        }
        if (ret) {
                json_error_t je;
                *ret = a.body ? json_loadb(a.body, a.len, 0, &je) : NULL;
                if (!*ret) {
                        client_fail("the daemon's answer to %s %s is not JSON", method, path);
                        client_answer_clear(&a);
                        return -EBADMSG;
                }
        }
        client_answer_clear(&a);
        return 0;
}

/* "/v1/sessions/ID" with @id escaped, then @suffix. */
char *client_session_path(const char *id, const char *suffix)
{
        _cleanup_free_ char *e = client_path_escape(id);
        char *p;
        if (!e || asprintf(&p, "/v1/sessions/%s%s", e, suffix) < 0)
                return NULL;
        return p;
}

/* Prints @j as one line of compact JSON. */
static int print_json(const json_t *j)
{
        _cleanup_free_ char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!s)
                return -ENOMEM;
        printf("%s\n", s);
        return 0;
}

/* The string @key of the answer object @j, or NULL (after saying so). */
static const char *answer_string(const json_t *j, const char *key, const char *what)
{
        const char *s = json_string_value(json_object_get(j, key));
        if (!s)
                client_fail("the daemon's %s has no string \"%s\"", what, key);
        return s;
}

static int cmd_create(const struct client_args *a, const char *socket)
{
        _cleanup_json_ json_t *j = NULL;
        char *body = client_spec_body(a);
        if (!body)
                return -ENOMEM;
        int r = client_call(socket, "POST", "/v1/sessions", body, &j);
        if (r < 0)
                return r;
        if (a->json)
                return print_json(j);
        const char *id = answer_string(j, "id", "SandboxSession");
        if (!id)
                return -EBADMSG;
        printf("%s\n", id);
        return 0;
}

static int cmd_ls(const struct client_args *a, const char *socket)
{
        _cleanup_json_ json_t *j = NULL;
        int r = client_call(socket, "GET", "/v1/sessions", NULL, &j);
        if (r < 0)
                return r;
        if (a->json)
                return print_json(j);
        if (client_sessions_table(j, stdout) < 0) {
                client_fail("the daemon's session list is not a list of SandboxSession");
                return -EBADMSG;
        }
        return 0;
}

/* --stdin-file: the file's text (or ours for "-") into the request. */
static int read_stdin_file(struct client_args *a)
{
        _cleanup_free_ char *data = NULL;
        size_t len;
        int r = read_full_file_or_stdin(a->stdin_file, SERVE_BODY_MAX, &data, &len);
        if (r == -EFBIG) {
                client_fail("--stdin-file: '%s' is larger than the %u bytes a request may carry",
                            a->stdin_file, SERVE_BODY_MAX);
                return r;
        }
        if (r < 0) {
                client_fail("--stdin-file: cannot read '%s': %s", a->stdin_file, strerror(-r));
                return r;
        }
        /* ExecRequest.stdin is a string: bytes that are not UTF-8 cannot be sent as they are,
         * and are not sent changed. */
        if (!client_utf8_valid(data, len)) {
                client_fail("--stdin-file: '%s' is not UTF-8 text (ExecRequest.stdin is a string)",
                            a->stdin_file);
                return -EINVAL;
        }
        a->exec.stdin_data = TAKE_PTR(data);
        a->exec.stdin_len = len;
        return 0;
}

static int cmd_exec(struct client_args *a, const char *socket, int *ret_status)
{
        if (a->stdin_file) {
                int r = read_stdin_file(a);
                if (r < 0)
                        return r;
        }
        _cleanup_free_ char *path = client_session_path(a->id, "/exec");
        char *body = client_exec_body(a);
        if (!path || !body) {
                free(body);
                return -ENOMEM;
        }
        if (strlen(body) > SERVE_BODY_MAX) {
                free(body);
                client_fail("the request is larger than the %u bytes the daemon takes",
                            SERVE_BODY_MAX);
                return -EFBIG;
        }
        _cleanup_json_ json_t *j = NULL;
        int r = client_call(socket, "POST", path, body, &j);
        if (r < 0)
                return r;
        json_t *out = json_object_get(j, "stdout"), *err = json_object_get(j, "stderr"),
               *code = json_object_get(j, "exit_code"), *t = json_object_get(j, "timed_out");
        if (!json_is_string(out) || !json_is_string(err) || !json_is_integer(code) ||
            !json_is_boolean(t)) {
                client_fail("the daemon's answer is not an ExecResult");
                return -EBADMSG;
        }
        *ret_status = client_exit_status(json_integer_value(code), json_is_true(t));
        if (a->json)
                return print_json(j);
        fflush(stdout);
        r = write_all(STDOUT_FILENO, json_string_value(out), json_string_length(out));
        int r2 = write_all(STDERR_FILENO, json_string_value(err), json_string_length(err));
        if (r < 0 || r2 < 0) {
                client_fail("cannot write the command's output: %s", strerror(-(r < 0 ? r : r2)));
                return r < 0 ? r : r2;
        }
        return 0;
}

/* snapshot, suspend, resume, rm: one request on the session. */
static int cmd_session_op(const struct client_args *a, const char *socket)
{
        static const char *const suffix[] = {
            [CLIENT_SNAPSHOT] = "/snapshot",
            [CLIENT_SUSPEND] = "/suspend",
            [CLIENT_RESUME] = "/resume",
            [CLIENT_RM] = "",
        };
        bool rm = a->command == CLIENT_RM;
        _cleanup_free_ char *path = client_session_path(a->id, suffix[a->command]);
        if (!path)
                return -ENOMEM;
        _cleanup_json_ json_t *j = NULL;
        int r = client_call(socket, rm ? "DELETE" : "POST", path, NULL, rm ? NULL : &j);
        if (r < 0 || rm)
                return r;
        if (a->json)
                return print_json(j);
        if (a->command == CLIENT_SNAPSHOT) {
                const char *id = answer_string(j, "snapshot_id", "SandboxSnapshot");
                if (!id)
                        return -EBADMSG;
                printf("%s\n", id);
        }
        return 0;
}

int main(int argc, char **argv)
{
        if (stdio_open_missing() < 0)
                return 125;
        /* A reader of our output that goes away is a failed write, not a death. */
        signal(SIGPIPE, SIG_IGN);

        char cwd[PATH_MAX];
        struct client_args a;
        char err[512];
        int r = client_args_parse(argc, argv, getcwd(cwd, sizeof(cwd)), getenv("SHELL"), &a, err,
                                  sizeof(err));
        if (r == -ENOMEM) {
                client_fail("out of memory");
                client_args_clear(&a);
                return 1;
        }
        if (r < 0) {
                bool known = a.command != _CLIENT_COMMAND_MAX;
                client_fail("%s; see 'cordon session%s%s --help'", err, known ? " " : "",
                            known ? client_command_name(a.command) : "");
                client_args_clear(&a);
                return EXIT_USAGE;
        }
        if (a.version || a.help) {
                if (a.version)
                        printf("cordon-session %s\n", CORDON_VERSION);
                else
                        client_help(stdout, a.command);
                client_args_clear(&a);
                return 0;
        }

        _cleanup_free_ char *socket = NULL;
        int status = 0;
        r = socket_path(a.socket, &socket);
        if (r >= 0 && client_http_init() < 0) {
                client_fail("cannot initialise libcurl");
                r = -EIO;
        }
        if (r >= 0) {
                switch (a.command) {
                case CLIENT_CREATE:
                        r = cmd_create(&a, socket);
                        break;
                case CLIENT_LS:
                        r = cmd_ls(&a, socket);
                        break;
                case CLIENT_EXEC:
                        r = cmd_exec(&a, socket, &status);
                        break;
                case CLIENT_ATTACH:
                        r = client_attach(&a, socket, &status);
                        break;
                default:
                        r = cmd_session_op(&a, socket);
                        break;
                }
        }
        if (r == -ENOMEM)
                client_fail("out of memory");
        client_args_clear(&a);
        if (fflush(stdout) != 0 && r >= 0) {
                client_fail("cannot write the output: %m");
                r = -EIO;
        }
        return r < 0 ? 1 : status;
}
