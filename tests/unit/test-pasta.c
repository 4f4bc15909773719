/* Unit tests for src/lib/mech/pasta.c: finding pasta, the probe, and the start-up's bound and
 * ownership with stand-in scripts (a pasta that daemonizes, one that hangs, one that fails), and
 * as root the real pasta attached to a child's network namespace. Every test checks that no
 * process it started is left behind. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/mech/pasta.h"

static char dir[] = "/tmp/cordon-test-pasta-XXXXXX";

static void setup(void)
{
        cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
                cr_log_warn("could not remove %s", dir);
}

static const char *script(const char *name, const char *body)
{
        static char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        /* $d: the scripts' directory. pasta is executed by descriptor, so $0 is /dev/fd/N. */
        fprintf(f, "#!/bin/sh\nd=%s\n%s", dir, body);
        fclose(f);
        chmod(path, 0755);
        return path;
}

/* Whether @pidfd's process has exited, waiting up to @ms. */
static bool gone(int pidfd, int ms)
{
        struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
        return poll(&pfd, 1, ms) == 1;
}

Test(pasta, find)
{
        char *p = NULL;
        cr_expect_eq(cordon_pasta_find("relative/pasta", &p), -EINVAL);
        cr_expect_eq(cordon_pasta_find("/nonexistent/pasta", &p), -ENOENT);
        cr_expect_eq(cordon_pasta_find("/etc/passwd", &p), -EACCES);
        int r = cordon_pasta_find(NULL, &p);
        if (access("/usr/bin/pasta", X_OK) == 0 || access("/usr/local/bin/pasta", X_OK) == 0) {
                cr_assert_eq(r, 0);
                cr_expect(strstr(p, "/pasta") != NULL);
                free(p);
        } else {
                cr_expect_eq(r, -ENOENT);
        }
}

Test(pasta, probe)
{
        struct cordon_diag d = {0};
        cr_expect_eq(cordon_pasta_probe(NULL, CORDON_BACKEND_LANDLOCK, false, &d), -EOPNOTSUPP);
        cr_expect(strstr(d.message, "landlock backend") != NULL, "%s", d.message);
        struct cordon_pasta_config cfg = {.path = "/nonexistent/pasta"};
        cr_expect_eq(cordon_pasta_probe(&cfg, CORDON_BACKEND_NS, true, &d), -ENOENT);
        cr_expect(strstr(d.message, "/nonexistent/pasta") != NULL, "%s", d.message);
        /* With a pasta, the probe's answer is /dev/net/tun's: openable, and the tun device. */
        cfg.path = "/bin/true";
        int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
        struct stat st;
        bool is_tun = tun >= 0 && fstat(tun, &st) == 0 && S_ISCHR(st.st_mode) &&
                      st.st_rdev == makedev(10, 200);
        int r = cordon_pasta_probe(&cfg, CORDON_BACKEND_NS, false, &d);
        if (tun >= 0)
                close(tun);
        if (is_tun) {
                cr_expect_eq(r, 0, "%s", d.message);
        } else {
                cr_expect_lt(r, 0);
                cr_expect(strstr(d.message, "/dev/net/tun") != NULL, "%s", d.message);
        }
        cr_expect_eq(cordon_pasta_probe(&cfg, CORDON_BACKEND_NS, true, &d), 0, "%s", d.message);
}

/* The probe in a mount namespace of a forked child where /dev/net/tun is what @node says:
 * "none" (absent), or a character device "MAJOR:MINOR". Returns the probe's result, or 1000
 * when the namespace could not be set up; the probe's message goes to @msg (shared memory). */
static int probe_with_tun(const char *node, char *msg, size_t n)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWNS) < 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                    mount("tmpfs", "/dev/net", "tmpfs", 0, "mode=0755") < 0)
                        _exit(100);
                unsigned ma, mi;
                if (sscanf(node, "%u:%u", &ma, &mi) == 2 &&
                    mknod("/dev/net/tun", S_IFCHR | 0666, makedev(ma, mi)) < 0)
                        _exit(100);
                struct cordon_pasta_config cfg = {.path = "/bin/true"};
                struct cordon_diag d = {0};
                int r = cordon_pasta_probe(&cfg, CORDON_BACKEND_NS, false, &d);
                snprintf(msg, n, "%s", d.message);
                _exit(r == 0 ? 0 : r == -EOPNOTSUPP ? 1 : r == -EACCES ? 2 : 3);
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status));
        switch (WEXITSTATUS(status)) {
        case 0:
                return 0;
        case 1:
                return -EOPNOTSUPP;
        case 2:
                return -EACCES;
        case 100:
                return 1000;
        default:
                return -EIO;
        }
}

/* What a container shows: no /dev/net/tun, or another device bound over it. Both are refused by
 * the probe, so the fallback is decided before the banner names a mode. */
