/* sysprobe NAME [--userns]: makes one system call with harmless arguments and prints one line,
 * "OK" or the name of the errno it failed with (exit 0); an unknown NAME exits 2.
 * sysprobe open-read PATH, sysprobe open-create PATH: open(2) of PATH for reading, or for
 * writing with O_CREAT (tests/integration/confine-self.sh), the same line. The escape
 * tests run it inside cordon with the seccomp layer on and off: the filter answers at syscall
 * entry whatever the arguments, the kernel rejects these arguments without doing anything.
 *
 * --userns first tries unshare(CLONE_NEWUSER | CLONE_NEWNS) (failure ignored), so that a control
 * run gets past checks of namespaced capabilities (mount API, reboot in a child PID namespace).
 * Capabilities of the initial namespace (modules, kexec, swapoff, acct) cannot be had that way. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/io_uring.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467 /* Linux 6.15 */
#endif

#define BAD_FLAG                 (1UL << 30) /* an undefined bit in every flag word used below */
#define FAN_REPORT_FID_          0x200       /* unprivileged fanotify groups must report file ids */
#define KEXEC_SEGMENT_MAX_PLUS_1 17

static bool userns;
static const char *path_arg; /* open-read, open-create */

/* @pid: a child that reports the errno of its call (0: success) as its exit status. */
static long wait_child(pid_t pid)
{
        int status;
        if (pid < 0)
                return -1;
        if (pid == 0)
                _exit(0);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        if (!WIFEXITED(status)) {
                errno = ECHILD;
                return -1;
        }
        errno = WEXITSTATUS(status);
        return errno ? -1 : 0;
}

static long clone_flags(unsigned long flags)
{
        /* Without CLONE_VM the child runs on a copy of this stack, like fork(). */
        return wait_child((pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0));
}

/* The bad magic makes the kernel answer EINVAL once CAP_SYS_BOOT in the PID namespace's owner
 * is established; reboot() never gets further. With --userns the call is made by PID 1 of a
 * new PID namespace that the new user namespace owns, so an unprivileged control gets there. */
static long p_reboot(void)
{
        if (userns && unshare(CLONE_NEWPID) == 0) {
                pid_t pid = fork();
                if (pid == 0)
                        _exit(syscall(SYS_reboot, 0, 0, 0, NULL) < 0 ? errno : 0);
                return wait_child(pid);
        }
        return syscall(SYS_reboot, 0, 0, 0, NULL);
}

/* A private pty made the controlling terminal of a new session when possible, so that the
 * control's TIOCSTI succeeds on a terminal nobody reads; otherwise fd -1 (the filter answers
 * before the fd is looked at). */
static int private_tty(void)
{
        int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (m < 0 || unlockpt(m) < 0 || !ptsname(m))
                return -1;
        (void)setsid();
        int s = open(ptsname(m), O_RDWR | O_CLOEXEC);
        if (s >= 0)
                (void)ioctl(s, TIOCSCTTY, 0);
        return s;
}

static long tty_ioctl(unsigned long request)
{
        char c = 0; /* TIOCSTI: a NUL byte; TIOCLINUX: subcode 0, which no console accepts */
        return syscall(SYS_ioctl, private_tty(), request, &c);
}

/* TIOCSETD to N_TTY, the discipline the terminal has already: the kernel answers 0 and changes
 * nothing. */
static long tty_setd(unsigned long request)
{
        int disc = 0; /* N_TTY */
        return syscall(SYS_ioctl, private_tty(), request, &disc);
}

#if defined(__x86_64__)
static long raw_result(long r)
{
        if (r < 0 && r >= -4095) {
                errno = (int)-r;
                return -1;
        }
        return r;
}

/* i386 getpid (20) through the 32-bit entry point; older kernels return r8-r11 zeroed. */
static long p_int80(void)
{
        long r;
        __asm__ volatile("int $0x80" : "=a"(r) : "0"(20L) : "memory", "r8", "r9", "r10", "r11");
        return raw_result((int)r);
}

