/* Unit tests for the chaperon's log (src/lib/slurm/chaperon-log.c): the name's format and
 * parser, the level filter, environment values kept out, a hostile argv escaped and cut, the
 * retention by days and by total size (oldest first), what the retention must leave alone
 * (links, directories, other names, other users' files), a symlinked or too open directory
 * refused, and the live file's cap. Each on a scratch directory of its own. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/slurm/chaperon-log.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* 2026-11-30T01:02:03Z */
#define T0 ((time_t)1796000523)

static char base[64];
static char logdir[128];

static void scratch(void)
{
        snprintf(base, sizeof(base), "/tmp/cordon-chaplog.XXXXXX");
        cr_assert(mkdtemp(base));
        snprintf(logdir, sizeof(logdir), "%s/cordon/chaperon", base);
}

static void scratch_remove(void)
{
        remove_tree_physical(base);
}

TestSuite(chaperon_log, .init = scratch, .fini = scratch_remove);

static struct cordon_chaperon_log_options opts(void)
{
        return (struct cordon_chaperon_log_options){
            .base_dir = base,
            .level = CORDON_CHAPERON_INFO,
            .hostname = "node1",
            .pid = 4242,
            .now = T0,
        };
}

static struct cordon_chaperon_log *open_ok(const struct cordon_chaperon_log_options *o)
{
        struct cordon_chaperon_log *log = NULL;
        struct cordon_diag diag = {0};
        int r = cordon_chaperon_log_open(o, &log, &diag);
        cr_assert_eq(r, 0, "open: %s (%s)", strerror(-r), diag.message);
        return log;
}

static int open_err(const struct cordon_chaperon_log_options *o, struct cordon_diag *diag)
{
        struct cordon_chaperon_log *log = NULL;
        int r = cordon_chaperon_log_open(o, &log, diag);
        cr_assert_lt(r, 0, "opened: %s", log ? cordon_chaperon_log_path(log) : "?");
        cr_assert_null(log);
        return r;
}

static char *slurp(const char *path)
{
        char *s = NULL;
        size_t n;
        int r = read_full_file(path, 64 << 20, &s, &n);
        cr_assert_eq(r, 0, "read %s: %s", path, strerror(-r));
        return s;
}

static size_t count(const char *s, char c)
{
        size_t n = 0;
        for (; *s; s++)
                n += *s == c;
        return n;
}

