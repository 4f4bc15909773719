/* Attaching a bind to a live session (cordon/session.h) under the ns backend, with the new
 * mount API and no privilege: a first helper, in a user and mount namespace of its own (where
 * it may mount), clones the host tree with open_tree() and makes it read-only, nosuid and
 * nodev; a second one joins the session's user and mount namespaces (PID 1 sent them: the
 * supervisor's user owns that user namespace, so it has every capability there) and moves the
 * detached tree onto the target with move_mount(). Neither ever runs anything of the sandbox. */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/backend.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/supervisor/session.h"
#include "lib/mech/mount-util.h"
#include "lib/policy/diag.h"
#include "lib/policy/policy.h"
#include "lib/settings/settings.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* The steps a helper reports a failure at, for the message. */
enum {
        AT_SOURCE = 1, /* reopening the source in the helper's namespace */
        AT_CHANGED,    /* it is no longer the object checked */
        AT_CLONE,      /* open_tree() */
        AT_ATTR,       /* mount_setattr() */
        AT_JOIN,       /* setns() into the session */
        AT_TARGET,     /* the target inside */
        AT_MOVE,       /* move_mount() */
};

static const char *step_name(int step)
{
        switch (step) {
        case AT_SOURCE:
                return "reopening the source";
        case AT_CHANGED:
                return "the source changed while it was attached";
        case AT_CLONE:
                return "cloning the source's mount";
        case AT_ATTR:
                return "setting the mount's flags";
        case AT_JOIN:
                return "joining the session's namespaces";
        case AT_TARGET:
                return "opening the target inside";
        case AT_MOVE:
                return "mounting it on the target";
        }
        return "attaching";
}

/* A helper ends with (step << 8 | errno) as its exit code's pair in a pipe; 0: done. */
_Noreturn static void helper_exit(int status_fd, int step, int err)
{
        int v[2] = {step, err < 0 ? -err : err};
        (void)!write(status_fd, v, sizeof(v));
        _exit(step ? 1 : 0);
}

/* The first helper: the host tree, cloned where this process may mount. */
_Noreturn static void clone_source(const char *host, const struct stat *want, bool rw, int sock,
                                   int status_fd)
{
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
                helper_exit(status_fd, AT_CLONE, errno);
        /* Looked up again in this namespace (open_tree() clones only a mount of the caller's),
         * and held to the object the supervisor checked. */
        int src = cordon_open_host_path(host);
        if (src < 0)
                helper_exit(status_fd, AT_SOURCE, src);
        struct stat st;
        if (fstat(src, &st) < 0)
                helper_exit(status_fd, AT_SOURCE, errno);
        if (st.st_dev != want->st_dev || st.st_ino != want->st_ino)
                helper_exit(status_fd, AT_CHANGED, ESTALE);
        int tree = cordon_clone_tree(
            src, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (rw ? 0 : MOUNT_ATTR_RDONLY), true);
        if (tree < 0)
                helper_exit(status_fd, AT_CLONE, tree);
        int r = fd_send(sock, 'T', tree);
        helper_exit(status_fd, r < 0 ? AT_CLONE : 0, r);
}

/* The second helper: inside the session, the tree onto the target (made when missing). */
_Noreturn static void mount_inside(const int ns_fds[2], const char *guest, bool dir, int sock,
                                   int status_fd)
{
        int tree = fd_recv(sock, NULL);
        if (tree < 0)
                helper_exit(status_fd, AT_CLONE, tree);
        if (setns(ns_fds[0], CLONE_NEWUSER) < 0 || setns(ns_fds[1], CLONE_NEWNS) < 0)
                helper_exit(status_fd, AT_JOIN, errno);
        /* The session's file system is its own: a link it planted on the way must not move the
         * mount elsewhere. The target is made when missing (its parents too). */
        _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                helper_exit(status_fd, AT_TARGET, errno);
        int target = cordon_make_mountpoint(root, guest + 1, dir);
        if (target < 0)
                helper_exit(status_fd, AT_TARGET, target);
        int r = cordon_move_mount_fd(tree, target);
        if (r < 0)
                helper_exit(status_fd, AT_MOVE, r);
        helper_exit(status_fd, 0, 0);
}

