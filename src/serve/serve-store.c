/* cordon-serve's store (see serve-store.h): its directories, the sessions' leftovers and the
 * snapshot table, on descriptors. The records' parsers are in serve-store-record.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve-store.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define SNAPSHOTS_MAX     65536 /* entries of the snapshots directory looked at */
#define SESSIONS_SCAN_MAX 65536
#define fail              serve_store_fail

/* --- directories --- */

/* Opens directory @name below @dirfd (AT_FDCWD: @name is a path, followed as the user wrote
 * it), made 0700 when missing; it must be ours, and with @private have no group or other
 * access. @shown names it in @err. */
static int open_dir_at(int dirfd, const char *name, bool nofollow, bool private, const char *shown,
                       char *err, size_t n)
{
        return dir_open_owned(dirfd, name,
                              DIR_OPEN_CREATE | (nofollow ? DIR_OPEN_NOFOLLOW : 0) |
                                  (private ? DIR_OPEN_PRIVATE : 0),
                              shown, err, n);
}

/* Opens @rel ("a/b/c") below @dirfd one component at a time (O_NOFOLLOW, made when missing),
 * the components from index @private_from on private. @base is @dirfd's path, for messages
 * and for *@ret_path (malloc'd, when not NULL). */
static int open_chain(int dirfd, const char *base, const char *rel, unsigned private_from,
                      char **ret_path, char *err, size_t n)
{
        _cleanup_free_ char *path = strdup(base);
        _cleanup_free_ char *copy = strdup(rel);
        if (!path || !copy)
                return -ENOMEM;
        _cleanup_close_ int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        char *save = NULL;
        unsigned i = 0;
        for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save), i++) {
                char *p;
                if (asprintf(&p, "%s/%s", streq(path, "/") ? "" : path, c) < 0)
                        return -ENOMEM;
                free(path);
                path = p;
                int next = open_dir_at(fd, c, true, i >= private_from, path, err, n);
                if (next < 0)
                        return next;
                close(fd);
                fd = next;
        }
        if (ret_path)
                *ret_path = TAKE_PTR(path);
        return TAKE_FD(fd);
}

int serve_store_open(const char *state_home, const char *home, const char *runtime,
                     struct serve_store *ret, char *err, size_t n)
{
        /* XDG: a relative $XDG_STATE_HOME is invalid and ignored. */
        bool xdg = state_home && state_home[0] == '/';
        const char *base = xdg ? state_home : home;
        if (!base || base[0] != '/')
                return fail(-ENXIO, err, n,
                            "neither XDG_STATE_HOME nor HOME is an absolute path: the store "
                            "needs one");
        if (!runtime || runtime[0] != '/')
                return fail(-ENXIO, err, n, "the runtime directory is not an absolute path");
        /* The base is followed as the user set it (a home may be a symlink); every component
         * below it is ours and opened without following. */
        _cleanup_close_ int bfd = open_dir_at(AT_FDCWD, base, false, false, base, err, n);
        if (bfd < 0)
                return bfd;
        _cleanup_close_ int rfd = open_dir_at(AT_FDCWD, runtime, false, true, runtime, err, n);
        if (rfd < 0)
                return rfd;
        struct serve_store s = SERVE_STORE_NULL;
        _cleanup_free_ char *cordon_path = NULL;
        _cleanup_close_ int cfd = open_chain(bfd, base, xdg ? "cordon" : ".local/state/cordon",
                                             xdg ? 0 : 2, &cordon_path, err, n);
        if (cfd < 0)
                return cfd;
        int r;
        if ((r = s.sessions_fd =
                 open_chain(cfd, cordon_path, "sessions", 0, &s.sessions_path, err, n)) < 0 ||
            (r = s.snapshots_fd =
                 open_chain(cfd, cordon_path, "snapshots", 0, &s.snapshots_path, err, n)) < 0 ||
            (r = s.runtime_fd = open_chain(rfd, runtime, "sessions", 0, &s.runtime_path, err, n)) <
                0) {
                serve_store_close(&s);
                return r;
        }
        *ret = s;
        return 0;
}