/* x32 getpid: the 64-bit entry with __X32_SYSCALL_BIT in the number. */
static long p_x32(void)
{
        long r;
        __asm__ volatile("syscall" : "=a"(r) : "0"(0x40000000L | 39) : "memory", "rcx", "r11");
        return raw_result(r);
}
#else
static long p_int80(void)
{
        errno = ENOSYS;
        return -1;
}
#define p_x32 p_int80
#endif

static void *thread_main(void *arg)
{
        return arg;
}

/* glibc tries clone3() first and falls back to clone() on ENOSYS. */
static long p_thread(void)
{
        pthread_t t;
        int r = pthread_create(&t, NULL, thread_main, NULL);
        if (r == 0)
                r = pthread_join(t, NULL);
        errno = r;
        return r ? -1 : 0;
}

static long p_fionread(void)
{
        int p[2], n;
        if (pipe(p) < 0)
                return -1;
        return ioctl(p[0], FIONREAD, &n);
}

/* A TCP socket made by io_uring (IORING_OP_SOCKET, Linux 5.19) instead of socket(2): the kernel
 * creates it where no seccomp filter looks. Reports the operation's own result. */
static long p_io_uring_socket(void)
{
        struct io_uring_params prm = {0};
        int ring = (int)syscall(SYS_io_uring_setup, 1, &prm);
        if (ring < 0)
                return -1;
        size_t sq_len = prm.sq_off.array + prm.sq_entries * sizeof(unsigned);
        size_t cq_len = prm.cq_off.cqes + prm.cq_entries * sizeof(struct io_uring_cqe);
        size_t len = sq_len > cq_len ? sq_len : cq_len; /* IORING_FEAT_SINGLE_MMAP since 5.4 */
        char *rings = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                           IORING_OFF_SQ_RING);
        struct io_uring_sqe *sqe = mmap(NULL, prm.sq_entries * sizeof(*sqe), PROT_READ | PROT_WRITE,
                                        MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
        if (rings == MAP_FAILED || sqe == MAP_FAILED) {
                close(ring);
                return -1;
        }
        memset(sqe, 0, sizeof(*sqe));
        sqe->opcode = IORING_OP_SOCKET;
        sqe->fd = AF_INET;
        sqe->off = SOCK_STREAM;
        ((unsigned *)(rings + prm.sq_off.array))[0] = 0;
        __atomic_store_n((unsigned *)(rings + prm.sq_off.tail), 1, __ATOMIC_RELEASE);
        long r = syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
        if (r >= 0) {
                struct io_uring_cqe *cqe = (struct io_uring_cqe *)(rings + prm.cq_off.cqes);
                r = cqe->res >= 0 ? 0 : -1;
                if (cqe->res >= 0)
                        close(cqe->res);
                else
                        errno = -cqe->res;
        }
        int saved = errno;
        close(ring);
        errno = saved;
        return r;
}

static long p_socketpair(void)
{
        int sv[2];
        return syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
}

/* Calls that return a file descriptor: close it again. */
#define FD(call)                                                                                   \
        ({                                                                                         \
                long _r = (call);                                                                  \
                if (_r >= 0)                                                                       \
                        close((int)_r);                                                            \
                _r;                                                                                \
        })

