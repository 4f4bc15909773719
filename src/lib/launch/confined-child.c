/* A helper child confined by cordon's own launcher (see confined-child.h): the policy both the
 * configuration files and the Lmod modules run under, and the bounded read of its output. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/launch/backend.h"
#include "lib/launch/confined-child.h"
#include "lib/policy/diag.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"
#include "shared/path-util.h"

static void policy_freep(struct cordon_policy **p)
{
        cordon_policy_free(*p);
}

static void sandbox_freep(struct cordon_sandbox **sb)
{
        cordon_sandbox_free(*sb);
}

const char *cordon_confined_bash(void)
{
        static const char *const shells[] = {"/bin/bash", "/usr/bin/bash"};
        for (size_t i = 0; i < ELEMENTSOF(shells); i++)
                if (access(shells[i], X_OK) == 0)
                        return shells[i];
        return NULL;
}

/* The system directories, read-only; a merged-/usr symlink stays a symlink. */
static int add_system(struct cordon_policy *p, const char *origin)
{
        static const char *const dirs[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                           "/lib32", "/lib64", "/libx32", "/etc"};
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                struct stat st;
                if (lstat(dirs[i], &st) < 0)
                        continue;
                int r;
                if (S_ISLNK(st.st_mode)) {
                        char target[256];
                        ssize_t n = readlink(dirs[i], target, sizeof(target) - 1);
                        if (n <= 0)
                                continue;
                        target[n] = 0;
                        r = cordon_policy_add_fs(p, dirs[i], target, CORDON_ACCESS_SYMLINK, 0,
                                                 origin);
                } else if (S_ISDIR(st.st_mode))
                        r = cordon_policy_add_fs(p, dirs[i], dirs[i], CORDON_ACCESS_RO,
                                                 CORDON_FS_OPTIONAL, origin);
                else
                        continue;
                if (r < 0)
                        return r;
        }
        /* The password hashes, for a caller who can read them (root): what the child prints
         * flows into a sandbox (a module's PATH, a configuration's values), so nothing the
         * sandbox itself may not read belongs in its view. Empty files under the ns backend;
         * the landlock backend masks them on its own (landlock-host.c). */
        static const char *const shadows[] = {"/etc/shadow", "/etc/gshadow"};
        for (size_t i = 0; i < ELEMENTSOF(shadows); i++) {
                struct stat st;
                int r;
                if (lstat(shadows[i], &st) == 0 && S_ISREG(st.st_mode) &&
                    faccessat(AT_FDCWD, shadows[i], R_OK, AT_EACCESS) == 0 &&
                    (r = cordon_policy_add_fs(p, shadows[i], "", CORDON_ACCESS_DATA, 0, origin)) <
                        0)
                        return r;
        }
        return cordon_policy_add_fs(p, "/dev", NULL, CORDON_ACCESS_DEV, 0, origin);
}

/* Is @dir below (or at) a read-only rule already? */
static bool covered(const struct cordon_policy *p, const char *dir)
{
        for (size_t i = 0; i < p->n_fs; i++) {
                const char *g = p->fs[i].guest;
                size_t l = strlen(g);
                if (p->fs[i].access == CORDON_ACCESS_RO && strncmp(dir, g, l) == 0 &&
                    (dir[l] == 0 || dir[l] == '/' || streq(g, "/")))
                        return true;
        }
        return false;
}

int cordon_confined_add_ro(struct cordon_policy *p, const char *dir, bool optional,
                           const char *origin)
{
        _cleanup_free_ char *norm = NULL;
        int r = path_normalize(dir, &norm);
        if (r < 0)
                return r;
        _cleanup_free_ char *real = realpath(norm, NULL);
        if (!real)
                return optional && (errno == ENOENT || errno == ENOTDIR) ? 0 : -errno;
        /* The directory where it really is, so that a link to it in a directory the view
         * already shows (/usr/share/modulefiles -> /opt/...) leads somewhere... */
        if (!covered(p, real) &&
            (r = cordon_policy_add_fs(p, real, real, CORDON_ACCESS_RO,
                                      optional ? CORDON_FS_OPTIONAL : 0, origin)) < 0)
                return r;
        /* ...and the name it was given, as the link it is (the ns backend's view; the landlock
         * backend shows the host's links as they are). */
        if (!streq(norm, real) && !covered(p, norm) &&
            (r = cordon_policy_add_fs(p, norm, real, CORDON_ACCESS_SYMLINK, 0, origin)) < 0)
                return r;
        return 0;
}

int cordon_confined_policy_new(enum cordon_backend backend, char *const *env,
                               const struct cordon_confined_limits *lim, const char *origin,
                               struct cordon_policy **ret)
{
        _cleanup_(policy_freep) struct cordon_policy *p = cordon_policy_new();
        if (!p)
                return -ENOMEM;
        int r;
        if ((r = add_system(p, origin)) < 0 || (r = cordon_policy_set_env(p, env)) < 0 ||
            (r = cordon_policy_set_cwd(p, "/")) < 0 ||
            (r = cordon_policy_set_backend(p, backend)) < 0)
                return r;
        p->net_mode = CORDON_NET_ISOLATED;
        p->process.pty = false;
        /* Its pipes are read before the wait: nothing may wait on the supervisor's loop. */
        p->no_notify = true;
        /* Landlock and seccomp on top of the namespaces, required; see start_child() for a
         * host that lacks one of them. */
        p->fallback = CORDON_FALLBACK_ENFORCE;
        p->limits.pids = lim->pids;
        /* Where the kernel allows, as the pid namespace's pid_max (at most 363 processes):
         * for uid 0, whom RLIMIT_NPROC does not bound, the alternative is a pids cgroup, whose
         * attach waits for an RCU grace period (3-14 ms here) on every start. */
        p->limits.pids_loose = true;
        *ret = TAKE_PTR(p);
        return 0;
}

