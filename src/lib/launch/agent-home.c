/* The agents' private homes on the host (agent-home.h). Before the clone the homes are made from
 * host files cordon trusts; after the end their copies are hostile input: read beneath the run
 * directory's fd without following links, bounded, parsed, and only the profile's keys flow
 * into the host file, which is replaced by rename under a lock so that concurrent runs do not
 * lose each other's keys. A JSON file is written out whole; a TOML file (codex's config.toml)
 * is edited in place, its comments and layout kept (policy/agent-toml.h), by the parser run in
 * a confined child (agent-toml-child.h), never in this process. */
#include "lib/launch/agent-home.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/launch/agent-toml-child.h"
#include "lib/policy/agent-json.h"
#include "lib/policy/agent-toml.h"
#include "lib/policy/diag.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* How long a write-back waits for the lock on a host file: 100 tries, 20 ms apart. */
#define LOCK_TRIES     100
#define LOCK_WAIT_USEC 20000

/* The run directories' names (lower-agent-home.c), how old one must be before a start may
 * take it for stale, and how many a sweep looks at. */
#define RUN_DIR_PREFIX  "cordon-agents-"
#define NEW_SUFFIX      ".new"
#define STALE_AFTER_SEC 60
#define SWEEP_MAX       1024u

/* Entries of an agent's directory mirrored at most. */
#define MIRROR_MAX 4096u

struct cordon_agent_base {
        char *agent;
        char *host; /* the host file */
        char *rel;  /* the copy, relative to the run directory */
        char *text; /* what was handed in */
        char **patterns;
        bool absent; /* nothing was: a copy the agent did not make is no change */
        bool toml;   /* TOML, edited in place; else JSON */
};

static int openat2_flags(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve)
{
        struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
                               .mode = (flags & O_CREAT) ? mode : 0,
                               .resolve = resolve};
        int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
        return fd < 0 ? -errno : fd;
}

/* A regular file's contents, at most CORDON_AGENT_COPY_MAX bytes: @dirfd/@path opened with
 * @resolve, never through a final link. -ENOENT when missing. */
static int read_file(int dirfd, const char *path, uint64_t resolve, char **ret, size_t *ret_len)
{
        return read_regular_file_at(dirfd, path, resolve, CORDON_AGENT_COPY_MAX, NULL, ret,
                                    ret_len);
}

static int mkdir_p_at(int dirfd, const char *rel)
{
        _cleanup_free_ char *path = strdup(rel);
        if (!path)
                return -ENOMEM;
        for (char *c = path;; c++) {
                if (*c != '/' && *c)
                        continue;
                char was = *c;
                *c = 0;
                if (*path && mkdirat(dirfd, path, 0700) < 0 && errno != EEXIST)
                        return -errno;
                if (!was)
                        return 0;
                *c = was;
        }
}

