/* notify-ops: the file calls that the landlock backend's seccomp filter hands to cordon's
 * supervisor (src/lib/mech/seccomp-filter.c, add_notify_rules()), timed one call at a time in
 * the current directory, for bench/notify.sh. Not part of cordon and not built by meson;
 * notify.sh compiles it with `cc -O2`.
 *
 *   notify-ops N
 *
 * Makes N rounds; each round makes every call below once, in this order, on names of its own
 * (notify-ops.*) in the current directory, and times each with CLOCK_MONOTONIC:
 *   create   openat(O_CREAT|O_WRONLY) of a new file + close   notified (openat with O_CREAT)
 *   unlink   unlink of that file                               notified (unlink)
 *   mkdir    mkdir of a new directory                          notified (mkdir)
 *   rmdir    rmdir of it                                       not notified (rmdir; where the
 *            architecture has only unlinkat, as arm64, it is unlinkat(AT_REMOVEDIR): notified)
 *   link     link of an existing file to a new name            notified (link); the unlink
 *            that removes the name again is not timed
 *   open     openat(O_RDONLY) of an existing file + close      not notified: the baseline
 *   open-nofollow  openat(O_RDONLY|O_NOFOLLOW) of the same file + close: notified (an
 *            O_NOFOLLOW open without O_CREAT or O_DIRECTORY, for shm_open()/sem_open() of an
 *            existing name; git >= 2.32 opens .gitignore and .gitattributes so), answered
 *            "continue" by the supervisor for a path outside /dev/shm
 * The calls are made as raw system calls (syscall(2)), so the numbers of the C library cannot
 * move them off the rules: glibc's open() is openat, its rmdir() could be unlinkat(AT_REMOVEDIR),
 * which is notified, on another build.
 * Prints one line per call, `NAME MEAN_NS`: the mean time of one call over the N rounds, the
 * two clock reads around it included (about 20-40 ns, the same in every row). Exit status 1
 * when a call fails (with the call and errno on stderr), 2 for a bad argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FILE_NAME  "notify-ops.file"
#define DIR_NAME   "notify-ops.dir"
#define LINK_NAME  "notify-ops.link"
#define EXIST_NAME "notify-ops.existing"

enum { OP_CREATE, OP_UNLINK, OP_MKDIR, OP_RMDIR, OP_LINK, OP_OPEN, OP_OPEN_NOFOLLOW, OP_MAX };
static const char *const op_names[OP_MAX] = {"create", "unlink", "mkdir",        "rmdir",
                                             "link",   "open",   "open-nofollow"};

static inline uint64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fail(const char *call, const char *name)
{
        fprintf(stderr, "notify-ops: %s %s: %s\n", call, name, strerror(errno));
        exit(1);
}

static long sys_close(long fd)
{
        return syscall(SYS_close, fd);
}

/* The legacy calls where the architecture has them (x86_64), else their *at() forms, which the
 * filter notifies alike; an rmdir() there is unlinkat(AT_REMOVEDIR), notified too. */
static long sys_unlink(const char *name)
{
#ifdef SYS_unlink
        return syscall(SYS_unlink, name);
#else
        return syscall(SYS_unlinkat, AT_FDCWD, name, 0);
#endif
}

static long sys_mkdir(const char *name)
{
#ifdef SYS_mkdir
        return syscall(SYS_mkdir, name, 0700);
#else
        return syscall(SYS_mkdirat, AT_FDCWD, name, 0700);
#endif
}

static long sys_rmdir(const char *name)
{
#ifdef SYS_rmdir
        return syscall(SYS_rmdir, name);
#else
        return syscall(SYS_unlinkat, AT_FDCWD, name, AT_REMOVEDIR);
#endif
}

static long sys_link(const char *old, const char *new)
{
#ifdef SYS_link
        return syscall(SYS_link, old, new);
#else
        return syscall(SYS_linkat, AT_FDCWD, old, AT_FDCWD, new, 0);
#endif
}

int main(int argc, char **argv)
{
        char *end;
        unsigned long n = argc == 2 ? strtoul(argv[1], &end, 10) : 0;
        if (argc != 2 || *end || n == 0) {
                fprintf(stderr, "usage: notify-ops N\n");
                return 2;
        }

        /* Leftovers of an interrupted run would make the first create or mkdir fail. */
        (void)syscall(SYS_unlinkat, AT_FDCWD, FILE_NAME, 0);
        (void)syscall(SYS_unlinkat, AT_FDCWD, LINK_NAME, 0);
        (void)syscall(SYS_unlinkat, AT_FDCWD, DIR_NAME, AT_REMOVEDIR);
        long fd = syscall(SYS_openat, AT_FDCWD, EXIST_NAME, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0 || sys_close(fd) < 0)
                fail("create", EXIST_NAME);

        uint64_t total[OP_MAX] = {0};
        for (unsigned long i = 0; i < n; i++) {
                uint64_t t0 = now_ns();
                fd = syscall(SYS_openat, AT_FDCWD, FILE_NAME, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
                if (fd < 0 || sys_close(fd) < 0)
                        fail("openat(O_CREAT)", FILE_NAME);
                uint64_t t1 = now_ns();
                if (sys_unlink(FILE_NAME) < 0)
                        fail("unlink", FILE_NAME);
                uint64_t t2 = now_ns();
                if (sys_mkdir(DIR_NAME) < 0)
                        fail("mkdir", DIR_NAME);
                uint64_t t3 = now_ns();
                if (sys_rmdir(DIR_NAME) < 0)
                        fail("rmdir", DIR_NAME);
                uint64_t t4 = now_ns();
                if (sys_link(EXIST_NAME, LINK_NAME) < 0)
                        fail("link", LINK_NAME);
                uint64_t t5 = now_ns();
                if (sys_unlink(LINK_NAME) < 0)
                        fail("unlink", LINK_NAME);
                uint64_t t6 = now_ns();
                fd = syscall(SYS_openat, AT_FDCWD, EXIST_NAME, O_RDONLY | O_CLOEXEC);
                if (fd < 0 || sys_close(fd) < 0)
                        fail("openat", EXIST_NAME);
                uint64_t t7 = now_ns();
                fd = syscall(SYS_openat, AT_FDCWD, EXIST_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 || sys_close(fd) < 0)
                        fail("openat(O_NOFOLLOW)", EXIST_NAME);
                uint64_t t8 = now_ns();
                total[OP_CREATE] += t1 - t0;
                total[OP_UNLINK] += t2 - t1;
                total[OP_MKDIR] += t3 - t2;
                total[OP_RMDIR] += t4 - t3;
                total[OP_LINK] += t5 - t4;
                total[OP_OPEN] += t7 - t6;
                total[OP_OPEN_NOFOLLOW] += t8 - t7;
        }
        if (sys_unlink(EXIST_NAME) < 0)
                fail("unlink", EXIST_NAME);

        for (int op = 0; op < OP_MAX; op++)
                printf("%s %.1f\n", op_names[op], (double)total[op] / (double)n);
        return 0;
}
