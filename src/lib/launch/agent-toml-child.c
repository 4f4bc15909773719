/* agent-toml.h's functions in a confined child (agent-toml-child.h). The parent builds the
 * seccomp program and the child's input before fork(); the child confines itself, reads, parses
 * and answers on one socket (descriptor 0, its only one):
 *   input:  u64 text length, u64 want length (0 for to_json), the text, want's JSON text;
 *   answer: i32 status, u32 why length, u64 body length, why, body (the JSON of to_json, the
 *           edited text of edit).
 * The parent sends and reads at once (poll), so neither side waits on a full socket, bounds
 * what it reads and how long it waits, and trusts only a well-formed answer of a child that
 * exited with 0. */
#include "lib/launch/agent-toml-child.h"

#include <errno.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/mech/seccomp-filter.h"
#include "lib/policy/agent-json.h"
#include "lib/policy/agent-toml.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* The child's exit status when it could not confine itself. */
#define EXIT_UNCONFINED 125

void (*cordon_agent_toml_child_test_hook)(bool filtered);

struct header_in {
        uint64_t text_len, want_len;
};

struct header_out {
        int32_t status;
        uint32_t why_len;
        uint64_t body_len;
};

/* The child's filter: read and write on descriptor 0, memory that never becomes executable,
 * futex (libstdc++'s and glibc's locks), the ends of a process and of a signal handler;
 * anything else kills the process, as does a foreign architecture.
 * The sanitizer build's runtime in the child (range checks through a pipe of its own, its
 * report, the leak check at exit) makes calls no list can foresee, so there the filter is the
 * reverse, a deny list of what reaches anything outside (files, sockets, programs, processes);
 * the release build's tests run against the allow list. */
static int build_filter(struct cordon_bpf *ret)
{
#ifdef UNDER_ASAN
        const uint32_t fallback = SCMP_ACT_ALLOW, listed = SCMP_ACT_KILL_PROCESS;
        static const int calls[] = {
            SCMP_SYS(open),     SCMP_SYS(openat),  SCMP_SYS(openat2),   SCMP_SYS(creat),
            SCMP_SYS(socket),   SCMP_SYS(connect), SCMP_SYS(execve),    SCMP_SYS(execveat),
            SCMP_SYS(ptrace),   SCMP_SYS(kill),    SCMP_SYS(tgkill),    SCMP_SYS(unlink),
            SCMP_SYS(unlinkat), SCMP_SYS(rename),  SCMP_SYS(renameat2),
        };
#else
        const uint32_t fallback = SCMP_ACT_KILL_PROCESS, listed = SCMP_ACT_ALLOW;
        static const int calls[] = {
            SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(brk),        SCMP_SYS(madvise),
            SCMP_SYS(futex),  SCMP_SYS(exit),   SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn),
        };
#endif
        scmp_filter_ctx ctx = seccomp_init(fallback);
        if (!ctx)
                return -ENOMEM;
        int r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(calls); i++)
                r = seccomp_rule_add_exact(ctx, listed, calls[i], 0);
#ifndef UNDER_ASAN
        /* Descriptor 0 only, and no executable memory. */
        const struct {
                int nr;
                struct scmp_arg_cmp cmp;
        } with_arg[] = {
            {SCMP_SYS(read), SCMP_A0(SCMP_CMP_EQ, 0)},
            {SCMP_SYS(write), SCMP_A0(SCMP_CMP_EQ, 0)},
            {SCMP_SYS(mmap), SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)},
            {SCMP_SYS(mprotect), SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)},
        };
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(with_arg); i++)
                r = seccomp_rule_add_exact(ctx, SCMP_ACT_ALLOW, with_arg[i].nr, 1, with_arg[i].cmp);
#endif
        if (r >= 0)
                r = cordon_seccomp_export(ctx, ret);
        seccomp_release(ctx);
        return r;
}

