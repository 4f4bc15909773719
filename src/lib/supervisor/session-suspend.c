/* Suspending a session (cordon/session.h): cgroup.freeze where the session has a cgroup v2 of
 * its own, else stop signals: from PID 1 inside (the ns backend), from the confined server
 * inside where Landlock scopes its signals to the sandbox (the landlock backend, which has no
 * pid namespace), or else from the supervisor to every process below the reaper. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/launch/backend.h"
#include "lib/launch/control.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/supervisor/session.h"
#include "lib/mech/cgroup.h"
#include "lib/policy/diag.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* How many processes a landlock session's tree walk takes, and how many passes it makes. */
#define TREE_MAX    65536
#define TREE_PASSES 200

_public_ const char *cordon_suspend_mechanism_to_string(enum cordon_suspend_mechanism m)
{
        switch (m) {
        case CORDON_SUSPEND_NONE:
                return "none";
        case CORDON_SUSPEND_CGROUP_FREEZE:
                return "cgroup_freeze";
        case CORDON_SUSPEND_STOP_SIGNALS:
                return "stop_signals";
        }
        return NULL;
}

static void sleep_usec(long usec)
{
        struct timespec ts = {.tv_sec = 0, .tv_nsec = usec * 1000};
        (void)nanosleep(&ts, NULL);
}

/* The state letter, parent and thread count of @pid from /proc/PID/stat; 0 when it is gone. */
static char proc_state(pid_t pid, pid_t *ret_ppid, long *ret_threads)
{
        char path[64], buf[1024];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        const char *p = strrchr(buf, ')');
        char state = 0;
        int ppid = 0;
        long threads = 1;
        /* Fields 3 (state), 4 (ppid) and 20 (num_threads). */
        if (!p ||
            sscanf(p + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld",
                   &state, &ppid, &threads) < 2)
                return 0;
        *ret_ppid = ppid;
        if (ret_threads)
                *ret_threads = threads;
        return state;
}

/* Appends the pids of the children file @path to @out, the whole of it: a process with a
 * thousand children lists 6 KB and more, and a pid may span two reads. */
static void read_children(const char *path, pid_t *out, size_t *n)
{
        char buf[4096];
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        long v = 0;
        bool in_number = false;
        for (;;) {
                ssize_t k = read(fd, buf, sizeof(buf));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                for (ssize_t i = 0; i < k; i++) {
                        if (buf[i] >= '0' && buf[i] <= '9') {
                                if (v < INT32_MAX / 10)
                                        v = v * 10 + (buf[i] - '0');
                                in_number = true;
                                continue;
                        }
                        if (in_number && v > 0 && *n < TREE_MAX)
                                out[(*n)++] = (pid_t)v;
                        v = 0;
                        in_number = false;
                }
        }
        if (in_number && v > 0 && *n < TREE_MAX)
                out[(*n)++] = (pid_t)v;
}

/* Appends the children of @pid to @out: its main thread's list, and every thread's when it has
 * more than one (a child belongs to the thread that forked it). */
static void children_of(pid_t pid, long threads, pid_t *out, size_t *n)
{
        char path[384];
        if (threads <= 1) {
                snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
                read_children(path, out, n);
                return;
        }
        snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid, de->d_name);
                read_children(path, out, n);
        }
        closedir(d);
}

/* @sig to @pid only while it is still @ppid's child: through a pidfd opened first, so a pid
 * reused meanwhile by a process outside is never signalled. */
static void signal_child(pid_t pid, pid_t ppid, int sig)
{
        _cleanup_close_ int fd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0)
                return;
        pid_t now = 0;
        if (!proc_state(pid, &now, NULL) || now != ppid)
                return;
        (void)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
}