static long probe(const char *name)
{
#define P(n, call)                                                                                 \
        if (strcmp(name, n) == 0)                                                                  \
                return (call);
        /* mount API: bad flags or NULL paths; pivot_root, fsopen, fsmount, fspick and move_mount
         * check CAP_SYS_ADMIN of the mount namespace first (--userns gets past it). */
        P("open-read", FD(open(path_arg, O_RDONLY | O_CLOEXEC)));
        P("open-create", FD(open(path_arg, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)));
        P("mount", syscall(SYS_mount, NULL, "/", NULL, 1UL << 31 /* MS_NOUSER */, NULL));
        P("umount2", syscall(SYS_umount2, "/", 1U << 31 /* UMOUNT_UNUSED */));
        P("pivot_root", syscall(SYS_pivot_root, NULL, NULL));
        P("fsopen", FD(syscall(SYS_fsopen, NULL, BAD_FLAG)));
        P("fsconfig", syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0));
        P("fsmount", FD(syscall(SYS_fsmount, -1, BAD_FLAG, 0)));
        P("fspick", FD(syscall(SYS_fspick, -1, NULL, BAD_FLAG)));
        P("move_mount", syscall(SYS_move_mount, -1, NULL, -1, NULL, BAD_FLAG));
        /* AT_RECURSIVE without OPEN_TREE_CLONE is refused before anything is looked up. */
        P("open_tree", FD(syscall(SYS_open_tree, -1, NULL, 0x8000 /* AT_RECURSIVE */)));
        P("open_tree_attr", FD(syscall(SYS_open_tree_attr, -1, NULL, 0x8000, NULL, 0)));
        P("mount_setattr", syscall(SYS_mount_setattr, -1, NULL, 0, NULL, 0));
        /* Kernel and machine. Modules and kexec check capabilities of the initial namespace
         * first; the lengths, segment counts and flags are refused right after that. */
        P("init_module", syscall(SYS_init_module, NULL, 0, ""));
        P("finit_module", syscall(SYS_finit_module, -1, "", BAD_FLAG));
        P("delete_module", syscall(SYS_delete_module, NULL, 0));
        P("kexec_load", syscall(SYS_kexec_load, 0, KEXEC_SEGMENT_MAX_PLUS_1, NULL, 0));
        P("kexec_file_load", syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 1UL << 31));
        P("reboot", p_reboot());
        P("swapon", syscall(SYS_swapon, NULL, BAD_FLAG));
        P("swapoff", syscall(SYS_swapoff, NULL));
        P("acct", syscall(SYS_acct, (const char *)1)); /* NULL would switch accounting off */
        P("quotactl", syscall(SYS_quotactl, 0xff /* quota type 255 */, NULL, 0, NULL));
        P("quotactl_fd", syscall(SYS_quotactl_fd, -1, 0xff, 0, NULL));
        /* Tracing and kernel attack surface. */
        P("bpf", syscall(SYS_bpf, INT_MAX /* no such command */, NULL, 0));
        P("ptrace", syscall(SYS_ptrace, PTRACE_ATTACH, INT_MAX /* no such pid */, NULL, NULL));
        P("process_vm_readv", syscall(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 1));
        P("process_vm_writev", syscall(SYS_process_vm_writev, getpid(), NULL, 0, NULL, 0, 1));
        P("perf_event_open", FD(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 1UL << 31)));
        /* UFFD_USER_MODE_ONLY needs no privilege; bit 1 is undefined. */
        P("userfaultfd", FD(syscall(SYS_userfaultfd, 1 | 2)));
        P("fanotify_init", FD(syscall(SYS_fanotify_init, FAN_REPORT_FID_ | BAD_FLAG, O_RDONLY)));
        /* Handles and keyrings. */
        P("open_by_handle_at", FD(syscall(SYS_open_by_handle_at, -1, NULL, O_RDONLY)));
        P("name_to_handle_at", syscall(SYS_name_to_handle_at, -1, NULL, NULL, NULL, BAD_FLAG));
        P("keyctl", syscall(SYS_keyctl, INT_MAX /* no such operation */, 0, 0, 0, 0));
        P("add_key", syscall(SYS_add_key, NULL, NULL, NULL, 0, 0));
        P("request_key", syscall(SYS_request_key, NULL, NULL, NULL, 0));
        /* Namespaces: the real thing where it only affects this process. */
        P("setns", syscall(SYS_setns, -1, 0));
        P("unshare", syscall(SYS_unshare, CLONE_NEWUSER));
        P("clone-newuser", clone_flags(CLONE_NEWUSER));
        P("fork", clone_flags(0));
        P("thread", p_thread());
        P("clone3", syscall(SYS_clone3, NULL, 0)); /* size 0: EINVAL from the kernel */
        /* io_uring */
        P("io_uring_setup", FD(syscall(SYS_io_uring_setup, 1, NULL)));
        P("io_uring_enter", syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
        P("io_uring_register", syscall(SYS_io_uring_register, -1, 0, NULL, 0));
        P("io_uring-socket", p_io_uring_socket());
        /* personality (only this process's) */
        P("personality-set", syscall(SYS_personality, ADDR_NO_RANDOMIZE));
        P("personality-query", syscall(SYS_personality, 0xffffffffUL));
        P("personality-linux", syscall(SYS_personality, PER_LINUX));
        /* terminal ioctls on a private pty; the high bits are ignored by the kernel */
        P("tiocsti", tty_ioctl(TIOCSTI));
        P("tiocsti-high", tty_ioctl(1UL << 32 | TIOCSTI));
        P("tioclinux", tty_ioctl(TIOCLINUX));
        P("tiocsetd", tty_setd(TIOCSETD));
        P("tiocsetd-high", tty_setd(1UL << 32 | TIOCSETD));
        P("fionread", p_fionread());
        /* foreign ABIs */
        P("int80-getpid", p_int80());
        P("x32-getpid", p_x32());
        /* network, on bad descriptors (socket and socketpair: AF_UNIX, there in any netns) */
        P("socket", FD(syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)));
        P("socketpair", p_socketpair());
        P("connect", syscall(SYS_connect, -1, NULL, 0));
        P("accept", syscall(SYS_accept, -1, NULL, NULL));
        P("accept4", syscall(SYS_accept4, -1, NULL, NULL, 0));
        P("bind", syscall(SYS_bind, -1, NULL, 0));
        P("listen", syscall(SYS_listen, -1, 0));
        P("sendto", syscall(SYS_sendto, -1, NULL, 0, 0, NULL, 0));
        P("sendmsg", syscall(SYS_sendmsg, -1, NULL, 0));
        P("recvfrom", syscall(SYS_recvfrom, -1, NULL, 0, 0, NULL, NULL));
        P("recvmsg", syscall(SYS_recvmsg, -1, NULL, 0));
        P("sendmmsg", syscall(SYS_sendmmsg, -1, NULL, 0, 0));
        P("recvmmsg", syscall(SYS_recvmmsg, -1, NULL, 0, 0, NULL));
