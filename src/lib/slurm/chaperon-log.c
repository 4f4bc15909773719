/* The chaperon's per-session log (see chaperon-log.h): its directory and file on descriptors,
 * the retention at open, the escaped and capped lines, and the name's format and parser. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/slurm/chaperon-log.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* Entries of the log directory looked at by the retention; more is refused (-E2BIG). */
#define DIR_ENTRIES_MAX 100000
/* Room kept below the file's cap for its final line. */
#define FINAL_LINE_MAX 160
#define FILE_MAX_MIN   (2 * FINAL_LINE_MAX)
#define CUT_MARK       " [cut]"
#define DAY            (24 * 60 * 60)

struct cordon_chaperon_log {
        int fd;
        char *path;
        enum cordon_chaperon_level level;
        uint64_t size; /* bytes written */
        uint64_t file_max;
        bool capped;
};

/* --- the name: <host>_<pid>_<YYYYMMDD>T<HHMMSS>Z.log --- */

static bool host_char_ok(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '-';
}

int cordon_chaperon_log_name_format(const char *host, pid_t pid, time_t t, char *buf, size_t size)
{
        if (pid <= 0 || t < 0)
                return -EINVAL;
        char h[CORDON_CHAPERON_LOG_HOST_MAX + 1];
        size_t n = 0;
        for (; host && host[n] && n < CORDON_CHAPERON_LOG_HOST_MAX; n++)
                h[n] = host_char_ok(host[n]) ? host[n] : '-';
        h[n] = 0;
        struct tm tm;
        if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999)
                return -ERANGE;
        int k = snprintf(buf, size, "%s_%d_%04d%02d%02dT%02d%02d%02dZ.log", n ? h : "unknown",
                         (int)pid, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                         tm.tm_min, tm.tm_sec);
        if (k < 0 || (size_t)k >= size)
                return -ENOBUFS;
        return 0;
}

/* @n decimal digits at @s, as a number. */
static bool digits(const char *s, size_t n, unsigned *ret)
{
        unsigned v = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                v = v * 10 + (unsigned)(s[i] - '0');
        }
        *ret = v;
        return true;
}

