/* cordon-slurm-stub: what sbatch, srun, squeue and Slurm's other commands are inside a sandbox
 * (SLURM_SCOPE). It sends the call (its arguments, working directory and a few variables) to the
 * chaperon on the host over the doorbell the sandbox inherited (CORDON_SLURM_FD), reads the files
 * the chaperon asks for with the sandbox's own eyes (a batch script), and relays the answer: the
 * real command's output and exit status. It never reaches Slurm itself. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/slurm/slurm-names.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/sanitizer.h"

/* The variables a call carries (for the real command's output, never its options: SBATCH_*,
 * SLURM_* and the like set options and stay behind). */
static const char *const env_names[] = {"LANG",    "LC_ALL",     "LC_CTYPE", "LC_MESSAGES",
                                        "LC_TIME", "LC_NUMERIC", "TZ",       "TERM",
                                        "COLUMNS", NULL};

static const char *prog = "slurm";

#ifdef CORDON_ASAN
/* The stub runs inside a sandbox, where LeakSanitizer's tracer cannot attach to it: its report
 * would be a fatal error of its own at every call's end, whatever ASAN_OPTIONS says (which the
 * sanitizer's default options give way to). The host's programs keep it. */
__attribute__((visibility("default"))) int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
        return 1;
}
#endif

_printf_(1, 2) static int fail(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s (cordon): ", prog);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        return 1;
}

