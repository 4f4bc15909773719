/* cordon-serve's sessions (see serve-holders.h): the table, a holder's start (fork and exec of
 * cordon-serve-session, its ready frame read from the loop), the one connection per holder with
 * its request ids, and a holder's end. Re-adoption is in serve-holders-adopt.c, the table's
 * life and the loop's hooks in serve-holders-loop.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve-holders-internal.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/sanitizer.h"

uint64_t serve_now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int serve_pidfd_open(pid_t pid)
{
        int fd = (int)syscall(SYS_pidfd_open, pid, 0);
        return fd < 0 ? -errno : fd;
}

int serve_pidfd_signal(int pidfd, int sig)
{
        return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0 ? -errno : 0;
}

bool serve_pidfd_exited(int pidfd)
{
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        return poll(&p, 1, 0) == 1;
}

/* --- the table --- */

static void list_unlink(struct serve_session **first, struct serve_session **last,
                        struct serve_session *s)
{
        if (s->prev)
                s->prev->next = s->next;
        else
                *first = s->next;
        if (s->next)
                s->next->prev = s->prev;
        else if (last)
                *last = s->prev;
        s->prev = s->next = NULL;
}

void serve_holders_table_add(struct serve_holders *h, struct serve_session *s)
{
        s->prev = h->last;
        s->next = NULL;
        if (h->last)
                h->last->next = s;
        else
                h->first = s;
        h->last = s;
        h->n++;
}

size_t serve_holders_count(const struct serve_holders *h)
{
        return h->n;
}

struct serve_session *serve_session_find(struct serve_holders *h, const char *id)
{
        for (struct serve_session *s = h->first; s; s = s->next)
                if (streq(s->id, id))
                        return s;
        return NULL;
}

struct serve_session *serve_holders_first(struct serve_holders *h)
{
        return h->first;
}

struct serve_session *serve_session_next(struct serve_session *s)
{
        return s->next;
}

bool serve_session_ready(const struct serve_session *s)
{
        return s->state == SESSION_READY;
}

const char *serve_session_id(const struct serve_session *s)
{
        return s->id;
}

const char *serve_session_backend(const struct serve_session *s)
{
        return strempty(s->backend);
}

void *serve_session_get_slot(const struct serve_session *s)
{
        return s->slot;
}

void serve_session_set_slot(struct serve_session *s, void *p, void (*free_fn)(void *))
{
        s->slot = p;
        s->slot_free = free_fn;
}

struct serve_session *serve_session_new(struct serve_holders *h, const char *name, const char *id)
{
        struct serve_session *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->h = h;
        s->pidfd = s->ready_fd = -EBADF;
        s->conn = HOLDER_CONN_NULL;
        s->next_id = 1;
        snprintf(s->name, sizeof(s->name), "%s", name);
        s->id = strdup(id);
        if (!s->id) {
                free(s);
                return NULL;
        }
        return s;
}

void serve_session_free(struct serve_session *s)
{
        struct serve_loop *l = s->h->loop;
        serve_loop_remove(l, s->pidfd_src);
        serve_loop_remove(l, s->ready_src);
        serve_loop_remove(l, s->conn_src);
        safe_close(s->pidfd);
        safe_close(s->ready_fd);
        holder_conn_clear(&s->conn);
        free(s->ready_buf);
        for (struct serve_call *c = s->calls, *n; c; c = n) {
                n = c->next;
                free(c);
        }
        free(s->start);
        if (s->slot && s->slot_free)
                s->slot_free(s->slot);
        free(s->id);
        free(s->backend);
        free(s);
}

/* --- replies --- */

int serve_reply_error(const struct serve_error *e, struct serve_reply *reply)
{
        *reply = (struct serve_reply){.status = serve_error_http_status(e->kind),
                                      .error = serve_error_to_json(e)};
        return reply->error ? 0 : -ENOMEM;
}

static void deliver(struct serve_call *c, const struct serve_reply *reply)
{
        if (c->fn)
                c->fn(reply, c->userdata);
        free(c);
}

