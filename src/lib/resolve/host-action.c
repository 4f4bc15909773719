/* Host actions of a policy: planned by lowering without touching the host, taken by the launcher
 * before the sandbox starts, each relative to a parent opened without following symlinks. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/resolve/blocked-refusal.h"
#include "lib/resolve/host-action.h"
#include "lib/policy/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* Opens directory @path with no symlink followed in any component: resolving saw none there. */
static int open_parent(const char *path)
{
        struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
        return fd < 0 ? -errno : fd;
}

/* Takes action @a. Returns 1 when it created something (its identity in @ret), 0 when what it
 * plans was already there, or -errno. */
static int apply_one(const struct cordon_host_action *a, struct cordon_host_created *ret)
{
        const char *slash = strrchr(a->path, '/');
        if (!slash || !slash[1] || a->path[0] != '/')
                return -EINVAL;
        _cleanup_free_ char *parent =
            slash == a->path ? strdup("/") : strndup(a->path, (size_t)(slash - a->path));
        if (!parent)
                return -ENOMEM;
        const char *name = slash + 1;
        _cleanup_close_ int dir = open_parent(parent);
        if (dir < 0)
                return dir;
        struct stat st;
        if (a->kind == CORDON_HOST_MKDIR) {
                if (mkdirat(dir, name, a->mode) == 0) {
                        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                            S_ISDIR(st.st_mode))
                                *ret = (struct cordon_host_created){.dev = st.st_dev,
                                                                    .ino = st.st_ino};
                        return 1;
                }
        } else {
                _cleanup_close_ int f = openat(
                    dir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, a->mode);
                if (f >= 0) {
                        if (fstat(f, &st) == 0)
                                *ret = (struct cordon_host_created){.dev = st.st_dev,
                                                                    .ino = st.st_ino};
                        int r = write_all(f, strempty(a->contents), strlen(strempty(a->contents)));
                        return r < 0 ? r : 1;
                }
        }
        if (errno != EEXIST)
                return -errno;
        /* Made meanwhile (another cordon starting on the same home or project): fine when it is
         * what was planned, which the rules were built on; a symlink or another kind is not. */
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        bool same = a->kind == CORDON_HOST_MKDIR ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
        return same ? 0 : -EEXIST;
}

void cordon_host_created_free(struct cordon_host_created *c, size_t n)
{
        for (size_t i = 0; c && i < n; i++)
                free(c[i].path);
        free(c);
}

struct quiet_created {
        char **paths; /* ~ for the home */
        bool failed;  /* out of memory: the line is left out */
};

static void quiet_clear(struct quiet_created *q)
{
        q->paths = strv_free(q->paths);
}

static void note_created(struct quiet_created *q, const char *home, const char *path)
{
        const char *rel = home && !streq(path, home) && path_is_below(path, home)
                              ? path + strlen(home) + (strcmp(home, "/") != 0)
                              : NULL;
        char *s = NULL;
        if (q->failed || (rel ? asprintf(&s, "~/%s", rel) : asprintf(&s, "%s", path)) < 0 ||
            strv_consume(&q->paths, s) < 0)
                q->failed = true;
}

/* Appends to @buf (of @size, holding *@len bytes) what @fmt gives; false when it does not fit
 * (the buffer keeps what it had). */
_printf_(4, 5) static bool append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(buf + *len, size - *len, fmt, ap);
        va_end(ap);
        if (k < 0 || (size_t)k >= size - *len) {
                buf[*len] = 0;
                return false;
        }
        *len += (size_t)k;
        return true;
}

/* The paths as one line, those of one directory grouped: "~/.claude/{a, b}, /p/.git". */
static char *quiet_line(char **paths)
{
        char text[768] = "";
        size_t len = 0, n = strv_length(paths);
        bool fits = true;
        for (size_t i = 0; i < n && fits;) {
                const char *slash = strrchr(paths[i], '/');
                size_t plen = slash ? (size_t)(slash - paths[i]) : 0;
                size_t j = i + 1, keep = len;
                while (j < n && slash && strncmp(paths[j], paths[i], plen + 1) == 0 &&
                       !strchr(paths[j] + plen + 1, '/'))
                        j++;
                if (j - i == 1)
                        fits = append(text, sizeof(text), &len, "%s%s", len ? ", " : "", paths[i]);
                else {
                        fits = append(text, sizeof(text), &len, "%s%.*s/{", len ? ", " : "",
                                      (int)plen, paths[i]);
                        for (size_t m = i; fits && m < j; m++)
                                fits = append(text, sizeof(text), &len, "%s%s", m > i ? ", " : "",
                                              paths[m] + plen + 1);
                        fits = fits && append(text, sizeof(text), &len, "}");
                }
                if (!fits) {
                        len = keep;
                        text[len] = 0;
                }
                i = j;
        }
        char *line = NULL;
        return asprintf(&line, "created %s%s (they stay, for the next runs)", text,
                        fits ? "" : ", and more") < 0
                   ? NULL
                   : line;
}