static int write_new(int dirfd, const char *rel, const char *text, size_t len)
{
        _cleanup_free_ char *parent = strdup(rel);
        if (!parent)
                return -ENOMEM;
        char *slash = strrchr(parent, '/');
        int r;
        if (slash) {
                *slash = 0;
                if ((r = mkdir_p_at(dirfd, parent)) < 0)
                        return r;
        }
        _cleanup_close_ int fd = openat2_flags(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
                                               0600, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
        if (fd < 0)
                return fd;
        return write_all(fd, text, len);
}

static bool copy_at(const struct cordon_agent_home *h, const char *rel)
{
        for (size_t i = 0; i < h->n_copies; i++)
                if (streq(h->copies[i].name, rel))
                        return true;
        return false;
}

/* A link in @h's root at mirror @m's name for each entry of its host directory. */
static int make_mirror(int root, const struct cordon_agent_home *h,
                       const struct cordon_agent_mirror *m)
{
        int r;
        if (*m->name && (r = mkdir_p_at(root, m->name)) < 0)
                return r;
        DIR *d = opendir(m->host);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        _cleanup_strv_free_ char **names = NULL;
        r = dir_read_names(d, MIRROR_MAX, &names, NULL);
        closedir(d);
        if (r < 0)
                return r;
        STRV_FOREACH (e, names) {
                _cleanup_free_ char *rel = *m->name ? path_join(m->name, *e) : strdup(*e);
                _cleanup_free_ char *target = path_join(m->guest, *e);
                if (!rel || !target)
                        return -ENOMEM;
                if (copy_at(h, rel))
                        continue;
                if (symlinkat(target, root, rel) < 0 && errno != EEXIST)
                        return -errno;
        }
        return 0;
}

/* The text handed in for copy @c: the host file (empty when missing), with the overlay. */
static int copy_text(const struct cordon_agent_copy *c,
                     void (*warn)(void *userdata, const char *line), void *userdata, char **ret,
                     size_t *ret_len)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r =
            read_file(AT_FDCWD, c->host, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, &text, &len);
        char line[1024];
        if (r == -ENOENT || r == -ELOOP || r == -EINVAL || r == -EFBIG) {
                if (r != -ENOENT && warn) {
                        snprintf(line, sizeof(line), "'%s' is %s: the agent's copy starts empty",
                                 c->host,
                                 r == -EFBIG ? "too large"
                                             : "not a regular file reached without "
                                               "links");
                        warn(userdata, line);
                }
                free(text);
                text = strdup(c->json ? "{}\n" : "");
                len = text ? strlen(text) : 0;
                if (!text)
                        return -ENOMEM;
                /* Nothing to hand in: the agent makes the file itself (an empty document is
                 * not what every agent takes for one), unless an overlay goes into it. */
                if (!c->overlay && !c->hooks) {
                        *ret = TAKE_PTR(text);
                        *ret_len = len;
                        return 1;
                }
        } else if (r < 0)
                return r;
        if (c->overlay && c->toml) {
                /* The overlay's keys go where the user's file does not set them, edited into
                 * its text (comments and layout kept); a key the user set stays theirs. */
                char why[CORDON_AGENT_TOML_WHY_MAX] = "";
                json_error_t e;
                _cleanup_(json_decrefp) json_t *ov = json_loads(c->overlay, 0, &e);
                if (!ov)
                        return -ENOMEM;
                /* The host's file holds values that flowed back from sandboxes: parsed in a
                 * confined child, as their copies are (agent-toml-child.h). */
                _cleanup_strv_free_ char **kept = NULL;
                char *out = NULL;
                size_t out_len = 0;
                if (len == 0) {
                        /* Nothing of anybody's to read (a missing or empty file): the
                         * profile's overlay alone, written here without a child. */
                        _cleanup_(json_decrefp) json_t *doc = json_deep_copy(ov);
                        r = doc ? cordon_agent_toml_edit("", 0, doc, &out, &out_len, why) : -ENOMEM;
                } else
                        r = cordon_agent_toml_overlay_confined(text, len, ov, &out, &out_len, &kept,
                                                               why);
                if (r == -ENOMEM)
                        return r;
                STRV_FOREACH (k, kept)
                        if (warn) {
                                snprintf(line, sizeof(line),
                                         "'%s' sets %s itself: the agent's copy keeps the user's "
                                         "value",
                                         c->host, *k);
                                warn(userdata, line);
                        }
                if (r < 0) {
                        if (warn) {
                                snprintf(line, sizeof(line),
                                         "'%s' is not TOML cordon can edit (%s): the agent's copy "
                                         "is handed without cordon's settings",
                                         c->host, why);
                                warn(userdata, line);
                        }
                } else {
                        free(text);
                        text = out;
                        len = out_len;
                }
        } else if ((c->overlay || c->hooks) && c->json) {
                json_error_t e;
                _cleanup_(json_decrefp) json_t *doc = json_loadb(text, len, 0, &e);
                _cleanup_(json_decrefp) json_t *ov =
                    c->overlay ? json_loads(c->overlay, 0, &e) : json_object();
                _cleanup_(json_decrefp) json_t *hooks =
                    c->hooks ? json_loads(c->hooks, 0, &e) : NULL;
                if (!ov || (c->hooks && !hooks))
                        return -ENOMEM;
                if (!json_is_object(doc)) {
                        if (warn) {
                                snprintf(line, sizeof(line),
                                         "'%s' is not a JSON object: the agent's copy is handed "
                                         "without cordon's settings",
                                         c->host);
                                warn(userdata, line);
                        }
                } else {
                        if ((r = cordon_agent_json_overlay(doc, ov)) < 0)
                                return r;
                        /* The agent folder's hooks: after the user's, a command already run
                         * for the event not added again. */
                        r = hooks ? cordon_agent_json_add_hooks(doc, hooks) : 0;
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0 && warn) {
                                snprintf(line, sizeof(line),
                                         "'%s' has hooks of another shape: the agent folder's "
                                         "hooks are left out of the agent's copy",
                                         c->host);
                                warn(userdata, line);
                        }
                        char *out = json_dumps(doc, JSON_INDENT(2));
                        if (!out)
                                return -ENOMEM;
                        free(text);
                        text = out;
                        len = strlen(out);
                }
        }
        *ret = TAKE_PTR(text);
        *ret_len = len;
        return 0;
}