static void deliver_error(struct serve_call *c, const struct serve_error *e)
{
        struct serve_reply reply;
        (void)serve_reply_error(e, &reply); /* on ENOMEM the caller gets error NULL */
        deliver(c, &reply);
        json_decref(reply.error);
}

/* The client's error for the holder's error object @e: the kind, message, backend and
 * operation it names (checked; the rest dropped), io when it names no kind we know. */
static void reply_from_holder_error(const json_t *e, struct serve_reply *ret)
{
        const json_t *inner = json_object_get(e, "error");
        if (json_is_object(inner))
                e = inner; /* {"error":{...}} as serve_error_to_json() makes it */
        const char *kind = json_string_value(json_object_get(e, "kind"));
        const char *msg = json_string_value(json_object_get(e, "message"));
        struct serve_error err;
        enum serve_error_kind k = SERVE_ERR_IO;
        for (int i = SERVE_ERR_SESSION_NOT_FOUND; kind && i <= SERVE_ERR_IO; i++)
                if (streq(kind, serve_error_kind_name((enum serve_error_kind)i)))
                        k = (enum serve_error_kind)i;
        serve_error_set(&err, k, "%s", msg ? msg : "the session's holder gave no message");
        if (k == SERVE_ERR_UNSUPPORTED) {
                err.backend = json_string_value(json_object_get(e, "backend"));
                err.operation = json_string_value(json_object_get(e, "operation"));
        }
        (void)serve_reply_error(&err, ret);
}

/* Hands frame @f (a reply) to its call: 0, or -EBADMSG when it answers none. */
static int dispatch(struct serve_session *s, const json_t *f)
{
        const json_t *jid = json_object_get(f, "id"), *ok = json_object_get(f, "ok");
        if (!json_is_integer(jid) || json_integer_value(jid) <= 0 || !json_is_boolean(ok))
                return -EBADMSG;
        uint64_t id = (uint64_t)json_integer_value(jid);
        struct serve_call **p = &s->calls;
        while (*p && (*p)->id != id)
                p = &(*p)->next;
        if (!*p)
                return -EBADMSG;
        struct serve_call *c = *p;
        *p = c->next;
        struct serve_reply reply = {.ok = json_is_true(ok)};
        if (reply.ok) {
                reply.result = json_object_get(f, "result");
                if (!reply.result) {
                        free(c);
                        return -EBADMSG;
                }
                deliver(c, &reply);
                return 0;
        }
        reply_from_holder_error(json_object_get(f, "error"), &reply);
        deliver(c, &reply);
        json_decref(reply.error);
        return 0;
}

/* --- a session's end --- */

static void dying_add(struct serve_holders *h, struct serve_session *s, uint64_t deadline)
{
        s->state = SESSION_DYING;
        s->deadline = deadline;
        s->prev = NULL;
        s->next = h->dying;
        if (h->dying)
                h->dying->prev = s;
        h->dying = s;
}

/* Takes @s out of the table (into the dying list until its holder has exited), answers what
 * waits on it with an io error naming @why, and asks a holder that still runs to end (SIGTERM)
 * when @end. */
static void session_leave(struct serve_session *s, bool end, const char *why)
{
        struct serve_holders *h = s->h;
        if (s->state == SESSION_DYING)
                return;
        list_unlink(&h->first, &h->last, s);
        h->n--;
        dying_add(h, s, serve_now_usec() + SERVE_HOLDER_END_SEC * 1000000ull);
        s->conn_src = serve_loop_remove(h->loop, s->conn_src);
        s->ready_src = serve_loop_remove(h->loop, s->ready_src);
        holder_conn_clear(&s->conn);
        s->ready_fd = safe_close(s->ready_fd);
        if (s->slot && s->slot_free)
                s->slot_free(s->slot);
        s->slot = NULL;
        if (end && s->pidfd >= 0 && !serve_pidfd_exited(s->pidfd))
                (void)serve_pidfd_signal(s->pidfd, SIGTERM);
        struct serve_error e;
        serve_error_set(&e, SERVE_ERR_IO, "session '%s': its holder is gone (%s)", s->id, why);
        if (s->start)
                deliver_error(TAKE_PTR(s->start), &e);
        while (s->calls) {
                struct serve_call *c = s->calls;
                s->calls = c->next;
                deliver_error(c, &e);
        }
}