void serve_store_close(struct serve_store *s)
{
        safe_close(s->sessions_fd);
        safe_close(s->snapshots_fd);
        safe_close(s->runtime_fd);
        free(s->sessions_path);
        free(s->snapshots_path);
        free(s->runtime_path);
        for (size_t i = 0; i < s->n_snapshots; i++)
                serve_snapshot_record_clear(&s->snapshots[i]);
        free(s->snapshots);
        *s = SERVE_STORE_NULL;
}

static int random_bytes(uint8_t *b, size_t len)
{
        size_t got = 0;
        while (got < len) {
                ssize_t k = getrandom(b + got, len - got, 0);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                got += (size_t)k;
        }
        return 0;
}

int serve_store_mint_name(char ret[HOLDER_NAME_LEN + 1])
{
        uint8_t b[HOLDER_NAME_LEN / 2];
        int r = random_bytes(b, sizeof(b));
        if (r < 0)
                return r;
        for (size_t i = 0; i < sizeof(b); i++)
                snprintf(ret + 2 * i, 3, "%02x", b[i]);
        return 0;
}

int serve_store_mint_session_id(char ret[37])
{
        uint8_t b[16];
        int r = random_bytes(b, sizeof(b));
        if (r < 0)
                return r;
        serve_uuid_format(b, ret);
        return 0;
}

char *serve_store_session_dir(const struct serve_store *s, const char *name)
{
        char *p;
        if (!holder_name_valid(name) || asprintf(&p, "%s/%s", s->sessions_path, name) < 0)
                return NULL;
        return p;
}

char *serve_store_session_socket(const struct serve_store *s, const char *name)
{
        char *p;
        if (!holder_name_valid(name) || asprintf(&p, "%s/%s.sock", s->runtime_path, name) < 0)
                return NULL;
        return p;
}

int serve_store_session_create(const struct serve_store *s, const char *name)
{
        if (!holder_name_valid(name))
                return -EINVAL;
        return mkdirat(s->sessions_fd, name, 0700) < 0 ? -errno : 0;
}

