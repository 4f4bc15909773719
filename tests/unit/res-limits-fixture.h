/* Shared fixture of the resource-limit tests (test-res-limits*.c): a scratch directory holding
 * fake cgroup trees, a struct cordon_limits_host pointing at them, and helpers to build the trees
 * and inspect what the library wrote. */
#pragma once

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/mech/cgroup.h"
#include "lib/mech/res-limits.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

#define MiB (UINT64_C(1) << 20)

static char tmp[PATH_MAX];
static char mountinfo[PATH_MAX], self_cgroup[PATH_MAX];
static struct cordon_limits_host host;
static struct cordon_limits_state st;  /* in a fake tree: never kill_all() it */
static struct cordon_limits_state hst; /* on the real host: killed and removed at teardown */
static struct cordon_diag diag;
static char made_dir[PATH_MAX]; /* a real cgroup directory a test made itself */

/* snprintf() that fails the test instead of truncating. */
_printf_(3, 4) static inline void fmt_into(char *buf, size_t n, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(buf, n, fmt, ap);
        va_end(ap);
        cr_assert(k >= 0 && (size_t)k < n, "path too long");
}

/* ---- fixture ---- */

static inline int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
        return remove(path);
}

static inline void setup(void)
{
        fmt_into(tmp, sizeof(tmp), "/tmp/cordon-limits-XXXXXX");
        cr_assert_not_null(mkdtemp(tmp));
        fmt_into(mountinfo, sizeof(mountinfo), "%s/mountinfo", tmp);
        fmt_into(self_cgroup, sizeof(self_cgroup), "%s/self-cgroup", tmp);
        host = (struct cordon_limits_host){
            .proc_self_cgroup = self_cgroup,
            .mountinfo = mountinfo,
            .create_files = true,
            .uid = 1000,
        };
        memset(&st, 0, sizeof(st));
        memset(&hst, 0, sizeof(hst));
        memset(&diag, 0, sizeof(diag));
        made_dir[0] = 0;
}

static inline void teardown(void)
{
        if (hst.v2_dir[0] || hst.v1_dir[0][0] || hst.v1_dir[1][0] || hst.v1_dir[2][0]) {
                (void)cordon_limits_kill_all(&hst);
                int r = cordon_limits_cleanup(&hst);
                if (r < 0)
                        cr_log_error("leaving a cgroup behind: %s", strerror(-r));
        }
        if (made_dir[0] && rmdir(made_dir) < 0)
                cr_log_error("cannot remove %s: %m", made_dir);
        made_dir[0] = 0;
        if (tmp[0])
                nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        tmp[0] = 0;
}

/* Criterion does not run .fini after cr_skip_test(): clean up first. */
#define SKIP(...)                                                                                  \
        do {                                                                                       \
                teardown();                                                                        \
                cr_skip_test(__VA_ARGS__);                                                         \
        } while (0)

/* A path below the scratch directory; a ring of buffers so several can be alive at once. */
_printf_(1, 2) static inline const char *at(const char *fmt, ...)
{
        static char ring[32][PATH_MAX];
        static unsigned next;
        char rel[PATH_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rel, sizeof(rel), fmt, ap);
        va_end(ap);
        char *b = ring[next++ % ELEMENTSOF(ring)];
        fmt_into(b, PATH_MAX, "%s/%s", tmp, rel);
        return b;
}