static int read_exact(int fd, void *buf, size_t len)
{
        for (size_t done = 0; done < len;) {
                ssize_t n = read(fd, (char *)buf + done, len - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -EIO;
                done += (size_t)n;
        }
        return 0;
}

/* Everything but the socket closed, moved to 0; default signal handling; the limits;
 * no-new-privs, not dumpable, killed with the thread that forked it. No allocation. */
static int confine(int sock, pid_t parent, const struct cordon_bpf *bpf)
{
        if (sock != 0 && dup2(sock, 0) < 0)
                return -1;
        if (syscall(SYS_close_range, 1u, ~0u, 0u) < 0) {
                struct rlimit nofile;
                if (getrlimit(RLIMIT_NOFILE, &nofile) < 0)
                        return -1;
                for (rlim_t fd = 1; fd < nofile.rlim_cur && fd < (1u << 20); fd++)
                        (void)close((int)fd);
        }
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        for (int sig = 1; sig < NSIG; sig++)
                (void)sigaction(sig, &dfl, NULL);
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                return -1;
        const struct {
                int resource;
                struct rlimit lim;
        } limits[] = {
#ifndef UNDER_ASAN /* its shadow memory alone is larger */
            {RLIMIT_AS, {CORDON_AGENT_TOML_CHILD_AS_MAX, CORDON_AGENT_TOML_CHILD_AS_MAX}},
#endif
            {RLIMIT_CPU, {CORDON_AGENT_TOML_CHILD_CPU_SEC, CORDON_AGENT_TOML_CHILD_CPU_SEC + 1}},
#ifdef UNDER_ASAN /* its checks open a pipe of their own */
            {RLIMIT_NOFILE, {8, 8}},
#else
            {RLIMIT_NOFILE, {1, 1}},
#endif
            {RLIMIT_FSIZE, {0, 0}},
            {RLIMIT_CORE, {0, 0}},
        };
        for (size_t i = 0; i < ELEMENTSOF(limits); i++)
                if (setrlimit(limits[i].resource, &limits[i].lim) < 0)
                        return -1;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
                return -1;
        if (cordon_agent_toml_child_test_hook)
                cordon_agent_toml_child_test_hook(false);
        if (cordon_seccomp_install(bpf) < 0)
                return -1;
        if (cordon_agent_toml_child_test_hook)
                cordon_agent_toml_child_test_hook(true);
        return 0;
}

enum op {
        OP_TO_JSON,
        OP_EDIT,
        OP_OVERLAY,
};

/* OP_OVERLAY in the child: @text read, the leaves of @overlay it lacks set, the text edited to
 * hold them; the answer {"text": ..., "kept": [names the text set already]}. */
static int overlay_work(const char *text, size_t len, json_t *overlay, char **ret, size_t *ret_len,
                        char *why)
{
        json_t *doc = NULL;
        char **kept = NULL;
        char *out = NULL;
        size_t out_len = 0;
        int r = cordon_agent_toml_to_json(text, len, &doc, why);
        if (r == 0)
                r = cordon_agent_json_fill_missing(doc, overlay, &kept);
        if (r == 0)
                r = cordon_agent_toml_edit(text, len, doc, &out, &out_len, why);
        json_t *answer = r == 0 ? json_pack("{s:s%,s:[]}", "text", out, out_len, "kept") : NULL;
        for (char **k = kept; r == 0 && k && *k; k++)
                if (!answer ||
                    json_array_append_new(json_object_get(answer, "kept"), json_string(*k)) < 0)
                        r = -ENOMEM;
        if (r == 0 && (!answer || !(*ret = json_dumps(answer, JSON_COMPACT))))
                r = -ENOMEM;
        if (r == 0)
                *ret_len = strlen(*ret);
        return r;
}

/* The child's work on descriptor 0, confined. The answer's failures are its exit status. */
static int child_work(enum op op)
{
        struct header_in in;
        if (read_exact(0, &in, sizeof(in)) < 0 || in.text_len > SIZE_MAX - 1 ||
            in.want_len > SIZE_MAX - 1)
                return 1;
        char *text = malloc(in.text_len + 1), *wtext = malloc(in.want_len + 1);
        if (!text || !wtext || read_exact(0, text, in.text_len) < 0 ||
            read_exact(0, wtext, in.want_len) < 0)
                return 1;
        char why[CORDON_AGENT_TOML_WHY_MAX] = "";
        char *body = NULL;
        size_t body_len = 0;
        int r;
        if (op == OP_EDIT || op == OP_OVERLAY) {
                json_error_t e;
                json_t *want = json_loadb(wtext, in.want_len, JSON_ALLOW_NUL, &e);
                r = !want ? -ENOMEM
                    : op == OP_OVERLAY
                        ? overlay_work(text, in.text_len, want, &body, &body_len, why)
                        : cordon_agent_toml_edit(text, in.text_len, want, &body, &body_len, why);
        } else {
                json_t *doc = NULL;
                r = cordon_agent_toml_to_json(text, in.text_len, &doc, why);
                if (r == 0 && !(body = json_dumps(doc, JSON_COMPACT)))
                        r = -ENOMEM;
                if (r == 0)
                        body_len = strlen(body);
        }
        why[sizeof(why) - 1] = 0;
        struct header_out out = {
            .status = r, .why_len = (uint32_t)strlen(why), .body_len = r == 0 ? body_len : 0};
        if (write_all(0, &out, sizeof(out)) < 0 || write_all(0, why, out.why_len) < 0 ||
            write_all(0, body, out.body_len) < 0)
                return 1;
        return 0;
}

_noreturn_ static void child(int sock, pid_t parent, const struct cordon_bpf *bpf, enum op op)
{
        if (confine(sock, parent, bpf) < 0)
                _exit(EXIT_UNCONFINED);
        _exit(child_work(op));
}

static uint64_t now_msec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct exchange {
        const void *part[3];
        size_t part_len[3];
        char *got;
        size_t got_len, got_cap;
        bool timed_out, over;
};

/* Sends the parts and reads the answer until the child closes its end, a limit is reached or
 * the time is up. 0 or -ENOMEM. */
static int exchange(int sock, struct exchange *x)
{
        size_t part = 0, off = 0;
        uint64_t deadline = now_msec() + CORDON_AGENT_TOML_CHILD_TIMEOUT_MSEC;
        bool sending = true;
        for (;;) {
                while (sending && part < ELEMENTSOF(x->part) && off == x->part_len[part]) {
                        part++;
                        off = 0;
                }
                if (sending && part == ELEMENTSOF(x->part)) {
                        (void)shutdown(sock, SHUT_WR);
                        sending = false;
                }
                uint64_t now = now_msec();
                if (now >= deadline) {
                        x->timed_out = true;
                        return 0;
                }
                struct pollfd p = {.fd = sock, .events = POLLIN | (sending ? POLLOUT : 0)};
                int n = poll(&p, 1, (int)(deadline - now));
                if (n < 0 && errno != EINTR)
                        return negative_errno();
                if (n <= 0)
                        continue;
                if (sending && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
                        ssize_t k = send(sock, (const char *)x->part[part] + off,
                                         x->part_len[part] - off, MSG_NOSIGNAL | MSG_DONTWAIT);
                        if (k > 0)
                                off += (size_t)k;
                        else if (errno != EAGAIN && errno != EINTR)
                                sending = false; /* the child is gone: its answer tells */
                }
                if (!(p.revents & (POLLIN | POLLERR | POLLHUP)))
                        continue;
                if (x->got_len == x->got_cap) {
                        if (x->got_cap > CORDON_AGENT_TOML_CHILD_OUT_MAX) {
                                x->over = true;
                                return 0;
                        }
                        size_t cap = x->got_cap ? x->got_cap * 2 : 1u << 16;
                        if (cap > (size_t)CORDON_AGENT_TOML_CHILD_OUT_MAX + 1)
                                cap = (size_t)CORDON_AGENT_TOML_CHILD_OUT_MAX + 1;
                        char *g = realloc(x->got, cap);
                        if (!g)
                                return -ENOMEM;
                        x->got = g;
                        x->got_cap = cap;
                }
                ssize_t k = recv(sock, x->got + x->got_len, x->got_cap - x->got_len, MSG_DONTWAIT);
                if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
                        return 0;
                if (k > 0)
                        x->got_len += (size_t)k;
        }
}

static void set_why(char *why, const char *fmt, ...) _printf_(2, 3);
static void set_why(char *why, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, CORDON_AGENT_TOML_WHY_MAX, fmt, ap);
        va_end(ap);
}

