/* A session's snapshot and its restore (cordon/session.h) on the snapshot module
 * (lib/snapshot): which trees a session owns, and how the supervisor reaches them. Under the ns
 * backend they are tmpfs mounts inside the session's mount namespace: a helper joins its user
 * and mount namespaces, opens each without following a link of the session's, and hands the
 * descriptors back; the supervisor reads and writes through them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <linux/openat2.h>
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
#include "lib/policy/diag.h"
#include "lib/snapshot/snapshot.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"

struct tree {
        char name[65];
        const char *guest;
        int fd;
};

/* The archive name of a guest path: "/tmp" -> "tmp", "/home/ada" -> "home_ada". */
static void tree_name(const char *guest, char out[65])
{
        size_t k = 0;
        for (const char *p = guest; *p && k < 64; p++) {
                char c = *p;
                if (c == '/') {
                        if (k == 0)
                                continue;
                        c = '_';
                } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                             (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
                        c = '_';
                if (k == 0 && c == '.')
                        c = '_';
                out[k++] = c;
        }
        if (k == 0)
                out[k++] = 'r';
        out[k] = 0;
}

/* In the helper: each guest path opened inside, sent as it comes ('E' without one: missing). */
_Noreturn static void open_inside(const struct cordon_sandbox *sb, char *const *guests, int sock)
{
        if (setns(sb->ns_fds[0], CLONE_NEWUSER) < 0 || setns(sb->ns_fds[1], CLONE_NEWNS) < 0)
                _exit(1);
        for (size_t i = 0; guests[i]; i++) {
                struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                                       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
                int fd = (int)syscall(SYS_openat2, AT_FDCWD, guests[i], &how, sizeof(how));
                if (fd_send(sock, fd >= 0 ? 'F' : 'E', fd) < 0)
                        _exit(1);
        }
        _exit(0);
}

int cordon_session_check_host_trees(const struct cordon_sandbox_options *o,
                                    struct cordon_diag *diag)
{
        if (o->n_host_trees == 0)
                return 0;
        if (!o->host_trees || !(o->flags & CORDON_SANDBOX_SESSION))
                return cordon_diag_set(diag, -EINVAL, "host trees are a session's");
        if (o->n_host_trees > CORDON_SESSION_HOST_TREES_MAX)
                return cordon_diag_set(diag, -EINVAL, "%zu host trees: at most %d", o->n_host_trees,
                                       CORDON_SESSION_HOST_TREES_MAX);
        for (size_t i = 0; i < o->n_host_trees; i++) {
                const struct cordon_host_tree *t = &o->host_trees[i];
                size_t len = t->name ? strlen(t->name) : 0;
                bool ok = len >= 1 && len <= 32 && t->name[0] != '.';
                for (size_t k = 0; ok && k < len; k++) {
                        char c = t->name[k];
                        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                             (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
                }
                for (size_t j = 0; ok && j < i; j++)
                        ok = strcmp(o->host_trees[j].name, t->name) != 0;
                if (!ok)
                        return cordon_diag_set(diag, -EINVAL,
                                               "host tree %zu: its name '%s' is not 1 to 32 "
                                               "letters, digits, '.', '_' or '-' (not first), "
                                               "or is taken",
                                               i, t->name ? t->name : "");
                if (!t->path || !path_is_normal(t->path) || strcmp(t->path, "/") == 0)
                        return cordon_diag_set(diag, -EINVAL,
                                               "host tree '%s': '%s' must be an absolute path "
                                               "without '.' or '..' components, not '/'",
                                               t->name, t->path ? t->path : "");
        }
        return 0;
}

/* The session's host trees after its own @n in @ret: each opened with no link followed. */
static int open_host_trees(struct cordon_session *s, struct tree *ret, size_t *n,
                           struct cordon_diag *diag)
{
        for (size_t i = 0; s->host_paths && s->host_paths[i]; i++) {
                if (*n == CORDON_SNAPSHOT_TREES_MAX)
                        return cordon_diag_set(diag, -E2BIG, "the session has too many trees");
                struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                                       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
                int fd = (int)syscall(SYS_openat2, AT_FDCWD, s->host_paths[i], &how, sizeof(how));
                if (fd < 0)
                        return cordon_diag_set(diag, -errno,
                                               errno == ELOOP
                                                   ? "'%s' has a symbolic link on its way"
                                                   : "cannot open '%s': %m",
                                               s->host_paths[i]);
                snprintf(ret[*n].name, sizeof(ret[*n].name), "host-%s", s->host_names[i]);
                ret[*n].guest = s->host_paths[i];
                ret[(*n)++].fd = fd;
        }
        return 0;
}

static void trees_close(struct tree *t, size_t n)
{
        for (size_t i = 0; i < n; i++)
                t[i].fd = safe_close(t[i].fd);
}

/* The session's trees, opened: @ret (CORDON_SNAPSHOT_TREES_MAX of them), their count in
 * *@ret_n. */
static int open_trees(struct cordon_sandbox *sb, struct tree *ret, size_t *ret_n,
                      struct cordon_diag *diag)
{
        struct cordon_session *s = sb->sess;
        size_t n = 0;
        if (!cordon_backend_ops(sb->l.backend)->mount_ns) {
                if (!sb->l.tmpdir)
                        return cordon_diag_set(diag, -ENOENT, "the session has no tree of its own");
                int fd = open(sb->l.tmpdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return cordon_diag_set(diag, -errno, "cannot open '%s': %m", sb->l.tmpdir);
                ret[0] = (struct tree){.name = "tmp", .guest = sb->l.tmpdir, .fd = fd};
                n = 1;
                int r = open_host_trees(s, ret, &n, diag);
                if (r < 0) {
                        trees_close(ret, n);
                        return r;
                }
                *ret_n = n;
                return 0;
        }
        if (sb->ns_fds[0] < 0 || sb->ns_fds[1] < 0 || !s->owned || !s->owned[0])
                return cordon_diag_set(diag, -ENOENT, "the session has no tree of its own");
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid == 0) {
                safe_close(sv[0]);
                open_inside(sb, s->owned, sv[1]);
        }
        safe_close(sv[1]);
        int r = pid < 0 ? -errno : 0;
        for (size_t i = 0; r >= 0 && s->owned[i]; i++) {
                int fd = fd_recv(sv[0], NULL);
                if (fd == -ENOENT)
                        continue; /* not there (yet): nothing of it to keep */
                if (fd < 0) {
                        r = fd;
                        break;
                }
                if (n == CORDON_SNAPSHOT_TREES_MAX) {
                        safe_close(fd);
                        r = -E2BIG;
                        break;
                }
                ret[n].guest = s->owned[i];
                tree_name(s->owned[i], ret[n].name);
                ret[n++].fd = fd;
        }
        safe_close(sv[0]);
        if (pid > 0)
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        if (r < 0) {
                trees_close(ret, n);
                return cordon_diag_set(diag, r, "failed to open the session's trees: %s",
                                       strerror(-r));
        }
        if ((r = open_host_trees(s, ret, &n, diag)) < 0) {
                trees_close(ret, n);
                return r;
        }
        *ret_n = n;
        return 0;
}

static char *manifest_extra(const struct cordon_sandbox *sb, const struct tree *t, size_t n)
{
        _cleanup_json_ json_t *o = json_object(), *trees = json_object();
        _cleanup_free_ char *rep = NULL;
        if (!o || !trees)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (json_object_set_new(trees, t[i].name, json_string(t[i].guest)) < 0)
                        return NULL;
        json_t *report = NULL;
        if (cordon_report_to_json(&sb->report, 0, &rep) >= 0)
                report = json_loads(rep, 0, NULL);
        if (json_object_set_new(o, "backend",
                                json_string(cordon_backend_to_string(sb->l.backend))) < 0 ||
            json_object_set(o, "trees", trees) < 0 ||
            json_object_set_new(o, "report", report ?: json_null()) < 0)
                return NULL;
        return json_dumps(o, JSON_COMPACT);
}

_public_ int cordon_sandbox_snapshot(struct cordon_sandbox *sb, const char *path,
                                     struct cordon_diag *diag)
{
        if (!sb || !path || !*path)
                return -EINVAL;
        if (diag)
                diag->step = CORDON_STEP_NONE;
        struct cordon_session *s = sb->sess;
        if (!sb->session || !s || s->ended || atomic_load(&sb->ended))
                return cordon_diag_set(diag, -ENOTCONN, "the sandbox is not a live session");
        _cleanup_free_ char *dir = strdup(path), *base = strdup(path);
        if (!dir || !base)
                return -ENOMEM;
        const char *b = basename(base);
        if (!*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0 || strcmp(b, "/") == 0)
                return cordon_diag_set(diag, -EINVAL, "'%s' names no file", path);
        _cleanup_close_ int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return cordon_diag_set(diag, -errno, "cannot open the directory of '%s': %m", path);
        /* A frozen session: its trees do not change while they are read. */
        const bool was = s->suspended;
        int r = was ? 0 : cordon_sandbox_suspend(sb, diag);
        if (r < 0)
                return r;
        struct tree t[CORDON_SNAPSHOT_TREES_MAX];
        size_t n = 0;
        r = open_trees(sb, t, &n, diag);
        if (r >= 0) {
                struct cordon_snapshot_dir dirs[CORDON_SNAPSHOT_TREES_MAX];
                for (size_t i = 0; i < n; i++)
                        dirs[i] = (struct cordon_snapshot_dir){.name = t[i].name, .dirfd = t[i].fd};
                _cleanup_free_ char *extra = manifest_extra(sb, t, n);
                struct cordon_snapshot_stats st;
                r = extra ? cordon_snapshot_write(dirs, n, extra, dfd, b, &st, diag) : -ENOMEM;
                trees_close(t, n);
        }
        int q = was ? 0 : cordon_sandbox_resume(sb, r < 0 ? NULL : diag);
        return r < 0 ? r : q;
}

/* Removes what @dfd holds, by descriptors only (no link followed, no other file system
 * entered), at most @depth levels down. Best effort. */
static void empty_dir(int dfd, int depth)
{
        int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
        DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
        if (!d) {
                safe_close(dup_fd);
                return;
        }
        rewinddir(d); /* the copy shares the offset an earlier listing left at the end */
        struct dirent *de;
        while ((de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (unlinkat(dfd, de->d_name, 0) == 0 || errno != EISDIR || depth <= 0)
                        continue;
                int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0) {
                        empty_dir(sub, depth - 1);
                        safe_close(sub);
                }
                (void)unlinkat(dfd, de->d_name, AT_REMOVEDIR);
        }
        closedir(d);
}

/* Moves every entry of @from into @to: renamed where @to has none of the name; two directories
 * merged; otherwise what @to has stays (what the new session's start made there, such as its
 * copies of the tools' configuration, is the new session's) and the restored entry goes. */
static int merge_into(int from, int to, int depth)
{
        int dup_fd = fcntl(from, F_DUPFD_CLOEXEC, 3);
        DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
        if (!d) {
                int e = -errno;
                safe_close(dup_fd);
                return e;
        }
        rewinddir(d);
        int r = 0;
        struct dirent *de;
        while (r >= 0 && (de = readdir(d))) {
                const char *n = de->d_name;
                if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
                        continue;
                if (renameat2(from, n, to, n, RENAME_NOREPLACE) == 0)
                        continue;
                if (errno != EEXIST) {
                        r = -errno;
                        break;
                }
                struct stat a, b;
                if (depth > 0 && fstatat(from, n, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
                    fstatat(to, n, &b, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(a.st_mode) &&
                    S_ISDIR(b.st_mode)) {
                        _cleanup_close_ int fa =
                            openat(from, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        _cleanup_close_ int fb =
                            openat(to, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (fa < 0 || fb < 0) {
                                r = -errno;
                                break;
                        }
                        r = merge_into(fa, fb, depth - 1);
                }
        }
        closedir(d);
        return r;
}

int cordon_session_restore(struct cordon_sandbox *sb, const char *path, struct cordon_diag *diag)
{
        _cleanup_close_ int afd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (afd < 0)
                return cordon_diag_set(diag, -errno, "cannot open the snapshot '%s': %m", path);
        struct tree t[CORDON_SNAPSHOT_TREES_MAX];
        size_t n = 0;
        int r = open_trees(sb, t, &n, diag);
        if (r < 0)
                return r;
        /* The new session's trees hold what its start made: the archive goes into an empty
         * directory of each first (the module restores into empty trees only), then into the
         * tree itself. */
        struct cordon_snapshot_dir dirs[CORDON_SNAPSHOT_TREES_MAX];
        int stage[CORDON_SNAPSHOT_TREES_MAX];
        char stage_name[64];
        snprintf(stage_name, sizeof(stage_name), ".cordon-restore-%d", (int)getpid());
        size_t k = 0;
        for (; k < n; k++) {
                stage[k] = -EBADF;
                if (mkdirat(t[k].fd, stage_name, 0700) < 0 ||
                    (stage[k] = openat(t[k].fd, stage_name,
                                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                        r = cordon_diag_set(diag, -errno, "cannot make a directory in '%s': %m",
                                            t[k].guest);
                        break;
                }
                dirs[k] = (struct cordon_snapshot_dir){.name = t[k].name, .dirfd = stage[k]};
        }
        if (r >= 0)
                r = cordon_snapshot_restore(afd, dirs, n, NULL, NULL, diag);
        for (size_t i = 0; r >= 0 && i < n; i++)
                if ((r = merge_into(stage[i], t[i].fd, 256)) < 0)
                        cordon_diag_set(diag, r, "failed to move the restored '%s' in place: %s",
                                        t[i].guest, strerror(-r));
        for (size_t i = 0; i < k; i++) {
                if (stage[i] >= 0) {
                        empty_dir(stage[i], 256);
                        safe_close(stage[i]);
                }
                (void)unlinkat(t[i].fd, stage_name, AT_REMOVEDIR);
        }
        trees_close(t, n);
        return r;
}