Test(pasta, probe_knows_the_tun_device)
{
        if (geteuid() != 0)
                cr_skip_test("needs root for a mount namespace with a /dev/net/tun of its own");
        char *msg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        cr_assert_neq(msg, MAP_FAILED);
        cr_expect_eq(probe_with_tun("none", msg, 4096), -EOPNOTSUPP);
        cr_expect(strstr(msg, "/dev/net/tun, which this host lacks"), "%s", msg);
        cr_expect_eq(probe_with_tun("1:3", msg, 4096), -EOPNOTSUPP);
        cr_expect(strstr(msg, "/dev/net/tun is not the tun device here (character device 1:3"),
                  "%s", msg);
        cr_expect_eq(probe_with_tun("10:200", msg, 4096), 0, "%s", msg);
        munmap(msg, 4096);
}

Test(pasta, owns_and_stops_its_daemon, .init = setup, .fini = teardown)
{
        struct cordon_pasta_config cfg = {.path = script("daemon", "echo $$ >&3\nexec sleep 60\n")};
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_pasta_start(&cfg, getpid(), &p, &d), 0, "%s", d.message);
        cr_assert_gt(p.pid, 0);
        cr_assert_geq(p.pidfd, 0);
        int mine = (int)syscall(SYS_pidfd_open, p.pid, 0);
        cr_assert_geq(mine, 0);
        cr_expect_not(gone(mine, 0));
        cordon_pasta_stop(&p);
        cr_expect_eq(p.pidfd, -EBADF);
        /* Killed: its exit takes a moment (the tap device), reaped later. */
        cr_expect(gone(mine, 2000), "pasta outlived cordon_pasta_stop()");
        cordon_pasta_reap(true);
        close(mine);
        cordon_pasta_stop(&p); /* idempotent */
}

Test(pasta, bounded_start_up, .init = setup, .fini = teardown)
{
        /* A pasta that hangs (the known way as root without --runas): killed at the bound, and
         * the daemon it had already named goes too. */
        struct cordon_pasta_config cfg = {
            .path = script("hang", "echo $$ >\"$d/pid\"\nexec sleep 60\n"), .timeout_ms = 300};
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_pasta_start(&cfg, getpid(), &p, &d), -ETIMEDOUT);
        cr_expect(strstr(d.message, "within 300 ms") != NULL, "%s", d.message);
        cr_expect_eq(p.pidfd, -EBADF);
        char path[256];
        snprintf(path, sizeof(path), "%s/pid", dir);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f);
        int pid = 0;
        cr_assert_eq(fscanf(f, "%d", &pid), 1);
        fclose(f);
        /* Killed and reaped: no such process, not even a zombie of ours. */
        cr_expect_eq(kill(pid, 0), -1);
        cr_expect_eq(errno, ESRCH);
}

/* The command line, pinned: nothing forwarded either way, the gateway not mapped, our own ids,
 * the pid file on descriptor 3, and the DNS forwarding address when one is given. */
Test(pasta, command_line, .init = setup, .fini = teardown)
{
        struct cordon_pasta_config cfg = {.path = script("args",
                                                         "echo \"$*\" >\"$d/args\"\necho $$ >&3\n"
                                                         "exec sleep 60\n"),
                                          .dns_forward = "198.18.0.53"};
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_pasta_start(&cfg, 4242, &p, &d), 0, "%s", d.message);
        cordon_pasta_stop(&p);
        char path[256], got[512] = "", want[512];
        snprintf(path, sizeof(path), "%s/args", dir);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f);
        cr_assert_not_null(fgets(got, sizeof(got), f));
        fclose(f);
        snprintf(want, sizeof(want),
                 "-f -q --config-net -T none -U none -t none -u none --no-map-gw --runas %u:%u "
                 "--dns-forward 198.18.0.53 -P /dev/fd/3 4242\n",
                 (unsigned)getuid(), (unsigned)getgid());
        cr_expect_str_eq(got, want);
        cfg.dns_forward = "localhost";
        cr_expect_eq(cordon_pasta_start(&cfg, 4242, &p, &d), -EINVAL);
        cr_expect(strstr(d.message, "'localhost' is not an IP address") != NULL, "%s", d.message);
}

/* Ready means it named itself: a pid file naming another process is refused. */
Test(pasta, names_itself, .init = setup, .fini = teardown)
{
        struct cordon_pasta_config cfg = {.path = script("other", "echo 1 >&3\nexec sleep 60\n"),
                                          .timeout_ms = 2000};
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_pasta_start(&cfg, getpid(), &p, &d), -ECHILD);
        cr_expect(strstr(d.message, "named pid 1") != NULL, "%s", d.message);
}

Test(pasta, failure_says_why, .init = setup, .fini = teardown)
{
        struct cordon_pasta_config cfg = {
            .path = script("fail", "echo 'Failed to send 9 bytes to syslog' >&2\n"
                                   "echo 'Couldn'\\''t open network namespace' >&2\nexit 1\n")};
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_pasta_start(&cfg, getpid(), &p, &d), -ECHILD);
        cr_expect(strstr(d.message, "(exit status 1): Couldn't open network namespace") != NULL,
                  "%s", d.message);
        cr_expect_null(strstr(d.message, "syslog"), "%s", d.message);
        cr_expect_eq(p.pidfd, -EBADF);
}