static int keep_base(struct cordon_agent_homes *hs, const struct cordon_agent_home *h,
                     const struct cordon_agent_copy *c, const char *text, bool absent)
{
        struct cordon_agent_base *b = reallocarray(hs->bases, hs->n_bases + 1, sizeof(*b));
        if (!b)
                return -ENOMEM;
        hs->bases = b;
        b += hs->n_bases++;
        *b = (struct cordon_agent_base){.agent = strdup(h->agent),
                                        .host = strdup(c->host),
                                        .rel = path_join(h->agent, c->name),
                                        .text = strdup(text),
                                        .patterns = strv_copy(c->patterns),
                                        .absent = absent,
                                        .toml = c->toml};
        return b->agent && b->host && b->rel && b->text && b->patterns ? 0 : -ENOMEM;
}

/* Removes the run directories beside @run_dir that are the caller's and locked by nobody: their
 * supervisor was killed before it could remove them (the ns backend has nobody left outside to
 * do it). A run directory gets its name only once it is locked (made as NAME.new, locked,
 * renamed); a NAME.new is taken for stale only when older than STALE_AFTER_SEC. Best effort;
 * never follows a link. */
static void sweep_stale(const char *run_dir)
{
        _cleanup_free_ char *base = strdup(run_dir);
        char *slash = base ? strrchr(base, '/') : NULL;
        if (!slash || slash == base)
                return;
        *slash = 0;
        _cleanup_close_ int dir =
            openat2_flags(AT_FDCWD, base, O_RDONLY | O_DIRECTORY, 0, RESOLVE_NO_SYMLINKS);
        if (dir < 0)
                return;
        DIR *d = fdopendir(dir);
        if (!d)
                return;
        dir = -EBADF; /* the stream's now */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME_COARSE, &now);
        unsigned seen = 0;
        for (struct dirent *e; (e = readdir(d)) && seen < SWEEP_MAX;) {
                if (strncmp(e->d_name, RUN_DIR_PREFIX, strlen(RUN_DIR_PREFIX)) != 0)
                        continue;
                seen++;
                struct stat st;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
                        continue;
                const char *dot = strrchr(e->d_name, '.');
                if (dot && streq(dot, NEW_SUFFIX) &&
                    st.st_ctim.tv_sec + STALE_AFTER_SEC > now.tv_sec)
                        continue;
                _cleanup_close_ int one = openat2_flags(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY,
                                                        0, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
                if (one < 0 || flock(one, LOCK_EX | LOCK_NB) < 0)
                        continue;
                /* Held now: a run that still owned it would hold it. */
                _cleanup_free_ char *path = path_join(base, e->d_name);
                if (path)
                        remove_tree_physical(path);
        }
        closedir(d);
}

static int in_use(const struct cordon_policy *p, struct cordon_diag *diag)
{
        return cordon_diag_set(diag, -EBUSY,
                               "the agents' directory '%s' is in use by another sandbox started "
                               "from the same policy; resolve the settings again for each "
                               "sandbox that runs at the same time",
                               p->agent_run_dir);
}

