/* The check of repositories after the run (git-after.h). Everything here runs on the host as the
 * user, on a tree the sandbox shaped: directories are opened beneath their parent's fd without
 * following links, names are never joined into paths that are opened again, and every listing
 * counts against one budget. */
#include "lib/launch/git-after.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/policy/git-state.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define SUFFIX ".cordon-untrusted"
/* Directories below a root, and below a git directory, at most. */
#define WALK_DEPTH   128
#define GITDIR_DEPTH 16

struct id {
        dev_t dev;
        ino_t ino;
};

struct walk {
        struct timespec since;
        struct id *kept;
        size_t n_kept;
        size_t entries, max;
        bool stop; /* the budget is spent */
        struct cordon_git_after *out;
};

static bool is_newer(const struct stat *st, const struct timespec *since)
{
        return st->st_ctim.tv_sec > since->tv_sec ||
               (st->st_ctim.tv_sec == since->tv_sec && st->st_ctim.tv_nsec >= since->tv_nsec);
}

static bool is_kept(const struct walk *w, const struct stat *st)
{
        for (size_t i = 0; i < w->n_kept; i++)
                if (w->kept[i].dev == st->st_dev && w->kept[i].ino == st->st_ino)
                        return true;
        return false;
}

/* Notes the first thing left unchecked; later ones are counted by the first's wording. */
static int note_unchecked(struct walk *w, const char *path, const char *what)
{
        if (w->out->unchecked)
                return 0;
        return asprintf(&w->out->unchecked, "'%s': %s", path, what) < 0 ? -ENOMEM : 0;
}

static bool spend(struct walk *w)
{
        if (w->stop)
                return false;
        if (++w->entries > w->max) {
                w->stop = true;
                return false;
        }
        return true;
}

/* @name below @dirfd, never through a link. */
static int open_below(int dirfd, const char *name, int flags)
{
        struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
                               .resolve =
                                   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
        return fd < 0 ? -errno : fd;
}

static DIR *open_listing(int fd)
{
        int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (copy < 0)
                return NULL;
        /* The copy shares the position of @fd, which an earlier listing left at the end. */
        DIR *d = lseek(copy, 0, SEEK_SET) == 0 ? fdopendir(copy) : NULL;
        if (!d)
                safe_close(copy);
        return d;
}

static bool is_dot(const char *name)
{
        return streq(name, ".") || streq(name, "..");
}

/* Whether anything in git directory @fd outside git's writable entries (at the top; everything
 * deeper down) changed since the run began: 1, 0, or -errno. A directory that cannot be listed
 * counts as changed. */
static int changed_since(struct walk *w, int fd, bool top, unsigned depth)
{
        if (depth > GITDIR_DEPTH)
                return 1;
        DIR *d = open_listing(fd);
        if (!d)
                return errno == ENOMEM ? -ENOMEM : 1;
        int r = 0;
        struct dirent *de;
        while (r == 0 && (de = readdir(d))) {
                if (is_dot(de->d_name) || (top && cordon_git_entry_writable(de->d_name)))
                        continue;
                if (!spend(w)) {
                        r = 1;
                        break;
                }
                struct stat st;
                if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue; /* gone */
                if (is_newer(&st, &w->since)) {
                        r = 1;
                        break;
                }
                if (S_ISDIR(st.st_mode)) {
                        int sub = open_below(fd, de->d_name, O_RDONLY | O_DIRECTORY);
                        if (sub < 0) {
                                r = 1;
                                break;
                        }
                        r = changed_since(w, sub, false, depth + 1);
                        safe_close(sub);
                }
        }
        closedir(d);
        return r;
}

/* Regular file @name of @dirfd, at most CORDON_GIT_STATE_MAX bytes, never through a link. */
static int read_state_file(int dirfd, const char *name, struct stat *ret_st, char **ret,
                           size_t *ret_len)
{
        return read_regular_file_at(dirfd, name,
                                    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
                                    CORDON_GIT_STATE_MAX, ret_st, ret, ret_len);
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && streq(s + n - k, suffix);
}