static int send_msg(int fd, char type, const void *data, size_t len)
{
        char buf[1 + CORDON_CHAPERON_CHUNK];
        if (len > CORDON_CHAPERON_CHUNK)
                return -E2BIG;
        buf[0] = type;
        if (len)
                memcpy(buf + 1, data, len);
        for (;;) {
                ssize_t n = send(fd, buf, 1 + len, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                return n < 0 ? -errno : 0;
        }
}

/* @data in pieces: @more for each but the last, @last for the last (also when empty). */
static int send_pieces(int fd, char more, char last, const char *data, size_t len)
{
        while (len > CORDON_CHAPERON_CHUNK) {
                int r = send_msg(fd, more, data, CORDON_CHAPERON_CHUNK);
                if (r < 0)
                        return r;
                data += CORDON_CHAPERON_CHUNK;
                len -= CORDON_CHAPERON_CHUNK;
        }
        return send_msg(fd, last, data, len);
}

/* The doorbell's descriptor, checked: a SOCK_SEQPACKET unix socket. */
static int doorbell_fd(void)
{
        const char *v = getenv(CORDON_SLURM_FD_ENV);
        if (!v || !*v) {
                fail("this is cordon's stand-in for Slurm's %s, but %s is not set: the call has "
                     "no way to the chaperon (run it from a process of the sandbox that kept "
                     "its environment)",
                     prog, CORDON_SLURM_FD_ENV);
                return -1;
        }
        char *end = NULL;
        errno = 0;
        long fd = strtol(v, &end, 10);
        int type = 0;
        socklen_t len = sizeof(type);
        struct stat st;
        if (errno || *end || fd < 3 || fd > INT_MAX || fstat((int)fd, &st) < 0 ||
            !S_ISSOCK(st.st_mode) || getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
            type != SOCK_SEQPACKET) {
                fail("the chaperon's descriptor %s=%s is not open here: a program between the "
                     "sandbox's first process and this one closed the descriptors it inherited "
                     "(Python's subprocess does so unless given pass_fds); call %s from a shell "
                     "of the sandbox, or keep descriptor %s open",
                     CORDON_SLURM_FD_ENV, v, prog, v);
                return -1;
        }
        return (int)fd;
}

static char *request_json(int argc, char **argv)
{
        json_t *req = json_object(), *args = json_array(), *env = json_object();
        char cwd[PATH_MAX];
        if (!req || !args || !env || !getcwd(cwd, sizeof(cwd))) {
                json_decref(req);
                json_decref(args);
                json_decref(env);
                return NULL;
        }
        json_object_set_new(req, "argv", args);
        json_object_set_new(req, "env", env);
        json_object_set_new(req, "cwd", json_string(cwd));
        for (int i = 0; i < argc; i++) {
                json_t *s = json_string(i == 0 ? prog : argv[i]);
                if (!s) {
                        fail("argument %d is not valid UTF-8 text", i);
                        json_decref(req);
                        return NULL;
                }
                json_array_append_new(args, s);
        }
        for (const char *const *n = env_names; *n; n++) {
                const char *v = getenv(*n);
                json_t *s = v ? json_string(v) : NULL;
                if (s)
                        json_object_set_new(env, *n, s);
        }
        char *text = json_dumps(req, JSON_COMPACT);
        json_decref(req);
        return text;
}

/* Sends the file the chaperon asked for, read here as the sandbox sees it. */
static int send_file(int fd, const char *path)
{
        int in = streq(path, "-") ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (in < 0) {
                char e[16];
                snprintf(e, sizeof(e), "%d", errno);
                return send_msg(fd, CORDON_CHAPERON_FILE_ERROR, e, strlen(e));
        }
        char buf[CORDON_CHAPERON_CHUNK];
        size_t total = 0;
        int r = 0;
        for (;;) {
                ssize_t n = read(in, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        char e[16];
                        snprintf(e, sizeof(e), "%d", errno);
                        r = send_msg(fd, CORDON_CHAPERON_FILE_ERROR, e, strlen(e));
                        break;
                }
                if (n == 0) {
                        r = send_msg(fd, CORDON_CHAPERON_FILE_END, NULL, 0);
                        break;
                }
                total += (size_t)n;
                if (total > CORDON_CHAPERON_FILE_MAX) {
                        char e[16];
                        snprintf(e, sizeof(e), "%d", EFBIG);
                        r = send_msg(fd, CORDON_CHAPERON_FILE_ERROR, e, strlen(e));
                        break;
                }
                if ((r = send_msg(fd, CORDON_CHAPERON_FILE_DATA, buf, (size_t)n)) < 0)
                        break;
        }
        if (in != STDIN_FILENO)
                close(in);
        return r;
}

static int write_all_fd(int fd, const char *p, size_t n)
{
        while (n > 0) {
                ssize_t k = write(fd, p, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return -1;
                p += k;
                n -= (size_t)k;
        }
        return 0;
}

int main(int argc, char **argv)
{
        const char *base = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
        base = base ? base + 1 : (argc > 0 && argv[0] ? argv[0] : "");
        bool known = false;
        for (const char *const *n = cordon_slurm_command_names(); *n && !known; n++)
                known = streq(*n, base);
        if (!known)
                return fail("called as '%.64s', which is none of Slurm's commands this stands in "
                            "for",
                            base),
                       2;
        prog = base;
        int doorbell = doorbell_fd();
        if (doorbell < 0)
                return 1;
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return fail("cannot make a socket for the call: %m");
        int r = fd_send(doorbell, CORDON_CHAPERON_RING, sv[1]);
        close(sv[1]);
        if (r < 0)
                return fail("cannot reach the chaperon: %s", strerror(-r));
        char *req = request_json(argc, argv);
        if (!req)
                return fail("cannot put the call into words (out of memory, or no working "
                            "directory)");
        if (strlen(req) > CORDON_CHAPERON_REQUEST_MAX) {
                free(req);
                return fail("the call is too long (over %u bytes)", CORDON_CHAPERON_REQUEST_MAX);
        }
        r = send_pieces(sv[0], CORDON_CHAPERON_REQ_MORE, CORDON_CHAPERON_REQ_END, req, strlen(req));
        free(req);
        if (r < 0)
                return fail("cannot send the call to the chaperon: %s", strerror(-r));
        static char buf[1 + CORDON_CHAPERON_CHUNK + 1];
        for (;;) {
                ssize_t n = recv(sv[0], buf, sizeof(buf) - 1, MSG_TRUNC);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return fail("the chaperon's answer was lost: %m");
                if (n == 0)
                        return fail("the chaperon ended before it answered"), 125;
                if ((size_t)n > sizeof(buf) - 1)
                        return fail("the chaperon's answer is malformed (a message of %zd bytes)",
                                    n),
                               125;
                size_t len = (size_t)n - 1;
                char *data = buf + 1;
                switch (buf[0]) {
                case CORDON_CHAPERON_OUT:
                case CORDON_CHAPERON_ERR:
                        (void)write_all_fd(buf[0] == CORDON_CHAPERON_OUT ? STDOUT_FILENO
                                                                         : STDERR_FILENO,
                                           data, len);
                        break;
                case CORDON_CHAPERON_FILE_ASK:
                        data[len] = 0;
                        if (strlen(data) != len || (r = send_file(sv[0], data)) < 0)
                                return fail("cannot send the file the chaperon asked for"), 125;
                        break;
                case CORDON_CHAPERON_EXIT: {
                        data[len] = 0;
                        char *end = NULL;
                        long st = strtol(data, &end, 10);
                        if (!len || *end || st < 0 || st > 255)
                                return fail("the chaperon's exit status is malformed"), 125;
                        return (int)st;
                }
                default:
                        return fail("the chaperon's answer is malformed (type %d)", buf[0]), 125;
                }
        }
}