void serve_store_session_remove(const struct serve_store *s, const char *name)
{
        if (!holder_name_valid(name))
                return;
        /* The socket, and the lock file beside it (the holder's, as serve-socket.c makes). */
        char sock[HOLDER_NAME_LEN + 16];
        snprintf(sock, sizeof(sock), "%s.sock", name);
        (void)unlinkat(s->runtime_fd, sock, 0);
        snprintf(sock, sizeof(sock), "%s.sock.lock", name);
        (void)unlinkat(s->runtime_fd, sock, 0);
        struct stat st;
        if (fstatat(s->sessions_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return;
        if (!S_ISDIR(st.st_mode)) {
                (void)unlinkat(s->sessions_fd, name, 0);
                return;
        }
        _cleanup_free_ char *dir = serve_store_session_dir(s, name);
        if (dir)
                remove_tree_physical(dir);
}

int serve_store_session_record(const struct serve_store *s, const char *name,
                               struct serve_session_record *ret, char *err, size_t n)
{
        *ret = (struct serve_session_record){0};
        if (!holder_name_valid(name))
                return fail(-EINVAL, err, n, "not a store name");
        _cleanup_close_ int dfd =
            openat(s->sessions_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return fail(errno == ENOTDIR ? -ELOOP : -errno, err, n,
                            "its directory cannot be opened: %m");
        struct stat st;
        if (fstat(dfd, &st) < 0)
                return -errno;
        if (st.st_uid != geteuid() || (st.st_mode & 077))
                return fail(-EPERM, err, n, "its directory is not ours or not private");
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r =
            read_regular_file_at(dfd, HOLDER_RECORD_FILE, 0, HOLDER_RECORD_MAX, &st, &text, &len);
        if (r == -ENOENT)
                return fail(r, err, n, "no %s", HOLDER_RECORD_FILE);
        if (r < 0)
                return fail(r == -EFBIG ? -EBADMSG : r, err, n, "%s: %s", HOLDER_RECORD_FILE,
                            r == -EFBIG ? "too large" : strerror(-r));
        if (st.st_uid != geteuid())
                return fail(-EPERM, err, n, "%s is not ours", HOLDER_RECORD_FILE);
        char why[256];
        r = serve_session_record_parse(text, len, ret, why, sizeof(why));
        if (r < 0)
                return fail(r, err, n, "%s: %s", HOLDER_RECORD_FILE, why);
        if (!streq(ret->name, name)) {
                serve_session_record_clear(ret);
                return fail(-EBADMSG, err, n, "%s names another session", HOLDER_RECORD_FILE);
        }
        return 0;
}

static int read_names(int dirfd, size_t max, char ***ret, size_t *ret_n)
{
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return r;
        }
        int r = dir_read_names(d, max, ret, ret_n);
        closedir(d);
        return r;
}

int serve_store_sessions_foreach(const struct serve_store *s,
                                 void (*fn)(const char *name, void *userdata), void *userdata)
{
        _cleanup_strv_free_ char **names = NULL;
        int r = read_names(s->sessions_fd, SESSIONS_SCAN_MAX, &names, NULL);
        if (r < 0)
                return r;
        for (char **p = names; *p; p++) {
                struct stat st;
                if (fstatat(s->sessions_fd, *p, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        log_warning("the store's sessions/%s is a symbolic link: removed, not "
                                    "followed",
                                    holder_name_valid(*p) ? *p : "(an entry)");
                        (void)unlinkat(s->sessions_fd, *p, 0);
                        continue;
                }
                if (!holder_name_valid(*p)) {
                        log_warning("the store's sessions directory holds an entry that is not "
                                    "a session's: left alone");
                        continue;
                }
                fn(*p, userdata);
        }
        return 0;
}

/* --- snapshots --- */

static char *snapshot_file(const char *id, const char *suffix)
{
        char *p;
        if (!holder_name_valid(id) || asprintf(&p, "%s%s", id, suffix) < 0)
                return NULL;
        return p;
}

char *serve_store_snapshot_archive(const struct serve_store *s, const char *id)
{
        char *p;
        if (!holder_name_valid(id) ||
            asprintf(&p, "%s/%s%s", s->snapshots_path, id, ARCHIVE_SUFFIX) < 0)
                return NULL;
        return p;
}

const struct serve_snapshot_record *serve_store_snapshot_find(const struct serve_store *s,
                                                              const char *id)
{
        for (size_t i = 0; i < s->n_snapshots; i++)
                if (streq(s->snapshots[i].id, id))
                        return &s->snapshots[i];
        return NULL;
}

static int table_add(struct serve_store *s, struct serve_snapshot_record *r)
{
        struct serve_snapshot_record *t =
            reallocarray(s->snapshots, s->n_snapshots + 1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        s->snapshots = t;
        t[s->n_snapshots++] = *r;
        *r = (struct serve_snapshot_record){0};
        return 0;
}

static bool is_regular_at(int dirfd, const char *name)
{
        struct stat st;
        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

int serve_store_snapshots_load(struct serve_store *s)
{
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;
        int r = read_names(s->snapshots_fd, SNAPSHOTS_MAX, &names, &n);
        if (r < 0)
                return r;
        /* Records first (sorted by name, so by id), then what no record claims. */
        for (char **p = names; *p; p++) {
                char id[HOLDER_NAME_LEN + 1];
                if (serve_snapshot_entry_kind(*p, id) != SERVE_SNAPSHOT_ENTRY_RECORD)
                        continue;
                _cleanup_free_ char *archive = snapshot_file(id, ARCHIVE_SUFFIX);
                if (!archive)
                        return -ENOMEM;
                _cleanup_free_ char *text = NULL;
                size_t len;
                struct stat st;
                char why[256] = "";
                struct serve_snapshot_record rec = {0};
                r = read_regular_file_at(s->snapshots_fd, *p, 0, HOLDER_RECORD_MAX, &st, &text,
                                         &len);
                if (r >= 0 && st.st_uid != geteuid())
                        r = -EPERM;
                if (r >= 0)
                        r = serve_snapshot_record_parse(text, len, &rec, why, sizeof(why));
                if (r >= 0 && !streq(rec.id, id)) {
                        r = -EBADMSG;
                        snprintf(why, sizeof(why), "it names another snapshot");
                }
                if (r >= 0 && !is_regular_at(s->snapshots_fd, archive)) {
                        r = -ENOENT;
                        snprintf(why, sizeof(why), "its archive is missing");
                }
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        r = table_add(s, &rec);
                serve_snapshot_record_clear(&rec);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        log_warning("snapshot %s: the record is removed: %s", id,
                                    *why ? why : strerror(-r));
                        (void)unlinkat(s->snapshots_fd, *p, 0);
                        (void)unlinkat(s->snapshots_fd, archive, 0);
                }
        }
        for (char **p = names; *p; p++) {
                char id[HOLDER_NAME_LEN + 1];
                enum serve_snapshot_entry k = serve_snapshot_entry_kind(*p, id);
                if (k == SERVE_SNAPSHOT_ENTRY_TEMP ||
                    (k == SERVE_SNAPSHOT_ENTRY_ARCHIVE && !serve_store_snapshot_find(s, id))) {
                        log_warning("snapshot %s: removed a leftover file without a record", id);
                        (void)unlinkat(s->snapshots_fd, *p, 0);
                }
        }
        return 0;
}

void serve_store_snapshot_discard(const struct serve_store *s, const char *id)
{
        _cleanup_free_ char *archive = snapshot_file(id, ARCHIVE_SUFFIX);
        if (archive)
                (void)unlinkat(s->snapshots_fd, archive, 0);
}

int serve_store_snapshot_commit(struct serve_store *s, struct serve_snapshot_record *r, char *err,
                                size_t n)
{
        _cleanup_free_ char *archive = snapshot_file(r->id, ARCHIVE_SUFFIX);
        _cleanup_free_ char *record = snapshot_file(r->id, RECORD_SUFFIX);
        _cleanup_free_ char *tmp = NULL;
        if (!archive || !record || asprintf(&tmp, ".%s.tmp", record) < 0)
                return -ENOMEM;
        struct stat st;
        int r2;
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        if (fstatat(s->snapshots_fd, archive, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                r2 = fail(-errno, err, n, "the archive is missing: %m");
                goto out;
        }
        if (!S_ISREG(st.st_mode)) {
                r2 = fail(-EBADMSG, err, n, "the archive is not a regular file");
                goto out;
        }
        r->size = (uint64_t)st.st_size;
        text = serve_json_dump(serve_snapshot_record_to_json(r));
        if (!text) {
                r2 = -ENOMEM;
                goto out;
        }
        fd = openat(s->snapshots_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                    0600);
        r2 = fd < 0 ? -errno : write_all(fd, text, strlen(text));
        if (r2 >= 0 &&
            (fsync(fd) < 0 || renameat(s->snapshots_fd, tmp, s->snapshots_fd, record) < 0 ||
             fsync(s->snapshots_fd) < 0))
                r2 = -errno;
        if (r2 < 0) {
                fail(r2, err, n, "cannot write the snapshot's record: %s", strerror(-r2));
                (void)unlinkat(s->snapshots_fd, tmp, 0);
                (void)unlinkat(s->snapshots_fd, record, 0);
                goto out;
        }
        r2 = table_add(s, r);
        if (r2 < 0) {
                (void)unlinkat(s->snapshots_fd, record, 0);
                fail(r2, err, n, "out of memory");
        }
out:
        if (r2 < 0)
                (void)unlinkat(s->snapshots_fd, archive, 0);
        return r2;
}

int serve_store_snapshot_remove(struct serve_store *s, const char *id)
{
        for (size_t i = 0; i < s->n_snapshots; i++) {
                if (!streq(s->snapshots[i].id, id))
                        continue;
                _cleanup_free_ char *archive = snapshot_file(id, ARCHIVE_SUFFIX);
                _cleanup_free_ char *record = snapshot_file(id, RECORD_SUFFIX);
                if (!archive || !record)
                        return -ENOMEM;
                /* The record first: an archive without one is a leftover the next start
                 * removes; a record without its archive would be a snapshot that is not. */
                if (unlinkat(s->snapshots_fd, record, 0) < 0 && errno != ENOENT)
                        return -errno;
                (void)unlinkat(s->snapshots_fd, archive, 0);
                (void)fsync(s->snapshots_fd);
                serve_snapshot_record_clear(&s->snapshots[i]);
                memmove(&s->snapshots[i], &s->snapshots[i + 1],
                        (s->n_snapshots - i - 1) * sizeof(*s->snapshots));
                s->n_snapshots--;
                return 0;
        }
        return -ENOENT;
}