static bool leap(unsigned y)
{
        return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int cordon_chaperon_log_name_parse(const char *name, char *ret_host, pid_t *ret_pid,
                                   time_t *ret_time)
{
        /* From the end, which has a fixed shape: "_YYYYMMDDTHHMMSSZ.log". */
        size_t len = strnlen(name, CORDON_CHAPERON_LOG_NAME_MAX + 1);
        if (len > CORDON_CHAPERON_LOG_NAME_MAX || len < 1 + 1 + 1 + 1 + 16 + 4)
                return -EINVAL;
        const char *ts = name + len - 20;
        if (!streq(ts + 16, ".log") || ts[8] != 'T' || ts[15] != 'Z' || ts[-1] != '_')
                return -EINVAL;
        unsigned y, mo, d, h, mi, s;
        if (!digits(ts, 4, &y) || !digits(ts + 4, 2, &mo) || !digits(ts + 6, 2, &d) ||
            !digits(ts + 9, 2, &h) || !digits(ts + 11, 2, &mi) || !digits(ts + 13, 2, &s))
                return -EINVAL;
        static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (y < 1970 || mo < 1 || mo > 12 || d < 1 ||
            d > mdays[mo - 1] + (mo == 2 && leap(y) ? 1 : 0) || h > 23 || mi > 59 || s > 59)
                return -EINVAL;
        /* The pid: the digits before "_TIME", no leading zero, at most 10 and at most INT_MAX. */
        const char *end = ts - 1, *p = end;
        while (p > name && p[-1] >= '0' && p[-1] <= '9')
                p--;
        size_t pn = (size_t)(end - p);
        if (pn < 1 || pn > 10 || *p == '0' || p - 1 <= name || p[-1] != '_')
                return -EINVAL;
        unsigned long long pid = 0;
        for (const char *q = p; q < end; q++)
                pid = pid * 10 + (unsigned long long)(*q - '0');
        if (pid > 0x7fffffff)
                return -EINVAL;
        /* The host: everything before, of its alphabet only (so not '_'). */
        size_t hn = (size_t)(p - 1 - name);
        if (hn < 1 || hn > CORDON_CHAPERON_LOG_HOST_MAX)
                return -EINVAL;
        for (size_t i = 0; i < hn; i++)
                if (!host_char_ok(name[i]))
                        return -EINVAL;
        struct tm tm = {.tm_year = (int)y - 1900,
                        .tm_mon = (int)mo - 1,
                        .tm_mday = (int)d,
                        .tm_hour = (int)h,
                        .tm_min = (int)mi,
                        .tm_sec = (int)s};
        time_t t = timegm(&tm);
        if (t == (time_t)-1)
                return -EINVAL;
        if (ret_host) {
                memcpy(ret_host, name, hn);
                ret_host[hn] = 0;
        }
        if (ret_pid)
                *ret_pid = (pid_t)pid;
        if (ret_time)
                *ret_time = t;
        return 0;
}

/* --- the directory --- */

int cordon_chaperon_log_dir(const char *xdg_state_home, const char *home, const char **ret_base,
                            const char **ret_sub, struct cordon_diag *diag)
{
        if (xdg_state_home && xdg_state_home[0] == '/') {
                *ret_base = xdg_state_home;
                *ret_sub = "cordon/chaperon";
                return 0;
        }
        if (home && home[0] == '/') {
                *ret_base = home;
                *ret_sub = ".local/state/cordon/chaperon";
                return 0;
        }
        return cordon_diag_set(diag, -ENXIO,
                               "neither XDG_STATE_HOME nor HOME is an absolute path: the "
                               "chaperon's log needs one");
}

/* Opens directory @name below @dirfd (AT_FDCWD and !@nofollow: @name is a path, followed as
 * given), made 0700 when missing (unless @nofollow is false: the base is never made). It must
 * be ours and, with @private, give group and others no access. @shown names it in @diag. */
static int open_dir_at(int dirfd, const char *name, bool nofollow, bool private, const char *shown,
                       struct cordon_diag *diag)
{
        char err[512];
        int fd = dir_open_owned(dirfd, name,
                                (nofollow ? DIR_OPEN_NOFOLLOW | DIR_OPEN_CREATE : 0) |
                                    (private ? DIR_OPEN_PRIVATE : 0),
                                shown, err, sizeof(err));
        return fd < 0 ? cordon_diag_set(diag, fd, "%s", err) : fd;
}

/* The log directory: @base followed, then each component of @sub without following. Its path
 * in *@ret_path. */
static int open_log_dir(const char *base, const char *sub, char **ret_path,
                        struct cordon_diag *diag)
{
        _cleanup_free_ char *path = strdup(base);
        _cleanup_free_ char *copy = strdup(sub);
        if (!path || !copy)
                return -ENOMEM;
        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, base, false, false, base, diag);
        if (fd < 0)
                return fd;
        char *save = NULL;
        char *c = strtok_r(copy, "/", &save);
        if (!c)
                return cordon_diag_set(diag, -EINVAL, "the log directory below '%s' is empty",
                                       base);
        while (c) {
                char *next_c = strtok_r(NULL, "/", &save);
                if (streq(c, ".") || streq(c, ".."))
                        return cordon_diag_set(
                            diag, -EINVAL, "the log directory '%s' has a '%s' component", sub, c);
                char *p;
                if (asprintf(&p, "%s/%s", streq(path, "/") ? "" : path, c) < 0)
                        return -ENOMEM;
                free(path);
                path = p;
                int next = open_dir_at(fd, c, true, !next_c, path, diag);
                if (next < 0)
                        return next;
                close(fd);
                fd = next;
                c = next_c;
        }
        *ret_path = TAKE_PTR(path);
        return TAKE_FD(fd);
}