/* Lines after the first are joined with "; ", none of their characters lost (the separator
 * used to be written over the first character of a line that came right after the last). */
Test(pasta, failure_lines_joined_whole, .init = setup, .fini = teardown)
{
        struct cordon_pasta_config cfg = {
            .path =
                script("fail2", "printf 'ab\\ncd\\n\\nFailed to send 1 bytes to syslog\\nef' >&2\n"
                                "exit 2\n")};
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_pasta_start(&cfg, getpid(), &p, &d), -ECHILD);
        cr_expect(strstr(d.message, "(exit status 2): ab; cd; ef") != NULL, "%s", d.message);
}

/* The two halves: the spawn returns before pasta says it is ready (the launcher releases the
 * child meanwhile), the wait takes its word, and a failure found by the wait leaves nothing
 * owned. */
Test(pasta, spawn_then_wait, .init = setup, .fini = teardown)
{
        struct cordon_pasta_config cfg = {
            .path = script("slow", "sleep 0.3\necho $$ >&3\nexec sleep 60\n")};
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        struct timespec t0, t1, t2;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        cr_assert_eq(cordon_pasta_spawn(&cfg, getpid(), &p, &d), 0, "%s", d.message);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        cr_expect_lt((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000, 250,
                     "the spawn waited for pasta");
        cr_assert_gt(p.pid, 0);
        cr_expect_geq(p.readyfd, 0);
        cr_assert_eq(cordon_pasta_wait_ready(&p, &d), 0, "%s", d.message);
        clock_gettime(CLOCK_MONOTONIC, &t2);
        cr_expect_geq((t2.tv_sec - t0.tv_sec) * 1000 + (t2.tv_nsec - t0.tv_nsec) / 1000000, 250);
        cr_expect_eq(p.readyfd, -EBADF);
        cr_expect_eq(cordon_pasta_wait_ready(&p, &d), 0, "said so already");
        cordon_pasta_stop(&p);
        cr_expect_eq(p.pid, 0);

        cfg.path = script("dies", "echo 'no tun' >&2\nexit 3\n");
        cr_assert_eq(cordon_pasta_spawn(&cfg, getpid(), &p, &d), 0, "%s", d.message);
        cr_assert_eq(cordon_pasta_wait_ready(&p, &d), -ECHILD);
        cr_expect(strstr(d.message, "(exit status 3): no tun") != NULL, "%s", d.message);
        cr_expect_eq(p.pid, 0);
        cr_expect_eq(p.pidfd, -EBADF);
        cr_expect_eq(p.readyfd, -EBADF);
        cr_expect_null(p.path);
        cordon_pasta_stop(&p); /* owns nothing */
}

/* As root: the real pasta attached to a child in a network namespace of its own gives it an
 * eth0 with an address and a default route, and is gone after cordon_pasta_stop(). */
Test(pasta, real_pasta_attaches)
{
        char *path = NULL;
        if (geteuid() != 0 || cordon_pasta_find(NULL, &path) < 0) {
                cr_skip_test("needs root and pasta");
                return;
        }
        free(path);
        /* The launcher's own condition for the filtered mode: no tun device, nothing to test. */
        struct cordon_diag why = {0};
        if (cordon_pasta_probe(NULL, CORDON_BACKEND_NS, false, &why) < 0) {
                cr_skip_test("pasta cannot run here: %s", why.message);
                return;
        }
        int go[2];
        cr_assert_eq(pipe(go), 0);
        pid_t child = fork();
        cr_assert_geq(child, 0);
        if (child == 0) {
                close(go[1]);
                /* Its own user namespace, as the sandbox's PID 1 has: pasta, which keeps no
                 * capability in the host's, joins it (no id maps needed). */
                if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
                        _exit(2);
                char c;
                if (read(go[0], &c, 1) != 1)
                        _exit(3);
                /* eth0 up with an IPv4 default route: pasta configured it. */
                _exit(system("ip -4 route show default | grep -q 'dev eth0'") == 0 ? 0 : 1);
        }
        close(go[0]);
        usleep(50 * 1000); /* the child's unshare */
        struct cordon_pasta p = CORDON_PASTA_NONE;
        struct cordon_diag d = {0};
        int r = cordon_pasta_start(NULL, child, &p, &d);
        cr_expect_eq(r, 0, "%s", d.message);
        int mine = r == 0 ? (int)syscall(SYS_pidfd_open, p.pid, 0) : -1;
        cr_expect_eq(write(go[1], "x", 1), 1);
        close(go[1]);
        int st;
        cr_assert_eq(waitpid(child, &st, 0), child);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
        cordon_pasta_stop(&p);
        if (mine >= 0) {
                /* Killed: its exit takes a moment (the tap device), reaped later. */
                cr_expect(gone(mine, 2000), "pasta outlived cordon_pasta_stop()");
                cordon_pasta_reap(true);
                close(mine);
        }
}