static inline void mkdirs(const char *path)
{
        char buf[PATH_MAX];
        fmt_into(buf, sizeof(buf), "%s/", path);
        for (char *c = buf + 1; *c; c++) {
                if (*c != '/')
                        continue;
                *c = 0;
                cr_assert(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", buf);
                *c = '/';
        }
}

static inline void put(const char *path, const char *text)
{
        char dir[PATH_MAX];
        fmt_into(dir, sizeof(dir), "%s", path);
        *strrchr(dir, '/') = 0;
        mkdirs(dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        cr_assert_geq(fd, 0, "open %s: %m", path);
        cr_assert_eq(write_all(fd, text, strlen(text)), 0);
        close(fd);
}

/* The content of @path, or NULL when it does not exist. Valid until the next call. */
static inline const char *get(const char *path)
{
        static char *text;
        free(text);
        text = NULL;
        int r = read_full_file(path, 1 << 20, &text, NULL);
        if (r == -ENOENT)
                return NULL;
        cr_assert_eq(r, 0, "read %s: %s", path, strerror(-r));
        return text;
}

static inline bool exists(const char *path)
{
        return access(path, F_OK) == 0;
}

/* Fake mounts: "cgroup2" at tmp/unified; a v1 controller list ("cpu,cpuacct") at tmp/<first>. */
static inline void fake_mounts(const char *const *list)
{
        char text[4096] = "22 1 0:21 / /proc rw,nosuid - proc proc rw\n";
        for (int i = 0; list && list[i]; i++) {
                char first[64];
                fmt_into(first, sizeof(first), "%.*s", (int)strcspn(list[i], ","), list[i]);
                bool v2 = streq(list[i], "cgroup2");
                const char *dir = at("%s", v2 ? "unified" : first);
                mkdirs(dir);
                snprintf(text + strlen(text), sizeof(text) - strlen(text),
                         "%d 31 0:%d / %s rw,relatime shared:%d - %s %s rw%s%s\n", 40 + i, 40 + i,
                         dir, i, v2 ? "cgroup2" : "cgroup", v2 ? "cgroup2" : "cgroup",
                         v2 ? "" : ",", v2 ? "" : list[i]);
        }
        put(mountinfo, text);
}

/* A fake v2 cgroup at tmp/unified/@rel. */
static inline const char *fake_v2(const char *rel, const char *controllers, const char *subtree,
                                  const char *procs)
{
        const char *dir = at("unified%s", streq(rel, "/") ? "" : rel);
        put(at("unified%s/cgroup.controllers", streq(rel, "/") ? "" : rel), controllers);
        put(at("unified%s/cgroup.subtree_control", streq(rel, "/") ? "" : rel), subtree);
        put(at("unified%s/cgroup.procs", streq(rel, "/") ? "" : rel), procs);
        return dir;
}

/* Removes the regular files a fake leaf got, so that rmdir() can work as on cgroupfs. */
static inline void strip_files(const char *dir)
{
        DIR *d = opendir(dir);
        if (!d)
                return;
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_type == DT_REG)
                        cr_assert_eq(unlinkat(dirfd(d), de->d_name, 0), 0);
        closedir(d);
}

static inline void strip_state(void)
{
        strip_files(st.v2_dir);
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                strip_files(st.v1_dir[k]);
}

/* @leaf is "cordon-<our pid>-<n>" directly below @parent. */
static inline void expect_leaf(const char *leaf, const char *parent)
{
        char prefix[PATH_MAX];
        fmt_into(prefix, sizeof(prefix), "%s/cordon-%d-", parent, (int)getpid());
        cr_expect(strncmp(leaf, prefix, strlen(prefix)) == 0, "leaf %s, expected %s<n>", leaf,
                  prefix);
        cr_expect(!strchr(leaf + strlen(prefix), '/'));
        struct stat sb;
        cr_expect(stat(leaf, &sb) == 0 && S_ISDIR(sb.st_mode), "%s is no directory", leaf);
}

static inline void expect_file(const char *dir, const char *file, const char *want)
{
        char path[PATH_MAX];
        fmt_into(path, sizeof(path), "%s/%s", dir, file);
        const char *got = get(path);
        cr_expect_not_null(got, "%s missing", path);
        if (got)
                cr_expect_str_eq(got, want, "%s: '%s', expected '%s'", path, got, want);
}

static inline void expect_mech(enum cordon_limit_mechanism m, enum cordon_limit_mechanism p,
                               enum cordon_limit_mechanism c)
{
        cr_expect_eq(st.mechanism[CORDON_LIMIT_MEMORY], m, "memory: %s",
                     cordon_limit_mechanism_to_string(st.mechanism[CORDON_LIMIT_MEMORY]));
        cr_expect_eq(st.mechanism[CORDON_LIMIT_PIDS], p, "pids: %s",
                     cordon_limit_mechanism_to_string(st.mechanism[CORDON_LIMIT_PIDS]));
        cr_expect_eq(st.mechanism[CORDON_LIMIT_CPUS], c, "cpus: %s",
                     cordon_limit_mechanism_to_string(st.mechanism[CORDON_LIMIT_CPUS]));
}

static inline int prepare(uint64_t memory, uint64_t pids, unsigned cpus, const char *cgroup_path)
{
        struct cordon_limits lim = {.memory_bytes = memory, .pids = pids, .cpus = cpus};
        memset(&diag, 0, sizeof(diag));
        return cordon_limits_prepare_at(&host, &lim, cgroup_path, &st, &diag);
}

static inline void expect_cleanup(void)
{
        char dirs[_CORDON_LIMIT_KIND_MAX + 1][CORDON_LIMITS_PATH_MAX];
        memcpy(dirs[0], st.v2_dir, sizeof(st.v2_dir));
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                memcpy(dirs[k + 1], st.v1_dir[k], sizeof(st.v1_dir[k]));
        strip_state();
        cr_assert_eq(cordon_limits_cleanup(&st), 0);
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
                cr_expect(!dirs[i][0] || !exists(dirs[i]), "%s still exists", dirs[i]);
        cr_expect_str_empty(st.v2_dir);
        cr_assert_eq(cordon_limits_cleanup(&st), 0, "a second cleanup is a no-op");
}
