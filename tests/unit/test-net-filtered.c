/* The filtered network mode end to end (pasta needs an openable tun device, the test network
 * root; skipped otherwise):
 * pasta is gone after the sandbox ends, after its command is SIGKILLed, after a failed start and
 * after its supervisor is SIGKILLed; the host's loopback is unreachable from inside; against a
 * small network of the test's own (a veth pair into a namespace, 198.19.254.0/23), a blocked
 * port and a blocked CIDR are refused for TCP and UDP with the errno the rules produce while an
 * allowed port passes. Each sandbox runs in a fork()ed child of the test (Criterion runs
 * threads; the ns backend's raw clone wants no other thread allocating), which reports through
 * its exit status: 0, or the number of the first check that failed. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/mech/pasta.h"
#include "lib/net/net-rules.h"
#include "lib/policy/policy.h"

#define REMOTE_NS "cordon-ft-remote"
#define ALLOWED   7000
#define BLOCKED   7001

/* pasta works for anyone who can open the tun device (udev makes /dev/net/tun 0666): the
 * launch's own probe says so; the test network below needs root as well. */
static bool usable(void)
{
        struct cordon_diag why = {0};
        return cordon_pasta_probe(NULL, CORDON_BACKEND_NS, false, &why) >= 0 &&
               access("/usr/bin/pasta", X_OK) == 0 && access("/usr/bin/python3", X_OK) == 0;
}

static struct cordon_policy *policy(void)
{
        struct cordon_policy *p = cordon_policy_new();
        if (!p)
                return NULL;
        static const char *const ro[] = {"/usr", "/etc"};
        for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++)
                cordon_policy_add_fs(p, ro[i], ro[i], CORDON_ACCESS_RO, 0, "test");
        static const char *const merged[] = {"/bin", "/lib", "/lib64", "/sbin"};
        for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
                struct stat st;
                if (lstat(merged[i], &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        char target[256];
                        ssize_t n = readlink(merged[i], target, sizeof(target) - 1);
                        if (n <= 0)
                                continue;
                        target[n] = 0;
                        cordon_policy_add_fs(p, merged[i], target, CORDON_ACCESS_SYMLINK, 0,
                                             "test");
                } else
                        cordon_policy_add_fs(p, merged[i], merged[i], CORDON_ACCESS_RO, 0, "test");
        }
        cordon_policy_add_fs(p, "/proc", NULL, CORDON_ACCESS_PROC, 0, "test");
        cordon_policy_add_fs(p, "/dev", NULL, CORDON_ACCESS_DEV, 0, "test");
        cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "test");
        cordon_policy_set_cwd(p, "/");
        char path_var[] = "PATH=/usr/bin:/bin";
        char *env[] = {path_var, NULL};
        cordon_policy_set_env(p, env);
        cordon_policy_set_backend(p, CORDON_BACKEND_NS);
        cordon_policy_set_net_mode(p, CORDON_NET_FILTERED, "test");
        return p;
}

static bool gone(pid_t pid)
{
        int fd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0)
                return errno == ESRCH;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        bool r = poll(&pfd, 1, 2000) == 1;
        close(fd);
        return r;
}

/* No child of ours is left: pasta is one while it runs. A killed pasta is reaped at the next
 * stop or start without waiting for its exit; here it is waited for first. */