static bool exists(const char *name)
{
        struct stat st;
        return fstatat(AT_FDCWD, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static char *in_dir(const char *name)
{
        static char p[4][512];
        static unsigned k;
        char *s = p[k++ % 4];
        snprintf(s, sizeof(p[0]), "%s/%s", logdir, name);
        return s;
}

/* A file @name of @size bytes in the log directory, modified at @mtime. */
static void plant(const char *name, size_t size, time_t mtime)
{
        int fd = open(in_dir(name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0, "%s: %m", name);
        char buf[4096];
        memset(buf, 'x', sizeof(buf));
        for (size_t done = 0; done < size; done += sizeof(buf))
                cr_assert_eq(
                    write_all(fd, buf, size - done < sizeof(buf) ? size - done : sizeof(buf)), 0);
        struct timeval tv[2] = {{mtime, 0}, {mtime, 0}};
        cr_assert_eq(futimes(fd, tv), 0);
        close(fd);
}

/* The name of a log of host "h", @pid, @t (the last 16 stay valid). */
static const char *log_name(pid_t pid, time_t t)
{
        static char s[16][CORDON_CHAPERON_LOG_NAME_MAX + 1];
        static unsigned k;
        char *b = s[k++ % 16];
        cr_assert_eq(cordon_chaperon_log_name_format("h", pid, t, b, sizeof(s[0])), 0);
        return b;
}

/* The directory made as the library makes it, before a test plants files there. */
static void make_dir(void)
{
        struct cordon_chaperon_log_options o = opts();
        o.pid = 1;
        cordon_chaperon_log_free(open_ok(&o));
}

Test(chaperon_log, name_format_and_file)
{
        struct cordon_chaperon_log_options o = opts();
        struct cordon_chaperon_log *log = open_ok(&o);
        char want[256];
        snprintf(want, sizeof(want), "%s/node1_4242_20261130T010203Z.log", logdir);
        cr_assert_str_eq(cordon_chaperon_log_path(log), want);
        struct stat st;
        cr_assert_eq(lstat(want, &st), 0);
        cr_assert(S_ISREG(st.st_mode));
        cr_assert_eq(st.st_mode & 07777, 0600);
        cr_assert_eq(lstat(logdir, &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0700);
        /* The same host, pid and second again: O_EXCL. */
        struct cordon_diag diag = {0};
        cr_assert_eq(open_err(&o, &diag), -EEXIST);
        cr_assert(strstr(diag.message, "node1_4242_"), "%s", diag.message);
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, name_format_sanitizes_host)
{
        char b[CORDON_CHAPERON_LOG_NAME_MAX + 1];
        cr_assert_eq(cordon_chaperon_log_name_format("a_b/c\n\xc3\xa9.x", 7, 0, b, sizeof(b)), 0);
        cr_assert_str_eq(b, "a-b-c---.x_7_19700101T000000Z.log");
        cr_assert_eq(cordon_chaperon_log_name_format("", 7, 0, b, sizeof(b)), 0);
        cr_assert_str_eq(b, "unknown_7_19700101T000000Z.log");
        char longhost[200];
        memset(longhost, 'n', sizeof(longhost) - 1);
        longhost[sizeof(longhost) - 1] = 0;
        cr_assert_eq(cordon_chaperon_log_name_format(longhost, 2147483647, T0, b, sizeof(b)), 0);
        cr_assert_eq(strlen(b), CORDON_CHAPERON_LOG_NAME_MAX);
        cr_assert_eq(cordon_chaperon_log_name_parse(b, NULL, NULL, NULL), 0);
        cr_assert_eq(cordon_chaperon_log_name_format("h", 0, T0, b, sizeof(b)), -EINVAL);
        cr_assert_eq(cordon_chaperon_log_name_format("h", 1, -1, b, sizeof(b)), -EINVAL);
        cr_assert_eq(cordon_chaperon_log_name_format("h", 1, (time_t)253402300800, b, sizeof(b)),
                     -ERANGE);
}

Test(chaperon_log, name_parse)
{
        char host[CORDON_CHAPERON_LOG_HOST_MAX + 1];
        pid_t pid;
        time_t t;
        cr_assert_eq(
            cordon_chaperon_log_name_parse("node1_4242_20261130T010203Z.log", host, &pid, &t), 0);
        cr_assert_str_eq(host, "node1");
        cr_assert_eq(pid, 4242);
        cr_assert_eq(t, T0);
        cr_assert_eq(cordon_chaperon_log_name_parse("a.b-c_1_20240229T235959Z.log", NULL, NULL, &t),
                     0);
        static const char *const bad[] = {
            "",
            ".log",
            "node1_4242_20261130T010203Z.log~",
            "node1_4242_20261130T010203Z.LOG",
            "node1_4242_20261130T010203.log",
            "node1_4242_20261130010203Z.log",
            "node1_04242_20261130T010203Z.log",
            "node1_0_20261130T010203Z.log",
            "node1_2147483648_20261130T010203Z.log",
            "node1__20261130T010203Z.log",
            "_4242_20261130T010203Z.log",
            "4242_20261130T010203Z.log",
            "no_de_4242_20261130T010203Z.log",
            "no de_4242_20261130T010203Z.log",
            "node1_4242_20261330T010203Z.log",
            "node1_4242_20260230T010203Z.log",
            "node1_4242_20250229T010203Z.log",
            "node1_4242_21000229T010203Z.log",
            "node1_4242_20261130T240203Z.log",
            "node1_4242_20261130T016003Z.log",
            "node1_4242_20261130T010260Z.log",
            "node1_4242_19691231T235959Z.log",
            "node1_4242_2026113OT010203Z.log",
            "node1_+42_20261130T010203Z.log",
            "node1_4242_20261130T010203Z.log/x",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_assert_eq(cordon_chaperon_log_name_parse(bad[i], NULL, NULL, NULL), -EINVAL,
                             "accepted '%s'", bad[i]);
        /* Round trip of the format's output. */
        for (time_t x = 0; x < (time_t)4102444800; x += 86400 * 37 + 3601) {
                char b[CORDON_CHAPERON_LOG_NAME_MAX + 1];
                cr_assert_eq(cordon_chaperon_log_name_format("h", 99, x, b, sizeof(b)), 0);
                cr_assert_eq(cordon_chaperon_log_name_parse(b, NULL, &pid, &t), 0, "%s", b);
                cr_assert_eq(t, x, "%s", b);
        }
}

Test(chaperon_log, dir_from_environment)
{
        const char *b, *s;
        cr_assert_eq(cordon_chaperon_log_dir("/st", "/home/u", &b, &s, NULL), 0);
        cr_assert_str_eq(b, "/st");
        cr_assert_str_eq(s, "cordon/chaperon");
        cr_assert_eq(cordon_chaperon_log_dir("rel", "/home/u", &b, &s, NULL), 0);
        cr_assert_str_eq(b, "/home/u");
        cr_assert_str_eq(s, ".local/state/cordon/chaperon");
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_chaperon_log_dir(NULL, "rel", &b, &s, &diag), -ENXIO);
        cr_assert(strstr(diag.message, "XDG_STATE_HOME"));
        /* The home form creates .local/state too, with the last component private. */
        struct cordon_chaperon_log_options o = opts();
        o.sub_dir = ".local/state/cordon/chaperon";
        struct cordon_chaperon_log *log = open_ok(&o);
        char want[256];
        snprintf(want, sizeof(want), "%s/.local/state/cordon/chaperon/node1_4242_", base);
        cr_assert(startswith(cordon_chaperon_log_path(log), want));
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, levels_filter)
{
        struct cordon_chaperon_log_options o = opts();
        o.level = CORDON_CHAPERON_WARN;
        struct cordon_chaperon_log *log = open_ok(&o);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_DEBUG, "m-debug"), 0);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_INFO, "m-info"), 0);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_WARN, "m-warn %d", 1), 1);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_ERROR, "m-error"), 1);
        const char *argv[] = {"squeue", NULL};
        struct cordon_chaperon_request req = {.command = "squeue", .argv = argv};
        cr_assert_eq(cordon_chaperon_log_request(log, CORDON_CHAPERON_INFO, &req), 0);
        cr_assert_eq(cordon_chaperon_log_line(log, (enum cordon_chaperon_level)7, "x"), -EINVAL);
        char *s = slurp(cordon_chaperon_log_path(log));
        cr_assert_eq(count(s, '\n'), 2, "%s", s);
        cr_assert_null(strstr(s, "m-debug"));
        cr_assert_null(strstr(s, "m-info"));
        cr_assert_null(strstr(s, "squeue"));
        cr_assert(strstr(s, " warn m-warn 1\n"), "%s", s);
        cr_assert(strstr(s, " error m-error\n"), "%s", s);
        /* TIME: 2026-11-30T01:02:03.123Z */
        cr_assert_eq(s[4], '-');
        cr_assert_eq(s[10], 'T');
        cr_assert_eq(s[23], 'Z');
        free(s);
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, env_values_never_logged)
{
        struct cordon_chaperon_log_options o = opts();
        o.level = CORDON_CHAPERON_DEBUG;
        struct cordon_chaperon_log *log = open_ok(&o);
        const char *argv[] = {"sbatch", "--wrap", "visible-argument", NULL};
        const char *env[] = {"SECRET_TOKEN=hunter2-value", "EMPTY=", "NOVALUE",
                             "TWO=a=hunter2-second", NULL};
        struct cordon_chaperon_request req = {
            .command = "sbatch", .argv = argv, .cwd = "/work/p", .env = env};
        cr_assert_eq(cordon_chaperon_log_request(log, CORDON_CHAPERON_INFO, &req), 1);
        char *s = slurp(cordon_chaperon_log_path(log));
        cr_assert_null(strstr(s, "hunter2"), "%s", s);
        /* Positive control: the names, argv and cwd are there. */
        cr_assert(strstr(s, " info request command=\"sbatch\" argv=[\"sbatch\" \"--wrap\" "
                            "\"visible-argument\"] cwd=\"/work/p\" env=[\"SECRET_TOKEN\" "
                            "\"EMPTY\" \"NOVALUE\" \"TWO\"]\n"),
                  "%s", s);
        free(s);
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, hostile_argv_escaped)
{
        struct cordon_chaperon_log_options o = opts();
        struct cordon_chaperon_log *log = open_ok(&o);
        const char *argv[] = {"srun", "x\n2026-01-01T00:00:00.000Z error forged line",
                              "\x1b]8;;http://e/\x07"
                              "click\x1b[31m",
                              "q\"uo\\te\r\xc2\x9b", NULL};
        const char *env[] = {"BAD\nNAME=v", NULL};
        struct cordon_chaperon_request req = {
            .command = "srun", .argv = argv, .cwd = "/a\nb", .env = env};
        cr_assert_eq(cordon_chaperon_log_request(log, CORDON_CHAPERON_INFO, &req), 1);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_ERROR, "%s", "m\nforged\x1b"),
                     1);
        char *s = slurp(cordon_chaperon_log_path(log));
        cr_assert_eq(count(s, '\n'), 2, "%s", s);
        for (const char *p = s; *p; p++)
                cr_assert((*p >= 0x20 && *p < 0x7f) || *p == '\n', "byte 0x%02x in log",
                          (unsigned char)*p);
        cr_assert(strstr(s, "\"x\\x0a2026-01-01T00:00:00.000Z error forged line\""), "%s", s);
        cr_assert(strstr(s, "\"\\x1b]8;;http://e/\\x07click\\x1b[31m\""), "%s", s);
        cr_assert(strstr(s, "\"q\\x22uo\\x5cte\\x0d\\xc2\\x9b\""), "%s", s);
        cr_assert(strstr(s, "cwd=\"/a\\x0ab\" env=[\"BAD\\x0aNAME\"]"), "%s", s);
        cr_assert(strstr(s, " error m\\x0aforged\\x1b\n"), "%s", s);
        free(s);
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, line_length_capped)
{
        struct cordon_chaperon_log_options o = opts();
        struct cordon_chaperon_log *log = open_ok(&o);
        size_t n = 100000;
        char *big = malloc(n + 1);
        cr_assert(big);
        memset(big, 'A', n);
        big[n] = 0;
        big[5000] = '\n';
        const char *argv[] = {"sbatch", big, NULL};
        struct cordon_chaperon_request req = {.command = "sbatch", .argv = argv};
        cr_assert_eq(cordon_chaperon_log_request(log, CORDON_CHAPERON_INFO, &req), 1);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_INFO, "%s", big), 1);
        /* Escapes near the cap are dropped whole. */
        memset(big, '\x01', n);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_INFO, "%s", big), 1);
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_INFO, "short"), 1);
        free(big);
        char *s = slurp(cordon_chaperon_log_path(log));
        cr_assert_eq(count(s, '\n'), 4, "%.300s", s);
        char *line = s;
        for (int i = 0; i < 3; i++) {
                char *nl = strchr(line, '\n');
                size_t len = (size_t)(nl - line) + 1;
                cr_assert_leq(len, CORDON_CHAPERON_LOG_LINE_MAX);
                cr_assert_geq(len, CORDON_CHAPERON_LOG_LINE_MAX - 4, "line %d: %zu", i, len);
                cr_assert(!strncmp(nl - 6, " [cut]", 6), "line %d", i);
                if (i == 2)
                        cr_assert(!strncmp(nl - 10, "\\x01 [cut]", 10));
                line = nl + 1;
        }
        cr_assert(strstr(line, " info short\n"));
        free(s);
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, retention_by_days)
{
        make_dir();
        time_t now = T0;
        char old[3][CORDON_CHAPERON_LOG_NAME_MAX + 1];
        /* Old name and old mtime: removed. */
        snprintf(old[0], sizeof(old[0]), "%s", log_name(10, now - 8 * 86400));
        plant(old[0], 100, now - 8 * 86400);
        /* Within the days (default 7): kept. */
        snprintf(old[1], sizeof(old[1]), "%s", log_name(11, now - 6 * 86400));
        plant(old[1], 100, now - 6 * 86400);
        /* Old name, written lately (a long session's live log): kept. */
        snprintf(old[2], sizeof(old[2]), "%s", log_name(12, now - 30 * 86400));
        plant(old[2], 100, now - 3600);
        /* A name in the future is not believed: its old mtime counts. */
        const char *future = log_name(13, now + 400 * 86400);
        plant(future, 100, now - 9 * 86400);
        struct cordon_chaperon_log_options o = opts();
        struct cordon_chaperon_log *log = open_ok(&o);
        cr_assert(!exists(in_dir(old[0])));
        cr_assert(exists(in_dir(old[1])));
        cr_assert(exists(in_dir(old[2])));
        cr_assert(!exists(in_dir(future)));
        cr_assert(exists(cordon_chaperon_log_path(log)));
        cordon_chaperon_log_free(log);

        /* RETAIN_DAYS 1 at a later open takes the 6-day-old one too. */
        o.retain_days = 1;
        o.pid = 4243;
        log = open_ok(&o);
        cr_assert(!exists(in_dir(old[1])));
        cr_assert(exists(in_dir(old[2])));
        cr_assert(exists(in_dir("node1_4242_20261130T010203Z.log")));
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, size_cap_oldest_first)
{
        make_dir();
        time_t now = T0;
        const char *a = log_name(20, now - 3 * 3600), *b = log_name(21, now - 2 * 3600),
                   *c = log_name(22, now - 3600);
        /* Inserted out of order: the order is by time, not by name or creation. */
        plant(c, 4000, now - 3600);
        plant(a, 4000, now - 3 * 3600);
        plant(b, 4000, now - 2 * 3600);
        struct cordon_chaperon_log_options o = opts();
        o.total_max = 10000;
        struct cordon_chaperon_log *log = open_ok(&o);
        cr_assert(!exists(in_dir(a)));
        cr_assert(exists(in_dir(b)));
        cr_assert(exists(in_dir(c)));
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_INFO, "some bytes"), 1);
        cordon_chaperon_log_free(log);
        /* A cap nothing fits under: every other log goes, the new one stays. */
        o.total_max = 1;
        o.pid = 4243;
        log = open_ok(&o);
        cr_assert(!exists(in_dir(b)));
        cr_assert(!exists(in_dir(c)));
        cr_assert(!exists(in_dir("node1_4242_20261130T010203Z.log")));
        cr_assert(exists(cordon_chaperon_log_path(log)));
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, retention_leaves_others_alone)
{
        make_dir();
        time_t old = T0 - 100 * 86400;
        /* A symlink named like an old log, to an old log-named file outside. */
        char target[256];
        snprintf(target, sizeof(target), "%s/%s", base, log_name(30, old));
        int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0);
        close(fd);
        const char *link = log_name(31, old);
        cr_assert_eq(symlink(target, in_dir(link)), 0);
        /* A directory named like an old log. */
        const char *dir = log_name(32, old);
        cr_assert_eq(mkdir(in_dir(dir), 0700), 0);
        /* Other names, old and large. */
        plant("notes.txt", 100000, old);
        char bak[128];
        snprintf(bak, sizeof(bak), "%s.bak", log_name(33, old));
        plant(bak, 100000, old);
        /* Positive control: a real old log beside them goes. */
        const char *real = log_name(34, old);
        plant(real, 10, old);
        /* Another user's file named like a log, when we can make one. */
        const char *foreign = log_name(35, old);
        bool as_root = geteuid() == 0;
        if (as_root) {
                plant(foreign, 10, old);
                cr_assert_eq(lchown(in_dir(foreign), 65534, 65534), 0);
        }
        struct cordon_chaperon_log_options o = opts();
        o.total_max = 1;
        struct cordon_chaperon_log *log = open_ok(&o);
        cr_assert(!exists(in_dir(real)));
        struct stat st;
        cr_assert_eq(lstat(in_dir(link), &st), 0);
        cr_assert(S_ISLNK(st.st_mode));
        cr_assert(exists(target));
        cr_assert_eq(lstat(in_dir(dir), &st), 0);
        cr_assert(S_ISDIR(st.st_mode));
        cr_assert(exists(in_dir("notes.txt")));
        cr_assert(exists(in_dir(bak)));
        if (as_root)
                cr_assert(exists(in_dir(foreign)));
        cordon_chaperon_log_free(log);
}