/* Runs the child on @text and, for @edit, @want's JSON text; its answer's status in *@ret_status
 * and body in *@ret_body (NUL-terminated, the caller frees it), or -EINVAL with @why saying
 * how it failed. */
static int run(const char *text, size_t len, const char *want, size_t want_len, enum op op,
               int *ret_status, char **ret_body, size_t *ret_len, char *why)
{
        _cleanup_(cordon_bpf_clear) struct cordon_bpf bpf = {0};
        int r = build_filter(&bpf);
        if (r < 0) {
                set_why(why, "the TOML parser's seccomp filter could not be made (%s)",
                        strerror(-r));
                return r == -ENOMEM ? r : -EINVAL;
        }
        /* jansson seeds its hash function on first use, from /dev/urandom: here, not in the
         * child, which can open nothing. */
        json_object_seed(0);
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
                r = negative_errno();
                set_why(why, "the TOML parser's socket could not be made (%s)", strerror(-r));
                return r;
        }
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid == 0)
                child(sv[1], parent, &bpf, op);
        r = negative_errno();
        (void)close(sv[1]);
        _cleanup_close_ int sock = sv[0];
        if (pid < 0) {
                set_why(why, "the TOML parser's process could not be started (%s)", strerror(-r));
                return r;
        }
        struct header_in hin = {.text_len = len, .want_len = want_len};
        struct exchange x = {.part = {&hin, text, want}, .part_len = {sizeof(hin), len, want_len}};
        r = exchange(sock, &x);
        if (r < 0 || x.timed_out || x.over)
                (void)kill(pid, SIGKILL);
        int st = 0;
        pid_t w;
        while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
                ;
        /* Reaped by someone else (SIGCHLD ignored, waitpid(-1)): the answer alone tells. */
        bool known = w == pid;
        _cleanup_free_ char *got = x.got;
        if (r < 0)
                return r;
        struct header_out h;
        if (x.timed_out)
                set_why(why, "the TOML parser took longer than %u s, and was killed",
                        CORDON_AGENT_TOML_CHILD_TIMEOUT_MSEC / 1000u);
        else if (x.over)
                set_why(why, "the TOML parser answered more than %u MiB, and was killed",
                        CORDON_AGENT_TOML_CHILD_OUT_MAX >> 20);
        else if (known && WIFSIGNALED(st))
                set_why(why, "the TOML parser failed (killed by signal %d%s)", WTERMSIG(st),
                        WTERMSIG(st) == SIGSYS ? ", a call its seccomp filter forbids" : "");
        else if (known && WIFEXITED(st) && WEXITSTATUS(st) == EXIT_UNCONFINED)
                set_why(why, "the TOML parser's process could not be confined");
        else if (known && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
                set_why(why, "the TOML parser failed (exit status %d)", WEXITSTATUS(st));
        else if (x.got_len < sizeof(h))
                set_why(why, "the TOML parser's answer was cut short");
        else {
                memcpy(&h, got, sizeof(h));
                size_t rest = x.got_len - sizeof(h);
                bool known_status = h.status == 0 || h.status == -EINVAL || h.status == -ENOMEM ||
                                    (op != OP_TO_JSON && h.status == -ENOTSUP);
                if (!known_status || h.why_len >= CORDON_AGENT_TOML_WHY_MAX || h.why_len > rest ||
                    h.body_len != rest - h.why_len || (h.status != 0 && h.body_len != 0))
                        set_why(why, "the TOML parser's answer was malformed");
                else if (h.status == -ENOMEM)
                        set_why(why, "the TOML parser ran out of memory");
                else {
                        /* Printable ASCII only, as agent-toml.cc writes it. */
                        const char *w_in = got + sizeof(h);
                        for (uint32_t i = 0; i < h.why_len; i++)
                                why[i] = (w_in[i] >= ' ' && w_in[i] < 0x7f) ? w_in[i] : '?';
                        why[h.why_len] = 0;
                        char *body = malloc(h.body_len + 1);
                        if (!body)
                                return -ENOMEM;
                        memcpy(body, w_in + h.why_len, h.body_len);
                        body[h.body_len] = 0;
                        *ret_status = h.status;
                        *ret_body = body;
                        *ret_len = h.body_len;
                        return 0;
                }
        }
        return -EINVAL;
}