void serve_session_lost(struct serve_session *s, const char *why)
{
        if (s->state != SESSION_DYING)
                log_warning("session %s: %s; it leaves the table", s->id, why);
        session_leave(s, true, why);
}

void serve_session_forget(struct serve_session *s)
{
        session_leave(s, false, "terminated");
}

static int on_ready(int fd, uint32_t events, void *userdata);

/* The holder has exited: what it left is removed and @s freed. */
static void session_exited(struct serve_session *s)
{
        struct serve_holders *h = s->h;
        /* Its exit and its ready frame (an error, most likely) can come in one wake, the exit
         * first: the frame is read before the session is given up, so its error is the one
         * answered. */
        if (s->state == SESSION_STARTING && s->ready_fd >= 0)
                (void)on_ready(s->ready_fd, EPOLLIN, s);
        if (s->state != SESSION_DYING)
                serve_session_lost(s, "its holder exited");
        if (s->prev)
                s->prev->next = s->next;
        else
                h->dying = s->next;
        if (s->next)
                s->next->prev = s->prev;
        serve_store_session_remove(h->store, s->name);
        serve_session_free(s);
}

static int on_pidfd(int fd, uint32_t events, void *userdata)
{
        session_exited(userdata);
        return 0;
}

int serve_session_watch(struct serve_session *s)
{
        return serve_loop_add(s->h->loop, s->pidfd, EPOLLIN, on_pidfd, s, &s->pidfd_src);
}

/* --- the connection --- */

/* An idle connection holds no buffer: holder_conn_read() reserves 64 KiB to read into, and a
 * thousand idle sessions would keep a thousand of them. They come back with the next frame. */
static void conn_trim(struct holder_conn *c)
{
        if (c->in_len == 0 && c->in) {
                free(c->in);
                c->in = NULL;
                c->in_cap = 0;
        }
        if (c->out_len == 0 && c->out) {
                free(c->out);
                c->out = NULL;
                c->out_cap = c->out_off = 0;
        }
}

static void conn_update(struct serve_session *s)
{
        conn_trim(&s->conn);
        bool out = s->conn.out_len > s->conn.out_off;
        if (out != s->want_out && s->conn_src &&
            serve_loop_modify(s->h->loop, s->conn_src, EPOLLIN | (out ? EPOLLOUT : 0)) >= 0)
                s->want_out = out;
}

static int on_conn(int fd, uint32_t events, void *userdata)
{
        struct serve_session *s = userdata;
        if (events & EPOLLOUT) {
                int r = holder_conn_flush(&s->conn);
                if (r < 0) {
                        serve_session_lost(s, "its connection broke");
                        return 0;
                }
                conn_update(s);
        }
        if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                return 0;
        int hup = holder_conn_read(&s->conn);
        for (;;) {
                json_t *f = NULL;
                int r = holder_conn_next(&s->conn, &f);
                if (r == 0)
                        break;
                if (r > 0) {
                        r = dispatch(s, f);
                        json_decref(f);
                }
                if (r < 0) {
                        serve_session_lost(s, "its holder broke the protocol");
                        return 0;
                }
                /* A reply's callback may have ended the session. */
                if (s->state != SESSION_READY)
                        return 0;
        }
        if (hup != 0)
                serve_session_lost(s, hup > 0 ? "its holder closed the connection"
                                              : "its connection broke");
        else
                conn_trim(&s->conn);
        return 0;
}

int serve_holder_connect(const char *path, pid_t pid)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, path);
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                return -errno;
        /* The socket's peer is the holder we know, not whoever took the path. */
        struct ucred uc;
        socklen_t len = sizeof(uc);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
                return -errno;
        if (uc.pid != pid || uc.uid != geteuid())
                return -EPERM;
        return TAKE_FD(fd);
}

int serve_session_connect(struct serve_session *s, const char *path)
{
        int fd = serve_holder_connect(path, s->pid);
        return fd < 0 ? fd : serve_session_attach(s, fd);
}