Test(chaperon_log, symlinked_dir_refused)
{
        char elsewhere[128];
        snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", base);
        cr_assert_eq(mkdir(elsewhere, 0700), 0);
        char cordon[128];
        snprintf(cordon, sizeof(cordon), "%s/cordon", base);
        cr_assert_eq(mkdir(cordon, 0700), 0);
        /* chaperon -> elsewhere */
        cr_assert_eq(symlink(elsewhere, logdir), 0);
        struct cordon_chaperon_log_options o = opts();
        struct cordon_diag diag = {0};
        cr_assert_eq(open_err(&o, &diag), -ELOOP);
        cr_assert(strstr(diag.message, "symlink"), "%s", diag.message);
        cr_assert(strstr(diag.message, logdir), "%s", diag.message);
        /* Nothing was written through the link. */
        DIR *d = opendir(elsewhere);
        cr_assert(d);
        char **names = NULL;
        size_t n = 9;
        cr_assert_eq(dir_read_names(d, 10, &names, &n), 0);
        closedir(d);
        cr_assert_eq(n, 0);
        strv_free(names);
        /* A link one level up: cordon -> elsewhere. */
        cr_assert_eq(unlink(logdir), 0);
        cr_assert_eq(rmdir(cordon), 0);
        cr_assert_eq(symlink(elsewhere, cordon), 0);
        cr_assert_eq(open_err(&o, &diag), -ELOOP);
        /* A file where the directory should be. */
        cr_assert_eq(unlink(cordon), 0);
        cr_assert_eq(mkdir(cordon, 0700), 0);
        int fd = open(logdir, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0);
        close(fd);
        cr_assert_eq(open_err(&o, &diag), -ENOTDIR);
        /* Positive control: a real directory works. */
        cr_assert_eq(unlink(logdir), 0);
        cordon_chaperon_log_free(open_ok(&o));
}