/* Directory @name of @fd holds only regular files whose names @ok accepts. */
static bool dir_holds_only(struct walk *w, int fd, const char *name, bool (*ok)(const char *))
{
        _cleanup_close_ int sub = open_below(fd, name, O_RDONLY | O_DIRECTORY);
        if (sub < 0)
                return false;
        DIR *d = open_listing(sub);
        if (!d)
                return false;
        bool good = true;
        struct dirent *de;
        while (good && (de = readdir(d))) {
                if (is_dot(de->d_name))
                        continue;
                struct stat st;
                good = spend(w) && ok(de->d_name) &&
                       fstatat(sub, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                       S_ISREG(st.st_mode);
        }
        closedir(d);
        return good;
}

static bool is_sample_hook(const char *name)
{
        return has_suffix(name, ".sample");
}

static bool is_info_file(const char *name)
{
        static const char *const names[] = {"exclude", "attributes", "sparse-checkout", "refs",
                                            "grafts"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(name, names[i]))
                        return true;
        return false;
}

static bool is_nothing(const char *name)
{
        (void)name;
        return false;
}

/* What git's own commands leave in a repository they made: 0 when everything at the top of
 * git directory @fd passes, -EPERM with the reason otherwise, -ENOMEM. */
static int judge_contents(struct walk *w, int fd, char *reason, size_t size)
{
        DIR *d = open_listing(fd);
        if (!d)
                return errno == ENOMEM ? -ENOMEM
                                       : (snprintf(reason, size, "it cannot be listed"), -EPERM);
        int r = 0;
        struct dirent *de;
        while (r == 0 && (de = readdir(d))) {
                const char *n = de->d_name;
                struct stat st;
                if (is_dot(n) || cordon_git_entry_writable(n))
                        continue;
                if (!spend(w)) {
                        r = -EPERM;
                        snprintf(reason, size, "it is too large to check");
                        break;
                }
                if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                bool good;
                if (streq(n, "config") || streq(n, "config.worktree")) {
                        _cleanup_free_ char *text = NULL;
                        size_t len = 0;
                        int k = read_state_file(fd, n, &st, &text, &len);
                        if (k == -ENOMEM) {
                                r = k;
                                break;
                        }
                        if (k < 0) {
                                snprintf(reason, size, "its %s cannot be read (%s)", n,
                                         strerror(-k));
                                r = -EPERM;
                                break;
                        }
                        int at = snprintf(reason, size, "its %s: ", n);
                        if (at < 0 || (size_t)at >= size)
                                at = 0;
                        if (cordon_git_config_check(text, len, reason + at, size - at) < 0) {
                                r = -EPERM;
                                break;
                        }
                        reason[0] = 0;
                        continue;
                } else if (streq(n, "description"))
                        good = S_ISREG(st.st_mode);
                else if (streq(n, "hooks"))
                        good = S_ISDIR(st.st_mode) && dir_holds_only(w, fd, n, is_sample_hook);
                else if (streq(n, "info"))
                        good = S_ISDIR(st.st_mode) && dir_holds_only(w, fd, n, is_info_file);
                else if (streq(n, "branches") || streq(n, "modules") || streq(n, "worktrees"))
                        good = S_ISDIR(st.st_mode) && dir_holds_only(w, fd, n, is_nothing);
                else
                        good = false;
                if (!good) {
                        snprintf(reason, size, "'%s' is not what git's own commands leave there",
                                 n);
                        r = -EPERM;
                }
        }
        closedir(d);
        return r;
}

/* The todo lists of a rebase or cherry-pick in git directory @fd changed since the run began
 * and holding a line git runs as a command: the state directory's name in @ret_dir, the reason
 * in @reason, -EPERM. 0 otherwise, or -ENOMEM. */
static int judge_todo(struct walk *w, int fd, const char **ret_dir, char *reason, size_t size)
{
        static const char *const todo[][2] = {{"rebase-merge", "rebase-merge/git-rebase-todo"},
                                              {"sequencer", "sequencer/todo"}};
        for (size_t i = 0; i < ELEMENTSOF(todo); i++) {
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                struct stat st;
                int k = read_state_file(fd, todo[i][1], &st, &text, &len);
                if (k == -ENOMEM)
                        return k;
                if (k == -ENOENT)
                        continue;
                if (k < 0 && k != -EINVAL && k != -EFBIG)
                        continue;
                if (k >= 0 && !is_newer(&st, &w->since))
                        continue;
                int at = snprintf(reason, size, "%s: ", todo[i][1]);
                if (at < 0 || (size_t)at >= size)
                        at = 0;
                if (k < 0 || cordon_git_todo_check(text, len, reason + at, size - at) < 0) {
                        if (k < 0)
                                snprintf(reason + at, size - at,
                                         "not a todo list git would read safely");
                        *ret_dir = todo[i][0];
                        return -EPERM;
                }
                reason[0] = 0;
        }
        return 0;
}

/* Judges git directory @fd: 0 trusted, -EPERM (reason set) untrusted, -ENOMEM. */
static int judge_git_dir(struct walk *w, int fd, char *reason, size_t size)
{
        const char *dir;
        int r = judge_todo(w, fd, &dir, reason, size);
        if (r < 0)
                return r;
        r = changed_since(w, fd, true, 0);
        if (r <= 0)
                return r;
        return judge_contents(w, fd, reason, size);
}

/* Renames @name of @dirfd (shown as @parent/@name) to @name.cordon-untrusted (or -N) without
 * replacing anything, and records it; a move that fails is what stays unchecked. */
static int move_aside(struct walk *w, int dirfd, const char *parent, const char *name,
                      const char *reason)
{
        _cleanup_free_ char *path = path_join(parent, name);
        if (!path)
                return -ENOMEM;
        int err = 0;
        for (unsigned i = 0; i < 100; i++) {
                _cleanup_free_ char *target = NULL;
                if ((i ? asprintf(&target, "%s%s-%u", name, SUFFIX, i)
                       : asprintf(&target, "%s%s", name, SUFFIX)) < 0)
                        return -ENOMEM;
                if (renameat2(dirfd, name, dirfd, target, RENAME_NOREPLACE) == 0) {
                        struct cordon_git_moved *m =
                            reallocarray(w->out->moved, w->out->n_moved + 1, sizeof(*m));
                        if (!m)
                                return -ENOMEM;
                        w->out->moved = m;
                        m += w->out->n_moved;
                        *m = (struct cordon_git_moved){0};
                        w->out->n_moved++;
                        char *to = path_join(parent, target);
                        char *why = strdup(reason);
                        m->path = path;
                        m->moved_to = to;
                        m->reason = why;
                        /* Each is freed by its strv_consume() when that fails. */
                        if (strv_consume(&w->out->strings, TAKE_PTR(path)) < 0) {
                                free(to);
                                free(why);
                                return -ENOMEM;
                        }
                        if (!to || strv_consume(&w->out->strings, to) < 0) {
                                free(why);
                                return -ENOMEM;
                        }
                        return why ? strv_consume(&w->out->strings, why) : -ENOMEM;
                }
                err = errno;
                if (err != EEXIST)
                        break;
        }
        char what[600];
        snprintf(what, sizeof(what), "%s, but it could not be moved aside: %s", reason,
                 strerror(err));
        return note_unchecked(w, path, what);
}

/* The `.git` entry of directory @dirfd (shown as @parent): a git directory, or a file or link
 * naming one. */
static int judge_dotgit(struct walk *w, int dirfd, const char *parent)
{
        struct stat st;
        if (fstatat(dirfd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
                return 0;
        char reason[400] = "";
        _cleanup_close_ int git = -EBADF;
        if (S_ISDIR(st.st_mode)) {
                git = open_below(dirfd, ".git", O_RDONLY | O_DIRECTORY);
        } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
                /* Where git would go: a gitdir file's target, or the link's. */
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                if (S_ISREG(st.st_mode)) {
                        struct stat fst;
                        int k = read_state_file(dirfd, ".git", &fst, &text, &len);
                        if (k == -ENOMEM)
                                return k;
                        while (k >= 0 && len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                                text[--len] = 0;
                        if (k < 0 || strlen(text) != len || strncmp(text, "gitdir: ", 8) != 0)
                                return 0; /* git refuses it */
                        memmove(text, text + 8, len - 7);
                } else {
                        char buf[PATH_MAX];
                        ssize_t n = readlinkat(dirfd, ".git", buf, sizeof(buf) - 1);
                        if (n < 0)
                                return 0;
                        buf[n] = 0;
                        if (!(text = strdup(buf)))
                                return -ENOMEM;
                }
                /* Opened as git would open it, links and all: a target the sandbox could
                 * write is judged like any other. */
                git = openat(path_is_absolute(text) ? AT_FDCWD : dirfd, text,
                             O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (git < 0) {
                        if (!is_newer(&st, &w->since))
                                return 0;
                        snprintf(reason, sizeof(reason),
                                 "a .git %s made in the run names '%s', which is not a directory",
                                 S_ISREG(st.st_mode) ? "file" : "link", text);
                }
        } else {
                return 0;
        }
        if (git >= 0) {
                struct stat gst;
                if (fstat(git, &gst) < 0 || is_kept(w, &gst))
                        return 0;
                int r = judge_git_dir(w, git, reason, sizeof(reason));
                if (r == -ENOMEM)
                        return r;
                if (r == 0)
                        return 0;
        } else if (!*reason) {
                return 0;
        }
        return move_aside(w, dirfd, parent, ".git", reason);
}

/* A directory git would take for a repository of its own (bare): HEAD, objects and refs. */
static bool looks_bare(int fd)
{
        struct stat st;
        return fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
               fstatat(fd, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
               fstatat(fd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static int walk_dir(struct walk *w, int fd, const char *path, unsigned depth);

/* A directory @name of @dirfd that the sandbox made unreadable (a repository could wait in it
 * for the user to open it up) is opened up for its owner: the same object, reached by an
 * O_PATH fd without following a link. 0, or -errno. */
static int open_up(int dirfd, const char *name)
{
        _cleanup_close_ int fd = open_below(dirfd, name, O_PATH | O_DIRECTORY);
        struct stat st;
        char self[64];
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || st.st_uid != geteuid())
                return -EACCES;
        snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
        return chmod(self, (st.st_mode & 07777) | 0700) < 0 ? -errno : 0;
}

/* Directory @name of @dirfd (shown as @parent/@name). */
static int walk_child(struct walk *w, int dirfd, const char *parent, const char *name,
                      unsigned depth)
{
        _cleanup_free_ char *path = path_join(parent, name);
        if (!path)
                return -ENOMEM;
        _cleanup_close_ int fd = open_below(dirfd, name, O_RDONLY | O_DIRECTORY);
        if (fd == -EACCES && open_up(dirfd, name) == 0)
                fd = open_below(dirfd, name, O_RDONLY | O_DIRECTORY);
        if (fd == -ENOTDIR || fd == -ELOOP || fd == -ENOENT)
                return 0; /* not a directory after all */
        if (fd < 0)
                return fd == -ENOMEM ? fd : note_unchecked(w, path, strerror(-fd));
        struct stat st;
        if (fstat(fd, &st) < 0 || is_kept(w, &st))
                return 0;
        if (looks_bare(fd)) {
                char reason[400] = "";
                int r = judge_git_dir(w, fd, reason, sizeof(reason));
                if (r == -EPERM)
                        return move_aside(w, dirfd, parent, name, reason);
                return r;
        }
        if (depth >= WALK_DEPTH)
                return note_unchecked(w, path, "nested too deep to check");
        return walk_dir(w, fd, path, depth + 1);
}

static int walk_dir(struct walk *w, int fd, const char *path, unsigned depth)
{
        DIR *d = open_listing(fd);
        if (!d)
                return errno == ENOMEM ? -ENOMEM : note_unchecked(w, path, strerror(errno));
        int r = 0;
        bool dotgit = false;
        struct dirent *de;
        while (r >= 0 && (de = readdir(d))) {
                const char *n = de->d_name;
                if (is_dot(n))
                        continue;
                if (!spend(w))
                        break;
                if (streq(n, ".git")) {
                        dotgit = true;
                        continue;
                }
                if (has_suffix(n, SUFFIX) || strstr(n, SUFFIX "-"))
                        continue;
                unsigned char type = de->d_type;
                if (type == DT_UNKNOWN) {
                        struct stat st;
                        if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
                                continue;
                        type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
                }
                if (type == DT_DIR)
                        r = walk_child(w, fd, path, n, depth);
        }
        closedir(d);
        if (r >= 0 && dotgit)
                r = judge_dotgit(w, fd, path);
        return r;
}

/* A kept git directory: only its todo lists; a state directory with a command in its todo is
 * moved aside. */
static int judge_kept(struct walk *w, const char *git)
{
        struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        _cleanup_close_ int fd = (int)syscall(SYS_openat2, AT_FDCWD, git, &how, sizeof(how));
        if (fd < 0)
                return 0;
        const char *dir = NULL;
        char reason[400] = "";
        int r = judge_todo(w, fd, &dir, reason, sizeof(reason));
        if (r != -EPERM)
                return r;
        return move_aside(w, fd, git, dir, reason);
}

int cordon_git_after_check(char *const *roots, char *const *kept, const struct timespec *since,
                           size_t max_entries, struct cordon_git_after *ret)
{
        struct walk w = {.since = *since, .max = max_entries, .out = ret};
        *ret = (struct cordon_git_after){0};
        int r = 0;
        _cleanup_free_ struct id *ids = NULL;
        size_t n = 0;
        for (char *const *k = kept; k && *k; k++)
                n++;
        if (n && !(ids = calloc(n, sizeof(*ids))))
                return -ENOMEM;
        w.kept = ids;
        for (char *const *k = kept; k && *k; k++) {
                struct stat st;
                if (lstat(*k, &st) == 0 && S_ISDIR(st.st_mode))
                        ids[w.n_kept++] = (struct id){st.st_dev, st.st_ino};
        }
        for (char *const *k = kept; r >= 0 && k && *k; k++)
                r = judge_kept(&w, *k);
        for (char *const *it = roots; r >= 0 && it && *it; it++) {
                struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW,
                                       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
                _cleanup_close_ int fd =
                    (int)syscall(SYS_openat2, AT_FDCWD, *it, &how, sizeof(how));
                if (fd < 0) {
                        r = note_unchecked(&w, *it, strerror(errno));
                        continue;
                }
                r = walk_dir(&w, fd, *it, 0);
        }
        if (r >= 0 && w.stop) {
                char what[160];
                snprintf(what, sizeof(what), "more than %zu entries below the writable roots",
                         max_entries);
                free(ret->unchecked);
                ret->unchecked = NULL;
                r = note_unchecked(&w, roots && *roots ? roots[0] : "", what);
        }
        if (r < 0)
                cordon_git_after_clear(ret);
        return r;
}

void cordon_git_after_clear(struct cordon_git_after *a)
{
        free(a->moved);
        strv_free(a->strings);
        free(a->unchecked);
        *a = (struct cordon_git_after){0};
}