int serve_session_attach(struct serve_session *s, int fd)
{
        s->conn.fd = fd;
        int r = serve_loop_add(s->h->loop, fd, EPOLLIN, on_conn, s, &s->conn_src);
        if (r < 0) {
                s->conn.fd = -EBADF;
                safe_close(fd);
                return r;
        }
        s->state = SESSION_READY;
        return 0;
}

int serve_session_call(struct serve_session *s, const char *op, json_t *args, serve_reply_fn fn,
                       void *userdata, struct serve_call **ret, struct serve_error *err)
{
        _cleanup_json_ json_t *req = args ?: json_object();
        if (!req)
                return -ENOMEM;
        if (s->state == SESSION_STARTING) {
                serve_error_set(err, SERVE_ERR_LIFECYCLE, "session '%s' is still starting", s->id);
                return -EAGAIN;
        }
        if (s->state != SESSION_READY) {
                serve_error_set(err, SERVE_ERR_IO, "session '%s': its holder is gone", s->id);
                return -ENOTCONN;
        }
        struct serve_call *c = calloc(1, sizeof(*c));
        if (!c || json_object_set_new(req, "id", json_integer((json_int_t)s->next_id)) < 0 ||
            json_object_set_new(req, "op", json_string(op)) < 0) {
                free(c);
                serve_error_set(err, SERVE_ERR_IO, "out of memory");
                return -ENOMEM;
        }
        int r = holder_conn_send(&s->conn, req);
        if (r < 0) {
                free(c);
                serve_error_set(err, SERVE_ERR_IO, "session '%s': cannot reach its holder: %s",
                                s->id, strerror(-r));
                if (r != -ENOMEM && r != -EMSGSIZE)
                        serve_session_lost(s, "its connection broke");
                return r;
        }
        *c = (struct serve_call){.id = s->next_id++, .fn = fn, .userdata = userdata};
        c->next = s->calls;
        s->calls = c;
        conn_update(s);
        if (ret)
                *ret = c;
        return 0;
}

void serve_call_cancel(struct serve_call *c)
{
        if (c)
                c->fn = NULL;
}

/* --- a start --- */

/* The ready frame has come: @f is {"ok": true, "result": SandboxSession} or an error. */
static void on_ready_frame(struct serve_session *s, const json_t *f)
{
        s->ready_src = serve_loop_remove(s->h->loop, s->ready_src);
        s->ready_fd = safe_close(s->ready_fd);
        /* Its buffer is not needed again (@f is a copy): 64 KiB per session kept otherwise. */
        free(s->ready_buf);
        s->ready_buf = NULL;
        s->ready_len = s->ready_cap = 0;
        json_t *result = json_object_get(f, "result");
        const char *id = json_string_value(json_object_get(result, "id"));
        const char *backend = json_string_value(json_object_get(result, "backend"));
        if (!json_is_true(json_object_get(f, "ok"))) {
                struct serve_reply reply;
                reply_from_holder_error(json_object_get(f, "error"), &reply);
                struct serve_call *c = TAKE_PTR(s->start);
                /* Out of the table first: the callback may look for the id again. */
                session_leave(s, false, "its start failed");
                if (c)
                        deliver(c, &reply);
                json_decref(reply.error);
                return;
        }
        if (!json_is_object(result) || !id || !streq(id, s->id) || !backend) {
                serve_session_lost(s, "its holder's ready frame is not the session's");
                return;
        }
        s->backend = strdup(backend);
        _cleanup_free_ char *path = serve_store_session_socket(s->h->store, s->name);
        int r = s->backend && path ? serve_session_connect(s, path) : -ENOMEM;
        if (r < 0) {
                char why[128];
                snprintf(why, sizeof(why), "cannot connect to its holder: %s", strerror(-r));
                serve_session_lost(s, why);
                return;
        }
        s->deadline = 0;
        log_info("session %s: started (holder pid %d, backend %s)", s->id, (int)s->pid, s->backend);
        struct serve_reply reply = {.ok = true, .result = result};
        struct serve_call *c = TAKE_PTR(s->start);
        if (c)
                deliver(c, &reply);
}