Test(chaperon_log, open_dir_refused)
{
        make_dir();
        cr_assert_eq(chmod(logdir, 0755), 0);
        struct cordon_chaperon_log_options o = opts();
        struct cordon_diag diag = {0};
        cr_assert_eq(open_err(&o, &diag), -EPERM);
        cr_assert(strstr(diag.message, "0755"), "%s", diag.message);
        cr_assert_eq(chmod(logdir, 0700), 0);
        cordon_chaperon_log_free(open_ok(&o));
        /* A relative base and a ".." below it. */
        o.base_dir = "tmp";
        cr_assert_eq(open_err(&o, &diag), -EINVAL);
        o.base_dir = base;
        o.sub_dir = "cordon/../x";
        cr_assert_eq(open_err(&o, &diag), -EINVAL);
}

Test(chaperon_log, live_file_cap)
{
        struct cordon_chaperon_log_options o = opts();
        o.file_max = 2048;
        struct cordon_chaperon_log *log = open_ok(&o);
        int r, lines = 0;
        while ((r = cordon_chaperon_log_line(log, CORDON_CHAPERON_INFO, "line %d of filler text",
                                             lines)) == 1)
                lines++;
        cr_assert_eq(r, -EFBIG);
        cr_assert_gt(lines, 10);
        struct stat st;
        cr_assert_eq(stat(cordon_chaperon_log_path(log), &st), 0);
        off_t size = st.st_size;
        cr_assert_leq(size, 2048);
        char *s = slurp(cordon_chaperon_log_path(log));
        cr_assert_eq(count(s, '\n'), (size_t)lines + 1);
        const char *last = strrchr(s, '\n');
        while (last > s && last[-1] != '\n')
                last--;
        cr_assert(strstr(last, " error this log reached its cap of 2048 bytes"), "%s", last);
        free(s);
        /* Nothing more, not even at error level. */
        cr_assert_eq(cordon_chaperon_log_line(log, CORDON_CHAPERON_ERROR, "late"), -EFBIG);
        cr_assert_eq(stat(cordon_chaperon_log_path(log), &st), 0);
        cr_assert_eq(st.st_size, size);
        cordon_chaperon_log_free(log);
}