int cordon_agent_toml_to_json_confined(const char *text, size_t len, json_t **ret, char *why)
{
        char buf[CORDON_AGENT_TOML_WHY_MAX];
        if (!why)
                why = buf;
        *why = 0;
        _cleanup_free_ char *body = NULL;
        size_t body_len = 0;
        int status = 0;
        int r = run(text, len, NULL, 0, OP_TO_JSON, &status, &body, &body_len, why);
        if (r < 0)
                return r;
        if (status < 0)
                return status;
        json_error_t e;
        json_t *doc = json_loadb(body, body_len, JSON_ALLOW_NUL, &e);
        if (!json_is_object(doc)) {
                json_decref(doc);
                set_why(why, "the TOML parser's answer was malformed");
                return -EINVAL;
        }
        *ret = doc;
        return 0;
}

int cordon_agent_toml_edit_confined(const char *text, size_t len, json_t *want, char **ret,
                                    size_t *ret_len, char *why)
{
        char buf[CORDON_AGENT_TOML_WHY_MAX];
        if (!why)
                why = buf;
        *why = 0;
        if (!json_is_object(want))
                return -EINVAL;
        _cleanup_free_ char *wtext = json_dumps(want, JSON_COMPACT);
        if (!wtext)
                return -ENOMEM;
        char *body = NULL;
        size_t body_len = 0;
        int status = 0;
        int r = run(text, len, wtext, strlen(wtext), OP_EDIT, &status, &body, &body_len, why);
        if (r < 0)
                return r;
        if (status < 0) {
                free(body);
                return status;
        }
        *ret = body;
        *ret_len = body_len;
        return 0;
}