int cordon_agent_homes_make(const struct cordon_policy *p, struct cordon_agent_homes *ret,
                            void (*warn)(void *userdata, const char *line), void *userdata,
                            struct cordon_diag *diag)
{
        if (!p->agent_run_dir)
                return 0;
        sweep_stale(p->agent_run_dir);
        _cleanup_free_ char *fresh = NULL;
        if (asprintf(&fresh, "%s" NEW_SUFFIX, p->agent_run_dir) < 0)
                return -ENOMEM;
        /* The directory's name is the policy's (random, made by resolve): a second sandbox
         * started from the same policy while the first runs finds it taken. */
        if (mkdir(fresh, 0700) < 0)
                return errno == EEXIST ? in_use(p, diag)
                                       : cordon_diag_set(diag, -errno,
                                                         "cannot make the agents' directory "
                                                         "'%s': %m",
                                                         fresh);
        _cleanup_close_ int run =
            openat2_flags(AT_FDCWD, fresh, O_RDONLY | O_DIRECTORY, 0, RESOLVE_NO_SYMLINKS);
        if (run < 0) {
                (void)rmdir(fresh);
                return cordon_diag_set(diag, run, "cannot open '%s': %s", fresh, strerror(-run));
        }
        /* Its own descriptor for the lock, held until the directory is gone: a sweep by another
         * start never finds it unlocked under its name while it is in use. */
        ret->run_lock = fcntl(run, F_DUPFD_CLOEXEC, 3);
        if (ret->run_lock >= 0)
                ret->locked = true;
        if (ret->run_lock < 0 || flock(ret->run_lock, LOCK_EX | LOCK_NB) < 0 ||
            rename(fresh, p->agent_run_dir) < 0) {
                int r = -errno;
                remove_tree_physical(fresh);
                if (r == -ENOTEMPTY || r == -EEXIST)
                        return in_use(p, diag);
                return cordon_diag_set(diag, r, "cannot lock the agents' directory '%s': %s", fresh,
                                       strerror(-r));
        }
        if (!(ret->run_dir = strdup(p->agent_run_dir)) ||
            (p->project_dir && !(ret->project = strdup(p->project_dir))))
                return -ENOMEM;
        for (size_t i = 0; i < p->n_agent_homes; i++) {
                const struct cordon_agent_home *h = &p->agent_homes[i];
                int r;
                if (mkdirat(run, h->agent, 0700) < 0)
                        return cordon_diag_set(diag, -errno, "cannot make '%s': %m", h->root);
                _cleanup_close_ int root = openat2_flags(run, h->agent, O_RDONLY | O_DIRECTORY, 0,
                                                         RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
                if (root < 0)
                        return root;
                for (size_t j = 0; j < h->n_mirrors; j++)
                        if ((r = make_mirror(root, h, &h->mirrors[j])) < 0)
                                return cordon_diag_set(diag, r,
                                                       "cannot mirror agent directory '%s' "
                                                       "into '%s': %s",
                                                       h->mirrors[j].host, h->root, strerror(-r));
                for (size_t j = 0; j < h->n_copies; j++) {
                        const struct cordon_agent_copy *c = &h->copies[j];
                        _cleanup_free_ char *text = NULL;
                        size_t len = 0;
                        int absent = copy_text(c, warn, userdata, &text, &len);
                        if ((r = absent) < 0 ||
                            (!absent && (r = write_new(root, c->name, text, len)) < 0))
                                return cordon_diag_set(diag, r,
                                                       "cannot copy '%s' into the agent's home "
                                                       "'%s': %s",
                                                       c->host, h->root, strerror(-r));
                        if (c->patterns && (r = keep_base(ret, h, c, text, absent > 0)) < 0)
                                return r;
                }
        }
        return 0;
}

/* Opens host file @path's directory (no link on the way) and locks the file itself, made
 * holding @made when missing and @create (-ENOENT otherwise): the lock holds the file the path
 * names when it is taken. */
static int lock_host(const char *path, bool create, const char *made, int *ret_dir, int *ret_fd,
                     const char **ret_why)
{
        _cleanup_free_ char *parent = strdup(path);
        if (!parent)
                return -ENOMEM;
        char *slash = strrchr(parent, '/');
        if (!slash || slash == parent)
                return -EINVAL;
        *slash = 0;
        const char *name = slash + 1;
        _cleanup_close_ int dir = openat2_flags(AT_FDCWD, parent, O_RDONLY | O_DIRECTORY, 0,
                                                RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        if (dir < 0) {
                *ret_why = "its directory cannot be opened without following a link";
                return dir;
        }
        for (int tries = 0; tries < 16; tries++) {
                int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
                if (fd < 0 && errno == ENOENT && !create)
                        return -ENOENT;
                if (fd < 0 && errno == ENOENT) {
                        fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                    0600);
                        if (fd >= 0) {
                                int r = write_all(fd, made, strlen(made));
                                close(fd);
                                if (r < 0)
                                        return r;
                        } else if (errno != EEXIST)
                                return -errno;
                        continue;
                }
                if (fd < 0) {
                        *ret_why = errno == ELOOP ? "it is a symbolic link" : "it cannot be opened";
                        return -errno;
                }
                struct stat a, b;
                /* Bounded: anything that can read the file can hold a lock on it (a sandbox
                 * that shows the home read-only), and must not keep this one from ending. */
                int locked = -1;
                for (int i = 0; i < LOCK_TRIES && (locked = flock(fd, LOCK_EX | LOCK_NB)) < 0 &&
                                errno == EWOULDBLOCK;
                     i++)
                        (void)usleep(LOCK_WAIT_USEC);
                if (locked < 0 && errno == EWOULDBLOCK) {
                        close(fd);
                        *ret_why = "another process holds a lock on it";
                        return -EWOULDBLOCK;
                }
                if (locked < 0 || fstat(fd, &a) < 0) {
                        close(fd);
                        return -errno;
                }
                if (!S_ISREG(a.st_mode)) {
                        close(fd);
                        *ret_why = "it is not a regular file";
                        return -EINVAL;
                }
                if (fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
                    a.st_ino == b.st_ino) {
                        *ret_dir = TAKE_FD(dir);
                        *ret_fd = fd;
                        return 0;
                }
                close(fd); /* replaced meanwhile: lock the new one */
        }
        *ret_why = "it kept being replaced";
        return -EAGAIN;
}

/* Replaces @name of @dir with @text (@len bytes), keeping the file's mode. */
static int replace_host(int dir, const char *name, int locked, const char *text, size_t len)
{
        struct stat st;
        if (fstat(locked, &st) < 0)
                return -errno;
        _cleanup_free_ char *tmp = NULL;
        if (asprintf(&tmp, ".%s.cordon-%d", name, (int)getpid()) < 0)
                return -ENOMEM;
        (void)unlinkat(dir, tmp, 0);
        _cleanup_close_ int fd = openat(
            dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0777);
        if (fd < 0)
                return -errno;
        int r = write_all(fd, text, len);
        if (r >= 0 && fsync(fd) == 0 && renameat(dir, tmp, dir, name) == 0)
                return 0;
        r = r < 0 ? r : -errno;
        (void)unlinkat(dir, tmp, 0);
        return r;
}

static int add_string(struct cordon_agent_homes *h, const char *s, const char **ret)
{
        char *copy = strdup(s);
        if (!copy || strv_consume(&h->strings, copy) < 0)
                return -ENOMEM;
        *ret = copy;
        return 0;
}

/* The document of a copy's or host file's @text: a JSON object, or TOML read as one. NULL in
 * *@ret when it is neither, with @why (CORDON_AGENT_TOML_WHY_MAX bytes) saying why for TOML.
 * 0 or -ENOMEM. */
static int read_doc(const struct cordon_agent_base *b, const char *text, size_t len, json_t **ret,
                    char *why)
{
        *ret = NULL;
        *why = 0;
        if (b->toml) {
                int r = cordon_agent_toml_to_json_confined(text, len, ret, why);
                return r == -ENOMEM ? r : 0;
        }
        json_error_t e;
        json_t *j = json_loadb(text, len, 0, &e);
        if (json_is_object(j))
                *ret = j;
        else
                json_decref(j);
        return 0;
}

/* What a document is not when read_doc() finds none, for a message. */
static const char *not_a_doc(const struct cordon_agent_base *b, const char *why, char *buf,
                             size_t size)
{
        if (!b->toml)
                return "a JSON object";
        snprintf(buf, size, "valid TOML%s%s%s", *why ? " (" : "", why, *why ? ")" : "");
        return buf;
}

/* The host file's new text for the merged document @host: written out whole (JSON), or the
 * host's text @htext (@hlen bytes) edited in place (TOML). 0; -errno with @why saying why. */
static int render(const struct cordon_agent_base *b, const char *htext, size_t hlen, json_t *host,
                  char **ret, size_t *ret_len, char *why)
{
        *why = 0;
        if (b->toml)
                return cordon_agent_toml_edit_confined(htext, hlen, host, ret, ret_len, why);
        char *dump = json_dumps(host, JSON_INDENT(2));
        char *out = NULL;
        if (!dump || asprintf(&out, "%s\n", dump) < 0) {
                free(dump);
                return -ENOMEM;
        }
        free(dump);
        *ret = out;
        *ret_len = strlen(out);
        return 0;
}

/* One copy's write-back; what went wrong is the result's error, not the return (-ENOMEM). */
static int write_back(struct cordon_agent_homes *hs, int run, const struct cordon_agent_base *b,
                      struct cordon_agent_writeback *res, char ***ret_dropped)
{
        char why[512] = "", doc_why[CORDON_AGENT_TOML_WHY_MAX] = "", what_buf[256];
        _cleanup_free_ char *text = NULL, *htext = NULL;
        size_t len = 0, hlen = 0;
        _cleanup_(json_decrefp) json_t *final = NULL, *base = NULL, *host = NULL;
        _cleanup_close_ int dir = -EBADF, locked = -EBADF;
        struct cordon_agent_json_result out = {0};
        int r = read_file(run, b->rel, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, &text, &len);
        if (r == -ENOMEM)
                return r;
        /* Never made by the agent where nothing was handed in, or byte for byte what was
         * handed in: nothing changed, and nothing is parsed (a TOML copy would cost a confined
         * child per document at the end of every run). */
        bool untouched = (r == -ENOENT && b->absent) ||
                         (r >= 0 && len == strlen(b->text) && memcmp(text, b->text, len) == 0);
        if (r < 0 && !untouched)
                snprintf(why, sizeof(why), "the agent's copy cannot be read (%s)", strerror(-r));
        else if (!untouched) {
                if ((r = read_doc(b, text, len, &final, doc_why)) < 0)
                        return r;
                if (!final)
                        snprintf(why, sizeof(why), "the agent's copy is not %s",
                                 not_a_doc(b, doc_why, what_buf, sizeof(what_buf)));
        }
        /* What was handed in is cordon's own; not a document: every key of the copy is new. */
        if (!*why && !untouched && (r = read_doc(b, b->text, strlen(b->text), &base, doc_why)) < 0)
                return r;
        /* A host file that is missing is made only when something flows into it: the first
         * pass merges into an empty document, the second (if any) into the file made. */
        for (bool create = false; !*why && !untouched;) {
                const char *what = "it cannot be locked";
                r = lock_host(b->host, create, b->toml ? "" : "{}\n", &dir, &locked, &what);
                if (r == -ENOMEM)
                        return r;
                free(htext);
                htext = NULL;
                hlen = 0;
                json_decref(host);
                host = NULL;
                if (r == -ENOENT && !create) {
                        if (!(host = json_object()) || !(htext = strdup("")))
                                return -ENOMEM;
                } else if (r < 0) {
                        snprintf(why, sizeof(why), "'%s' was not changed: %s", b->host, what);
                        break;
                } else {
                        r = read_full_fd(locked, CORDON_AGENT_COPY_MAX, &htext, &hlen);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0) {
                                snprintf(why, sizeof(why),
                                         "'%s' was not changed: it cannot be "
                                         "read (%s)",
                                         b->host, strerror(-r));
                                break;
                        }
                        if ((r = read_doc(b, htext, hlen, &host, doc_why)) < 0)
                                return r;
                }
                if (!host) {
                        snprintf(why, sizeof(why), "'%s' was not changed: it is not %s", b->host,
                                 not_a_doc(b, doc_why, what_buf, sizeof(what_buf)));
                        break;
                }
                cordon_agent_json_result_clear(&out);
                r = cordon_agent_json_writeback(base, final, host, b->patterns, hs->project, &out);
                if (r < 0)
                        return r;
                if (locked >= 0 || out.kept == 0)
                        break;
                create = true;
        }
        if (!*why && !untouched) {
                res->kept = out.kept;
                res->more_dropped = out.more;
                *ret_dropped = TAKE_PTR(out.dropped);
                if (out.kept > 0) {
                        _cleanup_free_ char *next = NULL;
                        size_t next_len = 0;
                        const char *name = strrchr(b->host, '/') + 1;
                        r = render(b, htext, hlen, host, &next, &next_len, doc_why);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0)
                                snprintf(why, sizeof(why), "'%s' was not changed: %s", b->host,
                                         *doc_why ? doc_why : strerror(-r));
                        else if ((next_len != hlen || memcmp(next, htext, hlen) != 0) &&
                                 (r = replace_host(dir, name, locked, next, next_len)) < 0)
                                snprintf(why, sizeof(why), "'%s' could not be replaced: %s",
                                         b->host, strerror(-r));
                }
        }
        cordon_agent_json_result_clear(&out);
        if ((r = add_string(hs, b->agent, &res->agent)) < 0 ||
            (r = add_string(hs, b->host, &res->file)) < 0 ||
            (r = add_string(hs, why, &res->error)) < 0)
                return r;
        return 0;
}