static int on_ready(int fd, uint32_t events, void *userdata)
{
        struct serve_session *s = userdata;
        for (;;) {
                if (s->ready_len + 65536 > s->ready_cap) {
                        size_t cap = s->ready_cap ? s->ready_cap * 2 : 65536;
                        char *b =
                            cap <= HOLDER_FRAME_MAX + 65536 ? realloc(s->ready_buf, cap) : NULL;
                        if (!b) {
                                serve_session_lost(s, "its ready frame is too large");
                                return 0;
                        }
                        s->ready_buf = b;
                        s->ready_cap = cap;
                }
                ssize_t n = read(fd, s->ready_buf + s->ready_len, s->ready_cap - s->ready_len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return 0;
                if (n <= 0) {
                        serve_session_lost(s, n == 0 ? "its holder ended before it was ready"
                                                     : "its ready pipe broke");
                        return 0;
                }
                s->ready_len += (size_t)n;
                json_t *f = NULL;
                ssize_t k = holder_frame_decode(s->ready_buf, s->ready_len, &f);
                if (k > 0) {
                        on_ready_frame(s, f);
                        json_decref(f);
                        return 0;
                }
                if (k < 0) {
                        serve_session_lost(s, "its ready frame is malformed");
                        return 0;
                }
        }
}

struct child_args {
        const struct serve_holders *h;
        int spec_fd, ready_fd;
        char *const *argv;
};

/* The child's side: never returns. Everything it uses was prepared by the parent; it may share
 * the parent's memory (spawn()), so it only makes system calls: no allocation, nothing written
 * but its own stack and errno. */
static int child(void *p)
{
        const struct child_args *a = p;
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* Its own disposition (the signal handlers are not shared): the daemon catches no
         * signal, so none runs a handler of the daemon's here. */
        signal(SIGPIPE, SIG_DFL);
        /* Its stderr is ours when that is a file or a terminal (a log a broken pipe cannot
         * turn into a SIGPIPE after our end); else /dev/null, as its stdout. */
        struct stat st;
        bool keep_err = fstat(2, &st) == 0 && (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode));
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(a->spec_fd, 0) < 0 || dup2(a->ready_fd, 3) < 0 || dup2(null, 1) < 0 ||
            (!keep_err && dup2(null, 2) < 0))
                _exit(127);
        int keep = 3;
        (void)close_all_fds_except(&keep, 1);
        /* The limit we were started with, once only 0..3 are open: with ours raised, every
         * descriptor below the old limit may have been taken. */
        (void)setrlimit(RLIMIT_NOFILE, &a->h->nofile);
        execv(a->h->o.program, a->argv);
        _exit(127);
}

/* Starts child(@a): as vfork() does (and posix_spawn()), the child borrows our memory until it
 * execs, on a stack of its own carved from this frame; copying the daemon's page tables (its
 * TLS library among them) was a good part of a session's start. The sanitizer build forks. */
static pid_t spawn_child(struct child_args *a)
{
#ifdef CORDON_ASAN
        pid_t pid = fork();
        if (pid == 0)
                _exit(child(a));
        return pid;
#else
        _Alignas(16) char stack[16 * 1024];
        return clone(child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, a);
#endif
}

/* @r (-errno) with @err saying what failed. */
static int spawn_fail(struct serve_error *err, int r, const char *what)
{
        serve_error_set(err, SERVE_ERR_IO, "cannot start the session's holder: %s: %s", what,
                        strerror(-r));
        return r;
}