/* Whether dotted @name is a leaf of object @overlay (its keys hold no dot: the profile's). */
static bool overlay_leaf(json_t *overlay, const char *name)
{
        json_t *at = overlay;
        for (const char *p = name;;) {
                const char *dot = strchr(p, '.');
                size_t n = dot ? (size_t)(dot - p) : strlen(p);
                char key[128];
                if (!json_is_object(at) || n == 0 || n >= sizeof(key))
                        return false;
                memcpy(key, p, n);
                key[n] = 0;
                at = json_object_get(at, key);
                if (!dot)
                        return at && !json_is_object(at);
                p = dot + 1;
        }
}

int cordon_agent_toml_overlay_confined(const char *text, size_t len, json_t *overlay, char **ret,
                                       size_t *ret_len, char ***ret_kept, char *why)
{
        char buf[CORDON_AGENT_TOML_WHY_MAX];
        if (!why)
                why = buf;
        *why = 0;
        if (!json_is_object(overlay))
                return -EINVAL;
        _cleanup_free_ char *otext = json_dumps(overlay, JSON_COMPACT);
        if (!otext)
                return -ENOMEM;
        _cleanup_free_ char *body = NULL;
        size_t body_len = 0;
        int status = 0;
        int r = run(text, len, otext, strlen(otext), OP_OVERLAY, &status, &body, &body_len, why);
        if (r < 0)
                return r;
        if (status < 0)
                return status;
        /* The child's answer is as hostile as what it read: its shape is checked. */
        json_error_t e;
        _cleanup_(json_decrefp) json_t *answer = json_loadb(body, body_len, 0, &e);
        json_t *t = json_object_get(answer, "text"), *kept = json_object_get(answer, "kept");
        if (!json_is_string(t) || !json_is_array(kept)) {
                set_why(why, "the TOML parser's answer was malformed");
                return -EINVAL;
        }
        size_t i;
        json_t *k;
        json_array_foreach(kept, i, k)
        {
                /* A name the overlay does not have is a lie of the child's (and would be
                 * printed): the answer is refused. */
                if (!json_is_string(k) || i >= 64 || !overlay_leaf(overlay, json_string_value(k))) {
                        set_why(why, "the TOML parser's answer was malformed");
                        return -EINVAL;
                }
                if (strv_extend(ret_kept, json_string_value(k)) < 0)
                        return -ENOMEM;
        }
        char *out = strndup(json_string_value(t), json_string_length(t));
        if (!out)
                return -ENOMEM;
        *ret = out;
        *ret_len = strlen(out);
        return 0;
}