/* --- retention --- */

struct old_log {
        char *name;
        time_t time;
        uint64_t size;
};

static int old_log_cmp(const void *a, const void *b)
{
        const struct old_log *x = a, *y = b;
        if (x->time != y->time)
                return x->time < y->time ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* Removes log @name unless it changed into something else since it was looked at. */
static int remove_log(int dfd, const char *name, const char *dir, struct cordon_diag *diag)
{
        /* A race with another chaperon pruning the same directory: gone is fine. */
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
                return cordon_diag_set(diag, -errno, "cannot remove old log '%s/%s': %m", dir,
                                       name);
        return 0;
}

static int prune(int dfd, const char *dir, const char *own, time_t now, uint64_t retain_days,
                 uint64_t total_max, struct cordon_diag *diag)
{
        _cleanup_close_ int rfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rfd < 0)
                return cordon_diag_set(diag, -errno, "cannot read directory '%s': %m", dir);
        DIR *d = fdopendir(rfd);
        if (!d)
                return cordon_diag_set(diag, -errno, "cannot read directory '%s': %m", dir);
        TAKE_FD(rfd);
        char **names = NULL;
        size_t n = 0;
        int r = dir_read_names(d, DIR_ENTRIES_MAX, &names, &n);
        closedir(d);
        if (r < 0)
                return cordon_diag_set(diag, r,
                                       r == -E2BIG ? "directory '%s' has more than 100000 entries"
                                                   : "cannot read directory '%s'",
                                       dir);
        struct old_log *logs = calloc(n ? n : 1, sizeof(*logs));
        if (!logs) {
                strv_free(names);
                return -ENOMEM;
        }
        size_t m = 0;
        uint64_t total = 0;
        uid_t uid = geteuid();
        for (size_t i = 0; i < n; i++) {
                time_t t;
                struct stat st;
                if (streq(names[i], own) ||
                    cordon_chaperon_log_name_parse(names[i], NULL, NULL, &t) < 0)
                        continue;
                /* Not followed: a symlink named like a log is left, and so is its target. */
                if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
                    st.st_uid != uid)
                        continue;
                /* The later of the name's time and the last write: a long session's log that
                 * is still written is not old. A name in the future is not believed. */
                if (t > now || st.st_mtime > t)
                        t = st.st_mtime;
                logs[m++] = (struct old_log){names[i], t, (uint64_t)st.st_size};
                total += (uint64_t)st.st_size;
        }
        qsort(logs, m, sizeof(*logs), old_log_cmp);
        time_t cutoff = now - (time_t)(retain_days * DAY);
        for (size_t i = 0; i < m && r >= 0; i++) {
                /* Oldest first: by age, then by size until the rest fits. */
                if (logs[i].time >= cutoff && total <= total_max)
                        break;
                r = remove_log(dfd, logs[i].name, dir, diag);
                total -= logs[i].size;
        }
        free(logs);
        strv_free(names);
        return r < 0 ? r : 0;
}

/* --- open and close --- */