/* The BLOCKED_FILES placeholders that could not be made at the apply; @whys owns the reasons
 * @f points at. */
struct blocked {
        struct cordon_blocked_failure *f;
        char **whys;
        size_t n;
};

static void blocked_clear(struct blocked *b)
{
        strv_free(b->whys);
        free(b->f);
}

static int blocked_add(struct blocked *b, const char *path, const char *why, bool creatable,
                       bool parent_missing)
{
        struct cordon_blocked_failure *n = reallocarray(b->f, b->n + 1, sizeof(*b->f));
        if (!n)
                return -ENOMEM;
        b->f = n;
        if (strv_extend(&b->whys, why) < 0)
                return -ENOMEM;
        b->f[b->n++] = (struct cordon_blocked_failure){.path = path,
                                                       .why = b->whys[strv_length(b->whys) - 1],
                                                       .creatable = creatable,
                                                       .parent_missing = parent_missing};
        return 0;
}

int cordon_policy_apply_record(const struct cordon_policy *p, void (*warn)(void *, const char *),
                               void *userdata, struct cordon_host_created **ret_created,
                               size_t *ret_n, char **ret_note, struct cordon_diag *diag)
{
        _cleanup_(quiet_clear) struct quiet_created quiet = {0};
        /* Every action that fails is named (a run with several BLOCKED_FILES that cannot be
         * made is refused once, listing them all, with the fix); those below a failed one are
         * not tried, and a placeholder among them is named as failed too. */
        char failures[sizeof(diag->message)] = "", others[sizeof(diag->message)] = "";
        int first = 0;
        unsigned n_failed = 0, more = 0;
        const char *failed_dir = NULL;
        char failed_why[256] = "";
        bool failed_may_not = false; /* the failed directory's: the caller may not make it */
        _cleanup_(blocked_clear) struct blocked blocked = {0};
        for (size_t i = 0; i < p->n_actions; i++) {
                const struct cordon_host_action *a = &p->actions[i];
                if (failed_dir && path_is_below(a->path, failed_dir)) {
                        if (a->materialized && a->kind == CORDON_HOST_FILE &&
                            blocked_add(&blocked, a->path, failed_why, failed_may_not, true) < 0)
                                return -ENOMEM;
                        continue;
                }
                struct cordon_host_created c = {0};
                int r = apply_one(a, &c);
                if (c.ino && a->materialized && ret_created) {
                        struct cordon_host_created *n =
                            reallocarray(*ret_created, *ret_n + 1, sizeof(**ret_created));
                        if (!n || !(c.path = strdup(a->path))) {
                                if (n)
                                        *ret_created = n;
                                return -ENOMEM;
                        }
                        c.dir = a->kind == CORDON_HOST_MKDIR;
                        *ret_created = n;
                        n[(*ret_n)++] = c;
                }
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        const char *why = r == -ELOOP    ? "a symlink is on its path now"
                                          : r == -EEXIST ? "something else is there now"
                                                         : strerror(-r);
                        first = first ?: r;
                        size_t len = strlen(failures);
                        int k =
                            snprintf(failures + len, sizeof(failures) - 64 - len, "%s'%s' (%s): %s",
                                     len ? "; " : "", a->path, a->reason, why);
                        if (k < 0 || (size_t)k >= sizeof(failures) - 64 - len) {
                                failures[len] = 0;
                                more++;
                        }
                        n_failed++;
                        /* A placeholder's failure (or its directory's, through the placeholders
                         * below it) is named by the refusal over BLOCKED_FILES; the others
                         * after it. */
                        if (!a->materialized) {
                                len = strlen(others);
                                k = snprintf(others + len, sizeof(others) - len, "%s'%s' (%s): %s",
                                             len ? "; " : "", a->path, a->reason, why);
                                if (k < 0 || (size_t)k >= sizeof(others) - len)
                                        others[len] = 0;
                        }
                        bool may_not = r == -EACCES || r == -EPERM || r == -EROFS;
                        if (a->kind == CORDON_HOST_MKDIR) {
                                failed_dir = a->path;
                                failed_may_not = may_not;
                                snprintf(failed_why, sizeof(failed_why),
                                         "cannot create directory '%s': %s", a->path, why);
                        } else if (a->materialized) {
                                char w[256];
                                snprintf(w, sizeof(w), "cannot create it: %s", why);
                                if (blocked_add(&blocked, a->path, w, may_not, false) < 0)
                                        return -ENOMEM;
                        }
                        continue;
                }
                if (r > 0 && a->warning && warn)
                        warn(userdata, a->warning);
                else if (r > 0)
                        note_created(&quiet, p->home_dir, a->path);
        }
        /* What was made without a line of its own (the directories and files the agents and
         * HOME_WRITABLE need, stand-ins): said once, in one line, when it is made. */
        if (quiet.paths && !quiet.failed && (warn || ret_note)) {
                char *line = quiet_line(quiet.paths);
                if (line && !ret_note)
                        warn(userdata, line);
                if (ret_note)
                        *ret_note = line;
                else
                        free(line);
        }
        /* BLOCKED_FILES' refusal names the entries and the fix; what else failed comes after
         * it, as far as it fits. */
        if (blocked.n) {
                cordon_blocked_refusal(diag, first, blocked.f, blocked.n);
                size_t len = diag ? strlen(diag->message) : 0;
                if (*others && diag)
                        snprintf(diag->message + len, sizeof(diag->message) - len,
                                 "; besides, cannot create %s", others);
                return first;
        }
        if (n_failed == 1 && !more)
                return cordon_diag_set(diag, first, "cannot create %s", failures);
        if (n_failed)
                return cordon_diag_set(diag, first, "cannot create %u entries: %s%s", n_failed,
                                       failures, more ? "; and more" : "");
        return 0;
}