static int spawn(struct serve_holders *h, struct serve_session *s, const char *spec_text,
                 const char *archive, struct serve_error *err)
{
        _cleanup_free_ char *dir = serve_store_session_dir(h->store, s->name);
        _cleanup_free_ char *sock = serve_store_session_socket(h->store, s->name);
        if (!dir || !sock)
                return -ENOMEM;
        _cleanup_close_ int memfd = memfd_create("cordon-serve-spec", MFD_CLOEXEC);
        if (memfd < 0)
                return spawn_fail(err, -errno, "memfd_create");
        int r = write_all(memfd, spec_text, strlen(spec_text));
        if (r >= 0 && lseek(memfd, 0, SEEK_SET) < 0)
                r = -errno;
        if (r < 0)
                return spawn_fail(err, r, "the spec");
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return spawn_fail(err, -errno, "pipe2");
        _cleanup_close_ int rd = p[0], wr = p[1];
        /* Both above 3, so that the child's dup2() onto 0 and 3 clobbers neither. */
        _cleanup_close_ int spec_fd = fcntl(memfd, F_DUPFD_CLOEXEC, 10);
        _cleanup_close_ int ready_fd = fcntl(wr, F_DUPFD_CLOEXEC, 10);
        if (spec_fd < 0 || ready_fd < 0 || fcntl(rd, F_SETFL, O_NONBLOCK) < 0)
                return spawn_fail(err, -errno, "fcntl");
        char cap[32];
        snprintf(cap, sizeof(cap), "%zu", h->o.output_cap);
        _cleanup_free_ char *arch = archive ? strdup(archive) : NULL;
        if (archive && !arch)
                return spawn_fail(err, -ENOMEM, "the arguments");
        /* execv() takes char *const []: the words are arrays of ours, not literals. */
        char prog[] = HOLDER_PROGRAM, o_name[] = "--name", o_dir[] = "--state-dir",
             o_sock[] = "--socket", o_cap[] = "--output-cap", o_snap[] = "--from-snapshot";
        char *argv[] = {prog,   o_name, s->name, o_dir, dir,
                        o_sock, sock,   o_cap,   cap,   arch ? o_snap : NULL,
                        arch,   NULL};
        struct child_args a = {.h = h, .spec_fd = spec_fd, .ready_fd = ready_fd, .argv = argv};
        pid_t pid = spawn_child(&a);
        if (pid < 0)
                return spawn_fail(err, -errno, "clone");
        s->pid = pid;
        s->child = true;
        s->pidfd = serve_pidfd_open(pid);
        if (s->pidfd < 0) {
                r = s->pidfd;
                kill(pid, SIGKILL);
                return spawn_fail(err, r, "pidfd_open");
        }
        s->ready_fd = TAKE_FD(rd);
        r = serve_loop_add(h->loop, s->ready_fd, EPOLLIN, on_ready, s, &s->ready_src);
        if (r >= 0)
                r = serve_session_watch(s);
        if (r < 0) {
                (void)serve_pidfd_signal(s->pidfd, SIGKILL);
                return spawn_fail(err, r, "the loop");
        }
        return 0;
}

int serve_holders_start(struct serve_holders *h, const struct serve_spec *spec, const char *archive,
                        serve_reply_fn fn, void *userdata, struct serve_call **ret,
                        struct serve_error *err)
{
        if (h->n >= h->o.max_sessions) {
                serve_error_set(err, SERVE_ERR_LIFECYCLE,
                                "this daemon holds %zu sessions, its limit (--max-sessions)", h->n);
                return -EUSERS;
        }
        char name[HOLDER_NAME_LEN + 1];
        int r = serve_store_mint_name(name);
        if (r < 0)
                return spawn_fail(err, r, "getrandom");
        _cleanup_free_ char *text = serve_json_dump(serve_spec_to_json(spec));
        struct serve_call *c = calloc(1, sizeof(*c));
        struct serve_session *s = text && c ? serve_session_new(h, name, spec->session_id) : NULL;
        if (!s) {
                free(c);
                serve_error_set(err, SERVE_ERR_IO, "out of memory");
                return -ENOMEM;
        }
        *c = (struct serve_call){.fn = fn, .userdata = userdata};
        s->start = c;
        r = serve_store_session_create(h->store, name);
        if (r < 0) {
                serve_session_free(s);
                return spawn_fail(err, r, "its state directory");
        }
        r = spawn(h, s, text, archive, err);
        if (r < 0) {
                /* A child that was forked is killed; its exit is reaped by SIGCHLD. */
                serve_store_session_remove(h->store, name);
                serve_session_free(s);
                return r;
        }
        s->state = SESSION_STARTING;
        s->deadline = serve_now_usec() + SERVE_HOLDER_START_SEC * 1000000ull;
        serve_holders_table_add(h, s);
        if (ret)
                *ret = c;
        return 0;
}