int cordon_session_signal_tree(pid_t reaper, int sig)
{
        _cleanup_free_ pid_t *pids = malloc(TREE_MAX * sizeof(pid_t));
        if (!pids)
                return -ENOMEM;
        for (int pass = 0; pass < TREE_PASSES; pass++) {
                /* Breadth first from the reaper. A process is looked at before its children are
                 * listed: one seen stopped cannot fork any more, so once a pass sees every one
                 * stopped, the list of each was complete and nothing runs. (Continuing needs one
                 * pass: a stopped process cannot have forked since.) */
                size_t n = 0, at = 0;
                long threads = 1;
                pid_t rp = 0;
                if (!proc_state(reaper, &rp, &threads))
                        return -ESRCH;
                children_of(reaper, threads, pids, &n);
                bool clean = true;
                while (at < n) {
                        pid_t pid = pids[at++], ppid = 0;
                        char st = proc_state(pid, &ppid, &threads);
                        if (!st || st == 'Z' || st == 'X')
                                continue;
                        bool stopped = st == 'T' || st == 't';
                        if (sig == SIGSTOP ? !stopped : stopped) {
                                signal_child(pid, ppid, sig);
                                clean = false;
                        }
                        children_of(pid, threads, pids, &n);
                }
                if (n >= TREE_MAX)
                        return -E2BIG;
                if (clean || sig == SIGCONT)
                        return 0;
                sleep_usec(pass < 20 ? 50 : 1000);
        }
        return -EBUSY;
}

/* The cgroup v2 the session owns, where cgroup.freeze can stop it all; NULL when none. */
static const char *own_cgroup(const struct cordon_sandbox *sb)
{
        const struct cordon_limits_state *st = sb->l.limits;
        return st && *st->v2_dir ? st->v2_dir : NULL;
}

static int freeze(const char *dir, bool on)
{
        int r = cordon_cgroup_write(dir, "cgroup.freeze", on ? "1" : "0", false);
        if (r < 0)
                return r;
        /* The kernel freezes asynchronously: cgroup.events says when it is done. */
        for (int i = 0; i < 2000; i++) {
                unsigned long long frozen = 0;
                r = cordon_cgroup_read_key(dir, "cgroup.events", "frozen", &frozen);
                if (r < 0)
                        return r;
                if (frozen == (on ? 1 : 0))
                        return 0;
                sleep_usec(i < 100 ? 50 : 1000);
        }
        return -ETIMEDOUT;
}

static bool done_seen(void *userdata)
{
        const struct cordon_session *s = userdata;
        return s->done_seen;
}

static int from_inside(struct cordon_sandbox *sb, bool stop)
{
        struct cordon_session *s = sb->sess;
        struct cordon_control_msg m = {
            .type = stop ? CORDON_CONTROL_SUSPEND : CORDON_CONTROL_RESUME, .rule = -1, .fd = -1};
        s->done_seen = false;
        int r = cordon_control_send(sb->control[0], &m);
        if (r < 0)
                return r == -EPIPE ? -ENOTCONN : r;
        r = cordon_session_pump(sb, done_seen, s);
        if (r < 0)
                return r;
        return -s->done_err;
}

static int suspend(struct cordon_sandbox *sb, bool stop, struct cordon_diag *diag)
{
        struct cordon_session *s = sb->sess;
        if (!sb->session || !s || s->ended || atomic_load(&sb->ended))
                return cordon_diag_set(diag, -ENOTCONN, "the sandbox is not a live session");
        if (s->suspended == stop)
                return 0;
        const char *cg = own_cgroup(sb);
        enum cordon_suspend_mechanism mech =
            cg ? CORDON_SUSPEND_CGROUP_FREEZE : CORDON_SUSPEND_STOP_SIGNALS;
        int r;
        if (cg)
                r = freeze(cg, stop);
        else if (cordon_backend_ops(sb->l.backend)->suspends_inside)
                r = from_inside(sb, stop);
        else {
                /* The landlock server stops the sandbox itself where Landlock scopes its
                 * signals (one kill(-1) instead of a walk of /proc); else, or when it cannot,
                 * the tree below the reaper is walked from here, the server included, so the
                 * resume of a walked suspend walks too. */
                bool walk = !stop && s->walked;
                r = walk ? -EOPNOTSUPP : from_inside(sb, stop);
                if (r == -EOPNOTSUPP) {
                        walk = true;
                        r = cordon_session_signal_tree(sb->pid, stop ? SIGSTOP : SIGCONT);
                }
                if (r >= 0)
                        s->walked = stop && walk;
        }
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to %s the session (%s): %s",
                                       stop ? "suspend" : "resume",
                                       cordon_suspend_mechanism_to_string(mech), strerror(-r));
        s->suspended = stop;
        sb->report.suspend = mech;
        return 0;
}

_public_ int cordon_sandbox_suspend(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        if (!sb)
                return -EINVAL;
        return suspend(sb, true, diag);
}

_public_ int cordon_sandbox_resume(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        if (!sb)
                return -EINVAL;
        return suspend(sb, false, diag);
}