/* Whether @path lies at or below, or above, any of @paths; the first found in *@ret_hit. */
static bool overlaps(char *const *paths, const char *path, bool above_too, const char **ret_hit)
{
        for (size_t i = 0; paths && paths[i]; i++)
                if (path_is_below(path, paths[i]) || (above_too && path_is_below(paths[i], path))) {
                        *ret_hit = paths[i];
                        return true;
                }
        return false;
}

/* The checks of an attach's source: @masked, @readonly and @denied as a session copies them
 * from its policy. */
static int check_source(char *const *masked, char *const *readonly,
                        const struct cordon_list *denied, const char *host_path, bool rw,
                        struct cordon_diag *diag)
{
        const char *hit = NULL;
        if (overlaps(masked, host_path, true, &hit))
                return cordon_diag_set(
                    diag, -EACCES, "'%s' would show '%s', which the session hides", host_path, hit);
        if (!rw)
                return 0;
        for (size_t i = 0; readonly && readonly[i]; i++)
                if (path_is_below(readonly[i], host_path) && strcmp(readonly[i], "/") != 0)
                        return cordon_diag_set(diag, -EACCES,
                                               "'%s' holds '%s', which the session keeps read-only",
                                               host_path, readonly[i]);
        const struct cordon_item *entry = NULL;
        int r = cordon_settings_path_denied(denied, host_path, &entry);
        if (r < 0)
                return r;
        if (r > 0)
                return cordon_diag_set(
                    diag, -EACCES,
                    "'%s' overlaps admin-denied DENIED_WRITABLE_PATHS entry '%s' "
                    "(from %s)",
                    host_path, entry->value, entry->origin);
        return 0;
}

_public_ int cordon_policy_check_source(const struct cordon_policy *p, const char *host_path,
                                        unsigned flags, struct cordon_diag *diag)
{
        if (!p || !host_path || (flags & ~(unsigned)CORDON_ATTACH_READ_WRITE))
                return -EINVAL;
        if (!path_is_normal(host_path))
                return cordon_diag_set(diag, -EINVAL,
                                       "'%s' must be an absolute path without '.' or '..' "
                                       "components",
                                       host_path);
        _cleanup_strv_free_ char **masked = NULL, **readonly = NULL;
        int r = 0;
        for (size_t i = 0; r >= 0 && i < p->n_fs; i++) {
                const struct cordon_fs_rule *f = &p->fs[i];
                if (f->access == CORDON_ACCESS_MASKED && f->guest)
                        r = cordon_session_add_path(&masked, f->guest);
                else if (f->access == CORDON_ACCESS_RO && f->host)
                        r = cordon_session_add_path(&readonly, f->host);
        }
        if (r < 0)
                return r;
        return check_source(masked, readonly, &p->denied_writable, host_path,
                            flags & CORDON_ATTACH_READ_WRITE, diag);
}

/* Whether the session's Landlock rules open @guest for @rw's access (no Landlock: yes). */
static bool landlock_reaches(const struct cordon_sandbox *sb, const char *guest, bool rw)
{
        const struct cordon_launch *l = &sb->l;
        if (!l->landlock)
                return true;
        const uint64_t need = rw ? LANDLOCK_ACCESS_FS_WRITE_FILE : LANDLOCK_ACCESS_FS_READ_FILE;
        for (size_t i = 0; i < l->ll.n_rules; i++)
                if ((l->ll.rules[i].access & need) && path_is_below(guest, l->ll.rules[i].path))
                        return true;
        return false;
}