static void remove_run_dir(struct cordon_agent_homes *h)
{
        if (h->run_dir) {
                remove_tree_physical(h->run_dir);
                free(h->run_dir);
                h->run_dir = NULL;
        }
        /* Unlocked only once it is gone. */
        if (h->locked)
                safe_close(h->run_lock);
        h->locked = false;
}

int cordon_agent_homes_finish(struct cordon_agent_homes *h)
{
        int r = 0;
        if (h->run_dir && h->n_bases > 0 && !h->results) {
                _cleanup_close_ int run = openat2_flags(
                    AT_FDCWD, h->run_dir, O_RDONLY | O_DIRECTORY, 0, RESOLVE_NO_SYMLINKS);
                if (!(h->results = calloc(h->n_bases, sizeof(*h->results))) ||
                    !(h->dropped = calloc(h->n_bases, sizeof(*h->dropped))))
                        r = -ENOMEM;
                for (size_t i = 0; r >= 0 && i < h->n_bases; i++) {
                        if (run < 0) {
                                r = add_string(h, h->bases[i].agent, &h->results[i].agent);
                                if (r >= 0)
                                        r = add_string(h, h->bases[i].host, &h->results[i].file);
                                if (r >= 0)
                                        r = add_string(h, "the agents' directory is gone",
                                                       &h->results[i].error);
                        } else
                                r = write_back(h, run, &h->bases[i], &h->results[i],
                                               &h->dropped[i]);
                        if (r >= 0 && !h->dropped[i] &&
                            !(h->dropped[i] = calloc(1, sizeof(char *))))
                                r = -ENOMEM;
                        if (r >= 0) {
                                h->results[i].dropped = (const char *const *)h->dropped[i];
                                h->n_results++;
                        }
                }
        }
        remove_run_dir(h);
        return r;
}

void cordon_agent_homes_clear(struct cordon_agent_homes *h)
{
        remove_run_dir(h);
        for (size_t i = 0; i < h->n_bases; i++) {
                free(h->bases[i].agent);
                free(h->bases[i].host);
                free(h->bases[i].rel);
                free(h->bases[i].text);
                strv_free(h->bases[i].patterns);
        }
        free(h->bases);
        for (size_t i = 0; h->dropped && i < h->n_bases; i++)
                strv_free(h->dropped[i]);
        free(h->dropped);
        free(h->results);
        strv_free(h->strings);
        free(h->project);
        *h = (struct cordon_agent_homes){0};
}