int cordon_chaperon_log_open(const struct cordon_chaperon_log_options *o,
                             struct cordon_chaperon_log **ret, struct cordon_diag *diag)
{
        if (!o->base_dir || o->base_dir[0] != '/')
                return cordon_diag_set(diag, -EINVAL,
                                       "the chaperon's log directory needs an absolute base");
        if (!cordon_chaperon_level_name((int)o->level))
                return cordon_diag_set(diag, -EINVAL, "CHAPERON_LOG_LEVEL %d is out of range",
                                       (int)o->level);
        uint64_t days = o->retain_days ? o->retain_days : CORDON_CHAPERON_LOG_RETAIN_DAYS;
        if (days > 36500)
                return cordon_diag_set(diag, -EINVAL,
                                       "CHAPERON_LOG_RETAIN_DAYS %llu is above 36500",
                                       (unsigned long long)days);
        uint64_t total_max = o->total_max ? o->total_max : CORDON_CHAPERON_LOG_TOTAL_MAX;
        uint64_t file_max = o->file_max ? o->file_max : CORDON_CHAPERON_LOG_FILE_MAX;
        if (file_max < FILE_MAX_MIN)
                return cordon_diag_set(diag, -EINVAL, "a log's cap of %llu bytes is below %d",
                                       (unsigned long long)file_max, FILE_MAX_MIN);
        time_t now = o->now ? o->now : time(NULL);
        char host[256] = "";
        if (o->hostname)
                snprintf(host, sizeof(host), "%s", o->hostname);
        else if (gethostname(host, sizeof(host) - 1) < 0)
                host[0] = 0; /* "unknown" */
        char name[CORDON_CHAPERON_LOG_NAME_MAX + 1];
        int r = cordon_chaperon_log_name_format(host, o->pid ? o->pid : getpid(), now, name,
                                                sizeof(name));
        if (r < 0)
                return cordon_diag_set(diag, r, "cannot name the chaperon's log for time %lld",
                                       (long long)now);

        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int dfd =
            open_log_dir(o->base_dir, o->sub_dir ? o->sub_dir : "cordon/chaperon", &dir, diag);
        if (dfd < 0)
                return dfd;
        _cleanup_free_ struct cordon_chaperon_log *log = calloc(1, sizeof(*log));
        if (!log || asprintf(&log->path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        log->fd = openat(dfd, name,
                         O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                         0600);
        if (log->fd < 0) {
                r = cordon_diag_set(diag, -errno, "cannot create log '%s': %m", log->path);
                free(log->path);
                return r;
        }
        r = prune(dfd, dir, name, now, days, total_max, diag);
        if (r < 0) {
                (void)unlinkat(dfd, name, 0);
                cordon_chaperon_log_free(TAKE_PTR(log));
                return r;
        }
        log->level = o->level;
        log->file_max = file_max;
        *ret = TAKE_PTR(log);
        return 0;
}

struct cordon_chaperon_log *cordon_chaperon_log_free(struct cordon_chaperon_log *log)
{
        if (!log)
                return NULL;
        safe_close(log->fd);
        free(log->path);
        free(log);
        return NULL;
}

const char *cordon_chaperon_log_path(const struct cordon_chaperon_log *log)
{
        return log->path;
}

/* --- lines --- */

/* A line under construction, never longer than CORDON_CHAPERON_LOG_LINE_MAX with its cut
 * mark and newline: whatever does not fit is dropped whole (an escape is never split). */
struct line {
        char buf[CORDON_CHAPERON_LOG_LINE_MAX + 1];
        size_t len;
        bool cut;
};

#define LINE_ROOM (CORDON_CHAPERON_LOG_LINE_MAX - (sizeof(CUT_MARK) - 1) - 1)

static void put(struct line *l, const char *s, size_t n)
{
        if (l->cut || l->len + n > LINE_ROOM) {
                l->cut = true;
                return;
        }
        memcpy(l->buf + l->len, s, n);
        l->len += n;
}

static void put_str(struct line *l, const char *s)
{
        put(l, s, strlen(s));
}

/* @n bytes of @s, each outside printable ASCII, '\' and (with @quote) '"' as \xNN. */
static void put_escaped(struct line *l, const char *s, size_t n, bool quote)
{
        for (size_t i = 0; i < n && !l->cut; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c < 0x20 || c >= 0x7f || c == '\\' || (quote && c == '"')) {
                        char e[5];
                        snprintf(e, sizeof(e), "\\x%02x", c);
                        put(l, e, 4);
                } else
                        put(l, (const char *)&c, 1);
        }
}

static void put_quoted(struct line *l, const char *s, size_t n)
{
        put(l, "\"", 1);
        put_escaped(l, s, n, true);
        put(l, "\"", 1);
}

static void line_start(struct line *l, enum cordon_chaperon_level level)
{
        struct timespec ts;
        struct tm tm;
        char stamp[64] = "0000-00-00T00:00:00.000Z";
        if (clock_gettime(CLOCK_REALTIME, &ts) == 0 && gmtime_r(&ts.tv_sec, &tm))
                snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
                         tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                         tm.tm_sec, ts.tv_nsec / 1000000);
        l->len = 0;
        l->cut = false;
        put_str(l, stamp);
        put(l, " ", 1);
        put_str(l, cordon_chaperon_level_name((int)level));
        put(l, " ", 1);
}