/* Starts the child with its layers required. A host without one of them (a kernel before
 * Landlock) still runs the child under a backend with a mount namespace (the ns backend), whose
 * namespaces confine it on their own (a read-only view of a few directories, no network, its
 * own pids): there the layers become best effort. Under the landlock backend the layers are all
 * there is, so the refusal stands: the child never runs unconfined. */
static int start_child(struct cordon_policy *p, char *const *argv,
                       struct cordon_sandbox_options *opts, struct cordon_sandbox **ret,
                       struct cordon_diag *d)
{
        opts->flags |= CORDON_SANDBOX_RETURN_FAILED;
        int r = cordon_sandbox_start_with(p, argv, opts, ret, d);
        const struct cordon_backend_ops *ops =
            r == -EOPNOTSUPP && *ret ? cordon_backend_ops(cordon_sandbox_report(*ret)->backend)
                                     : NULL;
        if (!ops || !ops->mount_ns)
                return r;
        *ret = cordon_sandbox_free(*ret);
        *d = (struct cordon_diag){0};
        p->fallback = CORDON_FALLBACK_WARN;
        return cordon_sandbox_start_with(p, argv, opts, ret, d);
}

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Reads what is there from @fd into @buf (at most @max bytes kept). Returns 1 at end of file,
 * 0 otherwise, -errno. */
static int drain(int fd, char **buf, size_t *len, size_t max, bool *over)
{
        char chunk[65536];
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        if (n == 0)
                return 1;
        size_t take = (size_t)n;
        if (*len + take > max) {
                *over = true;
                take = max - *len;
        }
        char *nb = realloc(*buf, *len + take + 1);
        if (!nb)
                return -ENOMEM;
        memcpy(nb + *len, chunk, take);
        *len += take;
        nb[*len] = 0;
        *buf = nb;
        return 0;
}

void cordon_confined_output_clear(struct cordon_confined_output *o)
{
        free(o->out);
        free(o->err);
        *o = (struct cordon_confined_output){0};
}

int cordon_confined_run(struct cordon_policy *p, char *const *argv,
                        const struct cordon_confined_limits *lim, const char *what,
                        struct cordon_confined_output *ret, struct cordon_diag *diag)
{
        int outp[2] = {-EBADF, -EBADF}, errp[2] = {-EBADF, -EBADF};
        _cleanup_close_ int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int r;
        /* Only the read ends are non-blocking: the write ends become the child's stdout and
         * stderr, where O_NONBLOCK would make a write into a full pipe fail with EAGAIN (a
         * child that prints fast while the supervisor is still starting it would lose its
         * output, and so escape the output limits, instead of waiting to be read). */
        if (devnull < 0 || pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
            fcntl(outp[0], F_SETFL, O_NONBLOCK) < 0 || fcntl(errp[0], F_SETFL, O_NONBLOCK) < 0) {
                r = -errno;
                safe_close(outp[0]);
                safe_close(outp[1]);
                safe_close(errp[0]);
                safe_close(errp[1]);
                return cordon_diag_set(diag, r, "cannot make the pipes of %s: %s", what,
                                       strerror(-r));
        }
        _cleanup_close_ int out_r = outp[0], err_r = errp[0];
        int out_w = outp[1], err_w = errp[1];
        struct cordon_sandbox_options opts = {
            .flags = CORDON_SANDBOX_STDIO,
            .stdio = {devnull, out_w, err_w},
        };
        _cleanup_(sandbox_freep) struct cordon_sandbox *sb = NULL;
        struct cordon_diag d = {0};
        r = start_child(p, argv, &opts, &sb, &d);
        safe_close(out_w);
        safe_close(err_w);
        if (r < 0)
                return cordon_diag_set(diag, r, "cannot start %s: %s", what, d.message);

        struct cordon_confined_output o = {0};
        uint64_t deadline = now_usec() + lim->timeout_usec;
        bool out_eof = false, err_eof = false;
        while (!out_eof || !err_eof) {
                uint64_t now = now_usec();
                if (now >= deadline) {
                        o.timed_out = true;
                        break;
                }
                struct pollfd pfd[2] = {{.fd = out_eof ? -1 : out_r, .events = POLLIN},
                                        {.fd = err_eof ? -1 : err_r, .events = POLLIN}};
                int n = poll(pfd, 2, (int)((deadline - now + 999) / 1000));
                if (n < 0 && errno != EINTR) {
                        r = -errno;
                        break;
                }
                if (!out_eof && pfd[0].revents) {
                        r = drain(out_r, &o.out, &o.out_len, lim->out_max, &o.out_over);
                        if (r < 0)
                                break;
                        out_eof = r > 0;
                }
                if (!err_eof && pfd[1].revents) {
                        r = drain(err_r, &o.err, &o.err_len, lim->err_max, &o.err_over);
                        if (r < 0)
                                break;
                        err_eof = r > 0;
                }
                r = 0;
                if (o.out_over || o.err_over)
                        break;
        }
        if (r < 0 || o.timed_out || o.out_over || o.err_over)
                (void)cordon_sandbox_kill(sb, SIGKILL);
        int status = 0;
        int w = cordon_sandbox_wait(sb, &status);
        if (r < 0 || (w < 0 && !o.timed_out)) {
                cordon_confined_output_clear(&o);
                r = r < 0 ? r : w;
                return cordon_diag_set(diag, r, "reading the output of %s: %s", what, strerror(-r));
        }
        o.status = status;
        if ((!o.out && !(o.out = strdup(""))) || (!o.err && !(o.err = strdup("")))) {
                cordon_confined_output_clear(&o);
                return -ENOMEM;
        }
        *ret = o;
        return 0;
}