#undef P
        errno = 0;
        return LONG_MIN;
}

/* A probe that traps (int 0x80 with ia32 emulation off) reports the signal instead. */
static void on_signal(int sig)
{
        const char *msg = sig == SIGSEGV ? "SIGSEGV\n" : sig == SIGILL ? "SIGILL\n" : "SIGBUS\n";
        (void)!write(STDOUT_FILENO, msg, strlen(msg));
        _exit(0);
}

int main(int argc, char **argv)
{
        if (argc == 3 && strncmp(argv[1], "open-", 5) == 0)
                path_arg = argv[2];
        else if (argc == 3 && strcmp(argv[2], "--userns") == 0)
                userns = true;
        else if (argc != 2 || strncmp(argv[1], "open-", 5) == 0) {
                fprintf(stderr, "usage: sysprobe NAME [--userns] | open-read|open-create PATH\n");
                return 2;
        }
        signal(SIGSEGV, on_signal);
        signal(SIGILL, on_signal);
        signal(SIGBUS, on_signal);
        if (userns)
                (void)unshare(CLONE_NEWUSER | CLONE_NEWNS);

        long r = probe(argv[1]);
        if (r == LONG_MIN) {
                fprintf(stderr, "sysprobe: unknown system call '%s'\n", argv[1]);
                return 2;
        }
        if (r >= 0)
                puts("OK");
        else if (strerrorname_np(errno))
                puts(strerrorname_np(errno));
        else
                printf("E%d\n", errno);
        /* Out before exit handlers run (LeakSanitizer's needs ptrace, which the filter denies). */
        fflush(stdout);
        return 0;
}