static bool no_children(void)
{
        cordon_pasta_reap(true);
        return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* Runs @argv in a filtered sandbox; 100 + the step on a failed start, else its exit status. */
static int run(struct cordon_policy *p, char **argv, pid_t *ret_pasta)
{
        struct cordon_sandbox *sb = NULL;
        struct cordon_diag d = {0};
        int r = cordon_sandbox_start(p, argv, &sb, &d);
        if (r < 0) {
                fprintf(stderr, "start: %s\n", d.message);
                return 100 + (int)d.step;
        }
        if (ret_pasta)
                *ret_pasta = sb->l.pasta.pid;
        int status = 0;
        r = cordon_sandbox_wait(sb, &status);
        cordon_sandbox_free(sb);
        return r < 0 ? 99 : status;
}

static int in_child(int (*fn)(void))
{
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0)
                _exit(fn());
        int st;
        if (waitpid(pid, &st, 0) != pid)
                return -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int lifetimes(void)
{
        struct cordon_policy *p = policy();
        char sh[] = "/bin/sh", c[] = "-c", ok[] = "ip -4 addr show eth0 | grep -q inet";
        char *argv[] = {sh, c, ok, NULL};
        pid_t pasta = 0;
        /* An ordinary end. */
        if (run(p, argv, &pasta) != 0)
                return 1;
        if (pasta <= 0 || !gone(pasta) || !no_children())
                return 2;
        /* The command SIGKILLed. */
        char kill_self[] = "kill -9 $$";
        argv[2] = kill_self;
        pasta = 0;
        int r = run(p, argv, &pasta);
        if (r != 128 + SIGKILL)
                return 3;
        if (pasta <= 0 || !gone(pasta) || !no_children())
                return 4;
        /* A start that fails after pasta was attached: the command does not exist. */
        char missing[] = "/nonexistent/command";
        char *argv2[] = {missing, NULL};
        if (run(p, argv2, NULL) < 100)
                return 5;
        if (!no_children())
                return 6;
        /* The sandbox killed from outside (cordon_sandbox_kill) while pasta runs. */
        struct cordon_sandbox *sb = NULL;
        char sleep_[] = "sleep", secs[] = "30";
        char *argv3[] = {sleep_, secs, NULL};
        if (cordon_sandbox_start(p, argv3, &sb, NULL) < 0)
                return 7;
        pasta = sb->l.pasta.pid;
        cordon_sandbox_kill(sb, SIGKILL);
        cordon_sandbox_wait(sb, NULL);
        if (!gone(pasta))
                return 8;
        cordon_sandbox_free(sb);
        if (!no_children())
                return 9;
        cordon_policy_free(p);
        return 0;
}

Test(net_filtered, pasta_never_left_behind)
{
        if (!usable()) {
                cr_skip_test(
                    "needs the tun device openable (cordon_pasta_probe()), pasta and python3");
                return;
        }
        int r = in_child(lifetimes);
        cr_expect_eq(r, 0, "check %d failed", r);
}

/* The supervisor itself SIGKILLed: pasta dies with it. */
Test(net_filtered, pasta_dies_with_its_supervisor)
{
        if (!usable()) {
                cr_skip_test(
                    "needs the tun device openable (cordon_pasta_probe()), pasta and python3");
                return;
        }
        int fds[2];
        cr_assert_eq(pipe(fds), 0);
        pid_t sup = fork();
        cr_assert_geq(sup, 0);
        if (sup == 0) {
                close(fds[0]);
                struct cordon_policy *p = policy();
                char sleep_[] = "sleep", secs[] = "30";
                char *argv[] = {sleep_, secs, NULL};
                struct cordon_sandbox *sb = NULL;
                if (cordon_sandbox_start(p, argv, &sb, NULL) < 0)
                        _exit(1);
                pid_t pasta = sb->l.pasta.pid;
                if (write(fds[1], &pasta, sizeof(pasta)) != sizeof(pasta))
                        _exit(2);
                pause();
                _exit(3);
        }
        close(fds[1]);
        pid_t pasta = 0;
        cr_assert_eq(read(fds[0], &pasta, sizeof(pasta)), (ssize_t)sizeof(pasta));
        close(fds[0]);
        cr_assert_gt(pasta, 0);
        kill(sup, SIGKILL);
        waitpid(sup, NULL, 0);
        cr_expect(gone(pasta), "pasta %d outlived its SIGKILLed supervisor", (int)pasta);
}

/* The host's loopback: a listener on 127.0.0.1 outside is not reached from inside, neither at
 * 127.0.0.1 (the sandbox's own loopback) nor through the gateway or the host's address. */
static int loopback(void)
{
        int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(a);
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 8) < 0 ||
            getsockname(l, (struct sockaddr *)&a, &len) < 0)
                return 1;
        char script[2048];
        snprintf(script, sizeof(script),
                 "import socket, subprocess, sys\n"
                 "port = %d\n"
                 "gw = subprocess.run(['ip', '-4', 'route', 'show', 'default'], "
                 "capture_output=True, text=True).stdout.split()\n"
                 "addrs = ['127.0.0.1'] + ([gw[2]] if len(gw) > 2 else [])\n"
                 "own = subprocess.run(['ip', '-4', '-o', 'addr', 'show', 'eth0'], "
                 "capture_output=True, text=True).stdout.split()\n"
                 "addrs += [own[3].split('/')[0]] if len(own) > 3 else []\n"
                 "if len(addrs) < 3: sys.exit(10)\n"
                 "for h in addrs:\n"
                 "    s = socket.socket(); s.settimeout(3)\n"
                 "    try:\n"
                 "        s.connect((h, port)); sys.exit(11)\n"
                 "    except OSError: pass\n",
                 ntohs(a.sin_port));
        struct cordon_policy *p = policy();
        char py[] = "python3", c[] = "-c";
        char *argv[] = {py, c, script, NULL};
        int r = run(p, argv, NULL);
        cordon_policy_free(p);
        /* The control: the listener is there for the host. */
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
                return 2;
        close(s);
        close(l);
        return r == 0 ? 0 : 20 + (r > 200 ? 200 : r);
}