int cordon_policy_apply(const struct cordon_policy *p, void (*warn)(void *, const char *),
                        void *userdata, struct cordon_diag *diag)
{
        return cordon_policy_apply_record(p, warn, userdata, NULL, NULL, NULL, diag);
}

/* Removes @c if it is still the object created and empty: 1 removed, 0 kept (with a note), or
 * -errno. */
static int remove_one(const struct cordon_host_created *c, void (*note)(void *, const char *),
                      void *userdata)
{
        const char *slash = strrchr(c->path, '/');
        if (!slash || !slash[1])
                return -EINVAL;
        _cleanup_free_ char *parent =
            slash == c->path ? strdup("/") : strndup(c->path, (size_t)(slash - c->path));
        if (!parent)
                return -ENOMEM;
        _cleanup_close_ int dir = open_parent(parent);
        if (dir < 0)
                return dir == -ENOENT ? 0 : dir;
        struct stat st;
        if (fstatat(dir, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        const char *why = NULL;
        if (st.st_dev != c->dev || st.st_ino != c->ino ||
            (c->dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
                why = "something else is there now";
        else if (!c->dir && st.st_size != 0)
                why = "it is no longer empty";
        else if (unlinkat(dir, slash + 1, c->dir ? AT_REMOVEDIR : 0) == 0)
                return 1;
        else if (errno == ENOTEMPTY || errno == EEXIST)
                why = "it is no longer empty";
        else
                return -errno;
        if (note) {
                _cleanup_free_ char *m = NULL;
                if (asprintf(&m, "kept %s '%s' made for BLOCKED_FILES: %s",
                             c->dir ? "directory" : "placeholder", c->path, why) >= 0)
                        note(userdata, m);
        }
        return 0;
}

int cordon_host_cleanup_materialized(const struct cordon_host_created *c, size_t n,
                                     void (*note)(void *, const char *), void *userdata)
{
        int removed = 0;
        for (size_t i = n; c && i-- > 0;) {
                int r = remove_one(&c[i], note, userdata);
                if (r > 0)
                        removed++;
                else if (r < 0 && note) {
                        _cleanup_free_ char *m = NULL;
                        if (asprintf(&m, "kept '%s' made for BLOCKED_FILES: %s", c[i].path,
                                     strerror(-r)) >= 0)
                                note(userdata, m);
                }
        }
        return removed;
}
