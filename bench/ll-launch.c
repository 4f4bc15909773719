/* ll-launch: the smallest Landlock launcher, the floor that `cordon run --backend landlock` is
 * measured against by bench/startup.sh. Not part of cordon and not built by meson; startup.sh
 * compiles it with `cc -O2`.
 *
 *   ll-launch PROJECT -- CMD [ARGS...]
 *
 * Handles every filesystem right of the running Landlock ABI, grants read+execute on the system
 * directories of cordon's default READONLY_MOUNTS, read+write on the standard character devices
 * and every right on PROJECT, sets no-new-privs, restricts itself and execvp()s CMD. Nothing
 * else: no seccomp, no environment filtering, no /proc, no TMPDIR, no checks it can skip.
 * Exit status 125 when the sandbox cannot be set up, 126/127 when CMD cannot be executed/found.
 *
 *   ll-launch --supervised PROJECT -- CMD [ARGS...]
 *
 * The same rules, applied under the process structure `cordon run --backend landlock` has: the
 * launcher stays as a supervisor; a reaper shares its memory (CLONE_VM) in a session of its own,
 * subreaper with a parent-death signal, and starts a vfork-like child (CLONE_VM|CLONE_VFORK, own
 * stack) that takes a session of its own, no-new-privs and the ruleset, and execs CMD; the
 * supervisor reads a close-on-exec pipe to end of file, the reaper waits for CMD and reaps
 * what is left, the supervisor waits for the reaper. Still no seccomp, no policy, no TMPDIR:
 * the floor for the structure alone, so that startup.sh can tell it from cordon's own work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Debian 12's linux-libc-dev (6.1) stops at ABI 2. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
/* ABI 4 (TCP), 6 (scopes) and 7 (audit flags) add no filesystem rights. */

#define FS_READ                                                                                    \
        (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_DEV                                                                                     \
        (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |                            \
         LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

static const char *const system_dirs[] = {"/usr",    "/lib", "/lib32", "/lib64",
                                          "/libx32", "/bin", "/sbin",  "/etc"};
static const char *const devices[] = {"/dev/null",   "/dev/zero",    "/dev/full",
                                      "/dev/random", "/dev/urandom", "/dev/tty"};

static uint64_t fs_rights(int abi)
{
        uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0-12 */
        if (abi >= 2)
                r |= LANDLOCK_ACCESS_FS_REFER;
        if (abi >= 3)
                r |= LANDLOCK_ACCESS_FS_TRUNCATE;
        if (abi >= 5)
                r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
        return r;
}

/* Grants @access on @path; a missing path is skipped unless @required. Returns 0 or -1. */
static int grant(int ruleset, const char *path, uint64_t access, int required)
{
        struct landlock_path_beneath_attr pb = {.allowed_access = access};
        pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
        if (pb.parent_fd < 0) {
                if (!required && (errno == ENOENT || errno == ENOTDIR))
                        return 0;
                fprintf(stderr, "ll-launch: %s: %s\n", path, strerror(errno));
                return -1;
        }
        int r = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
        if (r < 0)
                fprintf(stderr, "ll-launch: landlock_add_rule %s: %s\n", path, strerror(errno));
        close(pb.parent_fd);
        return r;
}

/* Restricts the calling process with @ruleset and execs @argv. Returns only on failure, with
 * the exit status to use. */
static int restrict_and_exec(int ruleset, char **argv)
{
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                perror("ll-launch: PR_SET_NO_NEW_PRIVS");
                return 125;
        }
        if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
                perror("ll-launch: landlock_restrict_self");
                return 125;
        }
        close(ruleset);
        execvp(argv[0], argv);
        int e = errno;
        fprintf(stderr, "ll-launch: %s: %s\n", argv[0], strerror(e));
        return e == ENOENT ? 127 : 126;
}

/* --supervised: what the processes share (one memory, as in cordon). */
static struct {
        int ruleset;
        char **argv;
        int report[2]; /* close-on-exec: end of file once CMD has exec'd */
} sup;
static _Alignas(64) char reaper_stack[64 * 1024], child_stack[256 * 1024];

static int child_main(void *arg)
{
        (void)arg;
        if (setsid() < 0)
                _exit(125);
        _exit(restrict_and_exec(sup.ruleset, sup.argv));
}

static int reaper_main(void *arg)
{
        (void)arg;
        sigset_t usr1;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        if (sigprocmask(SIG_BLOCK, &usr1, NULL) < 0 || setsid() < 0 ||
            prctl(PR_SET_PDEATHSIG, SIGUSR1) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                _exit(125);
        pid_t cmd = clone(child_main, child_stack + sizeof(child_stack),
                          CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
        close(sup.report[1]);
        if (cmd < 0)
                _exit(125);
        /* cordon's reaper also kills what CMD leaves behind; /bin/true leaves nothing. */
        int st;
        pid_t w;
        while ((w = waitpid(-1, &st, 0)) != cmd)
                if (w < 0 && errno != EINTR)
                        _exit(125);
        while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static int run_supervised(int ruleset, char **argv)
{
        sup.ruleset = ruleset;
        sup.argv = argv;
        if (pipe2(sup.report, O_CLOEXEC) < 0) {
                perror("ll-launch: pipe2");
                return 125;
        }
        pid_t reaper =
            clone(reaper_main, reaper_stack + sizeof(reaper_stack), CLONE_VM | SIGCHLD, NULL);
        if (reaper < 0) {
                perror("ll-launch: clone");
                return 125;
        }
        close(sup.report[1]);
        char c;
        ssize_t n;
        while ((n = read(sup.report[0], &c, 1)) > 0 || (n < 0 && errno == EINTR))
                ;
        int st;
        while (waitpid(reaper, &st, 0) < 0)
                if (errno != EINTR)
                        return 125;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
        int supervised = argc > 1 && strcmp(argv[1], "--supervised") == 0;
        argc -= supervised;
        argv += supervised;
        if (argc < 4 || strcmp(argv[2], "--") != 0) {
                fprintf(stderr, "usage: ll-launch [--supervised] PROJECT -- CMD [ARGS...]\n");
                return 2;
        }
        int abi =
            (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        if (abi < 1) {
                perror("ll-launch: Landlock");
                return 125;
        }
        uint64_t all = fs_rights(abi);
        struct landlock_ruleset_attr attr = {.handled_access_fs = all};
        int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
        if (ruleset < 0) {
                perror("ll-launch: landlock_create_ruleset");
                return 125;
        }
        for (size_t i = 0; i < sizeof(system_dirs) / sizeof(*system_dirs); i++)
                if (grant(ruleset, system_dirs[i], FS_READ, 0) < 0)
                        return 125;
        for (size_t i = 0; i < sizeof(devices) / sizeof(*devices); i++)
                if (grant(ruleset, devices[i], FS_DEV & all, 0) < 0)
                        return 125;
        if (grant(ruleset, argv[1], all, 1) < 0)
                return 125;
        return supervised ? run_supervised(ruleset, argv + 3)
                          : restrict_and_exec(ruleset, argv + 3);
}