Test(net_filtered, host_loopback_unreachable)
{
        if (!usable()) {
                cr_skip_test(
                    "needs the tun device openable (cordon_pasta_probe()), pasta and python3");
                return;
        }
        cr_expect_eq(in_child(loopback), 0);
}

/* ---- A network of the test's own ------------------------------------------------------- */

static int sh(const char *cmd)
{
        int r = system(cmd);
        return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

static pid_t server = -1;

static void net_down(void)
{
        if (geteuid() != 0)
                return;
        if (server > 0) {
                kill(server, SIGKILL);
                waitpid(server, NULL, 0);
                server = -1;
        }
        (void)sh("ip netns del " REMOTE_NS " 2>/dev/null; ip link del cordon-ft0 2>/dev/null");
}

/* Two subnets on one veth pair: 198.19.255.0/24 (allowed) and 198.19.254.0/24 (the blocked
 * CIDR), with TCP and UDP echo servers on both ports in the remote namespace. */
static bool net_up(void)
{
        net_down();
        if (sh("ip netns add " REMOTE_NS " && ip link add cordon-ft0 type veth peer name "
               "cordon-ft1 netns " REMOTE_NS " && ip addr add 198.19.255.1/24 dev cordon-ft0 && "
               "ip addr add 198.19.254.1/24 dev cordon-ft0 && ip link set cordon-ft0 up && "
               "ip -n " REMOTE_NS " addr add 198.19.255.2/24 dev cordon-ft1 && "
               "ip -n " REMOTE_NS " addr add 198.19.254.2/24 dev cordon-ft1 && "
               "ip -n " REMOTE_NS " link set cordon-ft1 up && "
               "ip -n " REMOTE_NS " link set lo up") != 0)
                return false;
        server = fork();
        if (server == 0) {
                char prog[] = "import socket, threading\n"
                              "def tcp(port):\n"
                              "    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, "
                              "socket.SO_REUSEADDR, 1)\n"
                              "    l.bind(('0.0.0.0', port)); l.listen(16)\n"
                              "    while True:\n"
                              "        c, _ = l.accept(); c.sendall(c.recv(64)); c.close()\n"
                              "def udp(port):\n"
                              "    u = socket.socket(type=socket.SOCK_DGRAM)\n"
                              "    u.bind(('0.0.0.0', port))\n"
                              "    while True:\n"
                              "        d, a = u.recvfrom(64); u.sendto(d, a)\n"
                              "for p in (7000, 7001):\n"
                              "    threading.Thread(target=tcp, args=(p,), daemon=True).start()\n"
                              "    threading.Thread(target=udp, args=(p,), daemon=True).start()\n"
                              "threading.Event().wait()\n";
                execlp("ip", "ip", "netns", "exec", REMOTE_NS, "python3", "-c", prog, NULL);
                _exit(127);
        }
        /* Ready when the host reaches both ports. */
        for (int i = 0; i < 50; i++) {
                if (sh("python3 -c \"import socket; socket.create_connection(('198.19.255.2', "
                       "7001), 1).close()\" 2>/dev/null") == 0)
                        return true;
                usleep(100 * 1000);
        }
        return false;
}

/* Inside: every probe prints "proto host port outcome" where outcome is "ok" or the errno's
 * name; the test compares the lines. */
static const char probe[] =
    "import socket, errno\n"
    "def tcp(h, p):\n"
    "    s = socket.socket(); s.settimeout(3)\n"
    "    try:\n"
    "        s.connect((h, p)); s.sendall(b'x'); return 'ok' if s.recv(8) == b'x' else 'bad'\n"
    "    except OSError as e: return errno.errorcode.get(e.errno, str(e))\n"
    "def udp(h, p):\n"
    "    s = socket.socket(type=socket.SOCK_DGRAM); s.settimeout(3)\n"
    "    try:\n"
    "        s.connect((h, p)); s.send(b'x'); return 'ok' if s.recv(8) == b'x' else 'bad'\n"
    "    except OSError as e: return errno.errorcode.get(e.errno, str(e))\n"
    "for f in (tcp, udp):\n"
    "    for h, p in (('198.19.255.2', 7000), ('198.19.255.2', 7001), ('198.19.254.2', 7000)):\n"
    "        print(f.__name__, h, p, f(h, p))\n";

static int blocking(void)
{
        struct cordon_policy *p = policy();
        struct cordon_diag d = {0};
        if (cordon_net_rules_new(&p->net.rules) < 0 ||
            cordon_net_rules_add(p->net.rules, "7001", false, "test", &d) < 0 ||
            cordon_net_rules_add(p->net.rules, "198.19.254.0/24", false, "test", &d) < 0)
                return 1;
        int out[2];
        if (pipe(out) < 0)
                return 2;
        char py[] = "python3", c[] = "-c", prog[sizeof(probe)];
        memcpy(prog, probe, sizeof(probe));
        char *argv[] = {py, c, prog, NULL};
        int saved = dup(STDOUT_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(out[1]);
        int r = run(p, argv, NULL);
        dup2(saved, STDOUT_FILENO);
        close(saved);
        char buf[1024] = "";
        ssize_t n = read(out[0], buf, sizeof(buf) - 1);
        close(out[0]);
        buf[n > 0 ? n : 0] = 0;
        cordon_policy_free(p);
        static const char want[] = "tcp 198.19.255.2 7000 ok\n"
                                   "tcp 198.19.255.2 7001 EHOSTUNREACH\n"
                                   "tcp 198.19.254.2 7000 EHOSTUNREACH\n"
                                   "udp 198.19.255.2 7000 ok\n"
                                   "udp 198.19.255.2 7001 EPERM\n"
                                   "udp 198.19.254.2 7000 EPERM\n";
        if (r != 0 || strcmp(buf, want) != 0) {
                fprintf(stderr, "status %d, got:\n%s", r, buf);
                return 3;
        }
        return 0;
}

Test(net_filtered, blocked_port_and_cidr_refused, .fini = net_down)
{
        if (!usable() || geteuid() != 0) {
                cr_skip_test("needs root, the tun device openable (cordon_pasta_probe()), pasta "
                             "and python3");
                return;
        }
        cr_assert(net_up(), "could not build the test network");
        /* The control: the host reaches the blocked port and the blocked subnet directly. */
        cr_assert_eq(sh("python3 -c \"import socket; socket.create_connection(('198.19.254.2', "
                        "7000), 2).close()\""),
                     0);
        cr_expect_eq(in_child(blocking), 0);
}

/* ---- The prepare hook (no pasta run) --------------------------------------------------- */

static char last_warning[1024];
static int n_warnings;

static void collect(void *userdata, const char *message)
{
        (void)userdata;
        snprintf(last_warning, sizeof(last_warning), "%s", message);
        n_warnings++;
}

/* The host-name rules are counted in one line; the ruleset holds the address and port rules; the
 * landlock backend is refused. Where pasta cannot run (no tun device, or one this user cannot
 * open) the probe refuses first, as the launch's fallback would see it; the rules are then
 * checked with NETWORK_FILTER_SKIP_HELPER_PROBE, which leaves the probe to pasta's start. */
Test(net_filtered, prepare_names_unapplied_rules)
{
        struct cordon_policy *p = policy();
        cr_assert_not_null(p);
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rules_new(&p->net.rules), 0);
        cr_assert_eq(cordon_net_rules_add(p->net.rules, "pastebin.example", false, "test", &d), 0);
        cr_assert_eq(cordon_net_rules_add(p->net.rules, "*.corp.example", true, "test", &d), 0);
        cr_assert_eq(cordon_net_rules_add(p->net.rules, "hooks.example/api", false, "test", &d), 0);
        cr_assert_eq(cordon_net_rules_add(p->net.rules, "email.*.example", false, "test", &d), 0);
        cr_assert_eq(cordon_net_rules_add(p->net.rules, "198.19.254.0/24", false, "test", &d), 0);
        p->net.filter_helper = strdup("/bin/true");
        /* The condition the launch decides by (cordon_pasta_filtered_probe()). */
        struct cordon_diag why = {0};
        const struct cordon_pasta_config cfg = {.path = p->net.filter_helper};
        bool deliverable = cordon_pasta_probe(&cfg, CORDON_BACKEND_NS, false, &why) >= 0;
        for (int skip_probe = 0; skip_probe <= 1; skip_probe++) {
                p->net.skip_probe = skip_probe;
                struct cordon_launch l = {.warn = collect};
                n_warnings = 0;
                *last_warning = 0;
                int r = cordon_launch_prepare(p, &l, &d);
                if (!deliverable && !skip_probe) {
                        /* A policy's own fallback is strict: refused, saying why. */
                        cr_expect_eq(r, -EOPNOTSUPP, "%s", d.message);
                        cr_expect(strstr(d.message, why.message), "%s", d.message);
                        cr_expect_eq(n_warnings, 0, "%s", last_warning);
                        cordon_launch_clear(&l);
                        continue;
                }
                cr_assert_eq(r, 0, "%s", d.message);
                /* One short line: how many, where they hold and where not, what lists them;
                 * never each entry with its origin. */
                cr_expect_eq(n_warnings, 1, "%s", last_warning);
                cr_expect_str_eq(last_warning,
                                 "filtered mode: 3 NETWORK_BLOCKLIST and 1 "
                                 "NETWORK_BLOCKLIST_EXCEPT host-name entries apply to the names "
                                 "its resolver answers, not to connections by address (1 with a "
                                 "path: not at all); NETWORK_FILTER_MODE=proxied applies them to "
                                 "connections; listed by the explanation of NETWORK_BLOCKLIST and "
                                 "the explanation of NETWORK_BLOCKLIST_EXCEPT");
                cr_expect_not_null(l.nft.text);
                cr_expect(strstr(l.nft.text, "ip daddr 198.19.254.0/24 reject"), "%s", l.nft.text);
                cr_expect_null(l.nft.unapplied);
                cordon_launch_clear(&l);
        }
        p->net.skip_probe = false;

        cordon_policy_set_backend(p, CORDON_BACKEND_LANDLOCK);
        struct cordon_launch l = {.warn = collect};
        cr_expect_eq(cordon_launch_prepare(p, &l, &d), -EOPNOTSUPP);
        cr_expect(strstr(d.message, "landlock backend has no network namespace"), "%s", d.message);
        cordon_launch_clear(&l);

        cordon_policy_set_backend(p, CORDON_BACKEND_NS);
        free(p->net.filter_helper);
        p->net.filter_helper = strdup("/nonexistent/pasta");
        l = (struct cordon_launch){.warn = collect};
        /* Not deliverable, and a policy's own fallback is strict: refused, naming pasta. */
        cr_expect_eq(cordon_launch_prepare(p, &l, &d), -EOPNOTSUPP);
        cr_expect(strstr(d.message, "/nonexistent/pasta"), "%s", d.message);
        cordon_launch_clear(&l);
        cordon_policy_free(p);
}