/* Appends the cut mark and the newline (room for both is kept) and writes the line, or the
 * final line when it would pass the file's cap. */
static int line_write(struct cordon_chaperon_log *log, struct line *l)
{
        if (l->cut) {
                memcpy(l->buf + l->len, CUT_MARK, sizeof(CUT_MARK) - 1);
                l->len += sizeof(CUT_MARK) - 1;
        }
        l->buf[l->len++] = '\n';
        if (log->capped)
                return -EFBIG;
        if (log->size + l->len > log->file_max - FINAL_LINE_MAX) {
                line_start(l, CORDON_CHAPERON_ERROR);
                char m[FINAL_LINE_MAX];
                snprintf(m, sizeof(m),
                         "this log reached its cap of %llu bytes: later lines are "
                         "dropped",
                         (unsigned long long)log->file_max);
                put_str(l, m);
                l->buf[l->len++] = '\n';
                log->capped = true;
                int r = write_all(log->fd, l->buf, l->len);
                if (r >= 0)
                        log->size += l->len;
                return r < 0 ? r : -EFBIG;
        }
        int r = write_all(log->fd, l->buf, l->len);
        if (r < 0)
                return r;
        log->size += l->len;
        return 1;
}

int cordon_chaperon_log_line(struct cordon_chaperon_log *log, enum cordon_chaperon_level level,
                             const char *fmt, ...)
{
        if (!cordon_chaperon_level_name((int)level))
                return -EINVAL;
        if (level < log->level)
                return 0;
        /* More than a line's worth of message cannot be written anyway. */
        char msg[CORDON_CHAPERON_LOG_LINE_MAX + 1];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (n < 0)
                return -EINVAL;
        struct line l;
        line_start(&l, level);
        put_escaped(&l, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1, false);
        if ((size_t)n >= sizeof(msg))
                l.cut = true;
        return line_write(log, &l);
}

int cordon_chaperon_log_request(struct cordon_chaperon_log *log, enum cordon_chaperon_level level,
                                const struct cordon_chaperon_request *req)
{
        if (!cordon_chaperon_level_name((int)level) || !req || !req->command)
                return -EINVAL;
        if (level < log->level)
                return 0;
        struct line l;
        line_start(&l, level);
        put_str(&l, "request command=");
        put_quoted(&l, req->command, strlen(req->command));
        put_str(&l, " argv=[");
        for (size_t i = 0; req->argv && req->argv[i]; i++) {
                if (i)
                        put(&l, " ", 1);
                put_quoted(&l, req->argv[i], strlen(req->argv[i]));
        }
        put_str(&l, "] cwd=");
        if (req->cwd)
                put_quoted(&l, req->cwd, strlen(req->cwd));
        else
                put_str(&l, "-");
        put_str(&l, " env=[");
        for (size_t i = 0; req->env && req->env[i]; i++) {
                /* The name only: whatever follows the first '=' is a value and stays out. */
                const char *eq = strchr(req->env[i], '=');
                if (i)
                        put(&l, " ", 1);
                put_quoted(&l, req->env[i], eq ? (size_t)(eq - req->env[i]) : strlen(req->env[i]));
        }
        put_str(&l, "]");
        return line_write(log, &l);
}