static int run_helpers(struct cordon_sandbox *sb, const char *host, const struct stat *st,
                       const char *guest, bool rw, int *ret_step)
{
        int sv[2], stp[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        if (pipe2(stp, O_CLOEXEC) < 0) {
                int e = errno;
                safe_close(sv[0]);
                safe_close(sv[1]);
                return -e;
        }
        pid_t a = fork();
        if (a == 0)
                clone_source(host, st, rw, sv[0], stp[1]);
        pid_t b = a < 0 ? -1 : fork();
        if (b == 0)
                mount_inside(sb->ns_fds, guest, S_ISDIR(st->st_mode), sv[1], stp[1]);
        int err = a < 0 || b < 0 ? errno : 0;
        safe_close(sv[0]);
        safe_close(sv[1]);
        safe_close(stp[1]);
        int r = 0;
        /* One report from each helper that failed; the first decides. */
        int v[2];
        *ret_step = 0;
        while (read(stp[0], v, sizeof(v)) == (ssize_t)sizeof(v))
                if (v[0] && !*ret_step) {
                        *ret_step = v[0];
                        r = v[1] > 0 ? -v[1] : -EIO;
                }
        safe_close(stp[0]);
        for (int i = 0; i < 2; i++) {
                pid_t pid = i ? b : a;
                int status = 0;
                if (pid > 0) {
                        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                                ;
                        if (r >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
                                r = -EIO;
                }
        }
        if (err)
                return -err;
        return r;
}

_public_ int cordon_sandbox_attach(struct cordon_sandbox *sb, const char *host_path,
                                   const char *guest_path, unsigned flags, struct cordon_diag *diag)
{
        if (!sb || !host_path || !guest_path || (flags & ~(unsigned)CORDON_ATTACH_READ_WRITE))
                return -EINVAL;
        if (diag)
                diag->step = CORDON_STEP_MOUNT;
        struct cordon_session *s = sb->sess;
        if (!sb->session || !s || s->ended || atomic_load(&sb->ended))
                return cordon_diag_set(diag, -ENOTCONN, "the sandbox is not a live session");
        if (!cordon_backend_ops(sb->l.backend)->mount_ns || sb->ns_fds[0] < 0 || sb->ns_fds[1] < 0)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "the landlock backend has no mount namespace to attach "
                                       "'%s' to",
                                       guest_path);
        if (!path_is_normal(host_path) || !path_is_normal(guest_path) ||
            strcmp(guest_path, "/") == 0)
                return cordon_diag_set(diag, -EINVAL,
                                       "'%s' and '%s' must be absolute paths without '.' or '..' "
                                       "components (and the target not '/')",
                                       host_path, guest_path);
        const bool rw = flags & CORDON_ATTACH_READ_WRITE;
        int r = check_source(s->masked, s->readonly, &s->denied_writable, host_path, rw, diag);
        if (r < 0)
                return r;
        const char *hit = NULL;
        if (overlaps(s->masked, guest_path, false, &hit))
                return cordon_diag_set(diag, -EACCES, "'%s' lies in '%s', which the session hides",
                                       guest_path, hit);
        if (!landlock_reaches(sb, guest_path, rw))
                return cordon_diag_set(diag, -EACCES,
                                       "'%s' is not below a directory the session's Landlock "
                                       "rules open for %s",
                                       guest_path, rw ? "writing" : "reading");
        /* The source, one component at a time, no link followed (a planted one refuses). */
        _cleanup_close_ int src = cordon_open_host_path(host_path);
        if (src < 0)
                return cordon_diag_set(diag, src,
                                       src == -ELOOP ? "'%s' has a symbolic link on its way"
                                                     : "cannot open '%s': %s",
                                       host_path, strerror(-src));
        struct stat st;
        if (fstat(src, &st) < 0)
                return cordon_diag_set(diag, -errno, "cannot stat '%s': %m", host_path);
        if (S_ISLNK(st.st_mode))
                return cordon_diag_set(diag, -ELOOP, "'%s' is a symbolic link", host_path);
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
                return cordon_diag_set(diag, -EINVAL, "'%s' is neither a directory nor a file",
                                       host_path);
        int step = 0;
        r = run_helpers(sb, host_path, &st, guest_path, rw, &step);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to attach '%s' at '%s': %s: %s", host_path,
                                       guest_path, step_name(step), strerror(-r));
        return 0;
}
