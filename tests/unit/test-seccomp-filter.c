/* Unit tests for src/lib/mech/seccomp-filter.c. A filter stays for good, so every call is made in a
 * fork()ed child (single-threaded, as unshare(CLONE_NEWUSER) also needs) that reports the errno
 * as its exit status: under the filter it must be the exact errno, in a control child without
 * the filter the same harmless arguments must get another answer from the kernel. A child killed
 * by a signal fails the test: the filter answers errnos, it never kills.
 *
 * CI runs this as root: the arguments are chosen so that the kernel refuses them (EINVAL, EFAULT,
 * EBADF, ESRCH...) even with every capability; nothing gets mounted, loaded or rebooted. As
 * another user, checks of namespaced capabilities are passed in a new user+mount namespace;
 * where only capabilities of the initial namespace would do, the control is asserted as root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/mech/seccomp-filter.h"
#include "shared/macro.h"

#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif

#define BAD_FLAG (1UL << 30) /* undefined in every flag word used below */

/* Exit statuses of a child whose setup failed; errnos stay well below. */
#define SETUP_FAILED 250

static struct cordon_bpf filter;

static void build(const struct cordon_seccomp_key *k, struct cordon_bpf *b)
{
        int r = cordon_seccomp_build(k, b);
        cr_assert_eq(r, 0, "cordon_seccomp_build: %s", strerror(-r));
}

static void suite_init(void)
{
        build(&(struct cordon_seccomp_key){.net = CORDON_SECCOMP_NET_ANY}, &filter);
}

static void suite_fini(void)
{
        cordon_bpf_clear(&filter);
}

TestSuite(seccomp, .init = suite_init, .fini = suite_fini);

static const char *errname(int e)
{
        if (e == 0)
                return "OK";
        if (e < 0)
                return strsignal(-e);
        return strerrorname_np(e) ?: "?";
}

/* Runs @call in a child: in a new user+mount namespace when @userns, under @b when not NULL.
 * Returns 0 when the call succeeded, its errno when it failed, -N when signal N killed it. */
static int run_raw(const struct cordon_bpf *b, bool userns, long (*call)(void))
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0, "fork: %m");
        if (pid == 0) {
                if (userns && unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
                        _exit(SETUP_FAILED);
                if (b &&
                    (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || cordon_seccomp_install(b) < 0))
                        _exit(SETUP_FAILED + 1);
                errno = 0;
                _exit(call() < 0 ? errno : 0);
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status))
                return -WTERMSIG(status);
        cr_assert(WIFEXITED(status));
        cr_assert_lt(WEXITSTATUS(status), SETUP_FAILED, "child setup failed (%d)",
                     WEXITSTATUS(status));
        return WEXITSTATUS(status);
}

static int run(const struct cordon_bpf *b, bool userns, long (*call)(void))
{
        int r = run_raw(b, userns, call);
        cr_assert_geq(r, 0, "the child was killed by %s", errname(r));
        return r;
}

/* A child of a call that forks: the grandchild reports 0 or its errno as exit status. */
static long wait_child(pid_t pid)
{
        int status;
        if (pid < 0)
                return -1;
        if (pid == 0)
                _exit(0);
        if (waitpid(pid, &status, 0) < 0)
                return -1;
        errno = WIFEXITED(status) ? WEXITSTATUS(status) : ECHILD;
        return errno ? -1 : 0;
}

/* Whether the calling thread holds @cap (CAP_*) in its effective set. */
static bool have_cap(int cap)
{
        struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
        if (syscall(SYS_capget, &h, d) < 0)
                return false;
        return d[cap / 32].effective & (UINT32_C(1) << (cap % 32));
}

/* What a control needs to get past the kernel's capability check: nothing, CAP_SYS_ADMIN over
 * the mount namespace or CAP_SYS_BOOT over the PID namespace's owner (the child gets them in a
 * new user namespace, root included), or else a CAP_* of the initial user namespace. */
#define NEED_NOTHING (-1)
#define NEED_USERNS  (-2)

struct denied {
        const char *name;
        long (*call)(void);
        int control;     /* the kernel's answer without the filter (0: success) */
        int control_alt; /* also accepted, e.g. ENOSYS where the call may not be built in */
        int need;        /* NEED_NOTHING, NEED_USERNS or a CAP_* */
};

/* Each entry: under @b the call answers @want; without a filter the kernel's control answer. */
static void check_denied(const struct denied *d, size_t n, const struct cordon_bpf *b, int want)
{
        for (size_t i = 0; i < n; i++) {
                bool userns = d[i].need == NEED_USERNS;
                int got = run(b, userns, d[i].call);
                cr_expect_eq(got, want, "%s under the filter: %s, expected %s", d[i].name,
                             errname(got), errname(want));

                int ctl = run(NULL, userns, d[i].call);
                if (d[i].need >= 0 && !have_cap(d[i].need)) {
                        /* Without this capability of the initial namespace the kernel refuses
                         * with EPERM before it looks at the arguments: indistinguishable from
                         * the filter. CI runs this as root, where the control is the proof. */
                        cr_expect(ctl == EPERM || (d[i].control_alt && ctl == d[i].control_alt),
                                  "%s control without capability %d: %s", d[i].name, d[i].need,
                                  errname(ctl));
                        continue;
                }
                cr_expect(ctl == d[i].control || (d[i].control_alt && ctl == d[i].control_alt),
                          "%s without the filter: %s, expected %s", d[i].name, errname(ctl),
                          errname(d[i].control));
                cr_expect_neq(ctl, want, "%s: the control cannot tell the filter from the kernel",
                              d[i].name);
        }
}

#define CALL(fn, expr)                                                                             \
        static long fn(void)                                                                       \
        {                                                                                          \
                return (expr);                                                                     \
        }

/* --- build and install --------------------------------------------------------------------- */

Test(seccomp, build_sizes)
{
        struct cordon_bpf net = {.insns = NULL}, sock = {.insns = NULL}, both = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.net = CORDON_SECCOMP_NET_NONE}, &net);
        build(&(struct cordon_seccomp_key){.net = CORDON_SECCOMP_NET_NO_SOCKET}, &sock);
        build(&(struct cordon_seccomp_key){.net = cordon_seccomp_net_stricter(
                                               CORDON_SECCOMP_NET_NONE,
                                               CORDON_SECCOMP_NET_NO_SOCKET)},
              &both);
        cr_assert_not_null(filter.insns);
        cr_assert_gt(filter.len, 0);
        cr_assert_leq(net.len, BPF_MAXINSNS);
        cr_expect_lt(filter.len, sock.len);
        /* NO_SOCKET was smaller than NONE until it also checked socketpair()'s type (issue 15:
         * datagram pairs); NONE refuses whole calls, without looking at arguments. */
        cr_expect_lt(filter.len, net.len);
        cr_expect_eq(both.len, net.len, "socket is in the network set already");
        /* The last instruction returns, as the kernel's checker requires. */
        cr_expect_eq(BPF_CLASS(filter.insns[filter.len - 1].code), BPF_RET);
        cordon_bpf_clear(&net);
        cordon_bpf_clear(&sock);
        cordon_bpf_clear(&both);
        cr_expect_null(net.insns);
        cr_expect_eq(net.len, 0);
        cordon_bpf_clear(&net); /* twice is fine */
        cordon_bpf_clear(NULL);
}

Test(seccomp, install_refuses_an_empty_program)
{
        struct cordon_bpf empty = {.insns = NULL, .len = 0};
        cr_expect_eq(cordon_seccomp_install(&empty), -EINVAL);
        cr_expect_eq(cordon_seccomp_install(NULL), -EINVAL);
}

static long install_without_nnp(void)
{
        /* CAP_SYS_ADMIN stands in for no-new-privs: root becomes nobody first, which drops
         * every capability. */
        if (have_cap(CAP_SYS_ADMIN) && setresuid(65534, 65534, 65534) < 0)
                return -1;
        int r = cordon_seccomp_install(&filter);
        errno = -r;
        return r;
}

Test(seccomp, install_needs_no_new_privs)
{
        cr_expect_eq(run(NULL, false, install_without_nnp), EACCES);
}

/* --- the deny list ------------------------------------------------------------------------- */

CALL(c_mount, syscall(SYS_mount, NULL, "/", NULL, 1UL << 31 /* MS_NOUSER */, NULL))
CALL(c_umount2, syscall(SYS_umount2, "/", 1U << 31 /* UMOUNT_UNUSED */))
CALL(c_pivot_root, syscall(SYS_pivot_root, NULL, NULL))
CALL(c_fsopen, syscall(SYS_fsopen, NULL, BAD_FLAG))
CALL(c_fsconfig, syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0))
CALL(c_fsmount, syscall(SYS_fsmount, -1, BAD_FLAG, 0))
CALL(c_fspick, syscall(SYS_fspick, -1, NULL, BAD_FLAG))
CALL(c_move_mount, syscall(SYS_move_mount, -1, NULL, -1, NULL, BAD_FLAG))
/* AT_RECURSIVE without OPEN_TREE_CLONE is refused before any lookup. */
CALL(c_open_tree, syscall(SYS_open_tree, -1, NULL, 0x8000))
CALL(c_open_tree_attr, syscall(SYS_open_tree_attr, -1, NULL, 0x8000, NULL, 0))
CALL(c_mount_setattr, syscall(SYS_mount_setattr, -1, NULL, 0, NULL, 0))

Test(seccomp, mount_api)
{
        const struct denied d[] = {
            {"mount", c_mount, EINVAL, 0, NEED_NOTHING},
            {"umount2", c_umount2, EINVAL, 0, NEED_NOTHING},
            {"pivot_root", c_pivot_root, EFAULT, 0, NEED_USERNS},
            {"fsopen", c_fsopen, EINVAL, 0, NEED_USERNS},
            {"fsconfig", c_fsconfig, EINVAL, 0, NEED_NOTHING},
            {"fsmount", c_fsmount, EINVAL, 0, NEED_USERNS},
            {"fspick", c_fspick, EINVAL, 0, NEED_USERNS},
            {"move_mount", c_move_mount, EINVAL, 0, NEED_USERNS},
            {"open_tree", c_open_tree, EINVAL, 0, NEED_NOTHING},
            {"open_tree_attr", c_open_tree_attr, EINVAL, ENOSYS, NEED_NOTHING},
            {"mount_setattr", c_mount_setattr, EINVAL, 0, NEED_NOTHING},
        };
        check_denied(d, ELEMENTSOF(d), &filter, EPERM);
}

/* Lengths, segment counts and flags the kernel refuses right after its capability check; never
 * kexec_load() with no segments (that unloads) nor acct(NULL) (that switches accounting off). */
CALL(c_init_module, syscall(SYS_init_module, NULL, 0, ""))
CALL(c_finit_module, syscall(SYS_finit_module, -1, "", BAD_FLAG))
CALL(c_delete_module, syscall(SYS_delete_module, NULL, 0))
CALL(c_kexec_load, syscall(SYS_kexec_load, 0, 17 /* KEXEC_SEGMENT_MAX + 1 */, NULL, 0))
CALL(c_kexec_file_load, syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 1UL << 31))
CALL(c_swapon, syscall(SYS_swapon, NULL, BAD_FLAG))
CALL(c_swapoff, syscall(SYS_swapoff, NULL))
CALL(c_acct, syscall(SYS_acct, (const char *)1))
CALL(c_quotactl, syscall(SYS_quotactl, 0xff /* quota type 255 */, NULL, 0, NULL))
CALL(c_quotactl_fd, syscall(SYS_quotactl_fd, -1, 0xff, 0, NULL))

/* reboot() with bad magic: EINVAL once CAP_SYS_BOOT over the PID namespace is established. The
 * call is made by PID 1 of a new PID namespace, which the child's (new) user namespace owns. */
static long c_reboot(void)
{
        if (unshare(CLONE_NEWPID) == 0) {
                pid_t pid = fork();
                if (pid == 0)
                        _exit(syscall(SYS_reboot, 0, 0, 0, NULL) < 0 ? errno : 0);
                return wait_child(pid);
        }
        return syscall(SYS_reboot, 0, 0, 0, NULL);
}

Test(seccomp, kernel_and_machine)
{
        const struct denied d[] = {
            {"init_module", c_init_module, ENOEXEC, ENOSYS, CAP_SYS_MODULE},
            {"finit_module", c_finit_module, EINVAL, ENOSYS, CAP_SYS_MODULE},
            {"delete_module", c_delete_module, EFAULT, ENOSYS, CAP_SYS_MODULE},
            {"kexec_load", c_kexec_load, EINVAL, ENOSYS, CAP_SYS_BOOT},
            {"kexec_file_load", c_kexec_file_load, EINVAL, ENOSYS, CAP_SYS_BOOT},
            {"reboot", c_reboot, EINVAL, 0, NEED_USERNS},
            {"swapon", c_swapon, EINVAL, ENOSYS, NEED_NOTHING},
            {"swapoff", c_swapoff, EFAULT, ENOSYS, CAP_SYS_ADMIN},
            {"acct", c_acct, EFAULT, ENOSYS, CAP_SYS_PACCT},
            {"quotactl", c_quotactl, EINVAL, ENOSYS, NEED_NOTHING},
            /* older kernels check the quota type before the descriptor */
            {"quotactl_fd", c_quotactl_fd, EBADF, EINVAL, NEED_NOTHING},
        };
        check_denied(d, ELEMENTSOF(d), &filter, EPERM);
}

CALL(c_bpf, syscall(SYS_bpf, INT_MAX /* no such command */, NULL, 0))
CALL(c_ptrace, syscall(SYS_ptrace, PTRACE_ATTACH, INT_MAX /* no such pid */, NULL, NULL))
CALL(c_vm_readv, syscall(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 1))
CALL(c_vm_writev, syscall(SYS_process_vm_writev, getpid(), NULL, 0, NULL, 0, 1))
CALL(c_perf_event_open, syscall(SYS_perf_event_open, NULL, 0, -1, -1, 1UL << 31))
/* UFFD_USER_MODE_ONLY needs no privilege; bit 1 is undefined. */
CALL(c_userfaultfd, syscall(SYS_userfaultfd, 1 | 2))
/* FAN_REPORT_FID is what an unprivileged group must ask for; the other bit is undefined. */
CALL(c_fanotify_init, syscall(SYS_fanotify_init, 0x200 | BAD_FLAG, O_RDONLY))

Test(seccomp, tracing_and_kernel_surface)
{
        const struct denied d[] = {
            {"bpf", c_bpf, EINVAL, ENOSYS, NEED_NOTHING},
            {"ptrace", c_ptrace, ESRCH, 0, NEED_NOTHING},
            {"process_vm_readv", c_vm_readv, EINVAL, ENOSYS, NEED_NOTHING},
            {"process_vm_writev", c_vm_writev, EINVAL, ENOSYS, NEED_NOTHING},
            {"perf_event_open", c_perf_event_open, EINVAL, ENOSYS, NEED_NOTHING},
            {"userfaultfd", c_userfaultfd, EINVAL, ENOSYS, NEED_NOTHING},
            {"fanotify_init", c_fanotify_init, EINVAL, ENOSYS, NEED_NOTHING},
        };
        check_denied(d, ELEMENTSOF(d), &filter, EPERM);
}

CALL(c_open_by_handle_at, syscall(SYS_open_by_handle_at, -1, NULL, O_RDONLY))
CALL(c_name_to_handle_at, syscall(SYS_name_to_handle_at, -1, NULL, NULL, NULL, BAD_FLAG))
CALL(c_keyctl, syscall(SYS_keyctl, INT_MAX /* no such operation */, 0, 0, 0, 0))
CALL(c_add_key, syscall(SYS_add_key, NULL, NULL, NULL, 0, 0))
CALL(c_request_key, syscall(SYS_request_key, NULL, NULL, NULL, 0))

Test(seccomp, handles_and_keyrings)
{
        const struct denied d[] = {
            /* before Linux 6.x the capability check came first: EPERM for non-root */
            {"open_by_handle_at", c_open_by_handle_at, EFAULT, 0, NEED_NOTHING},
            {"name_to_handle_at", c_name_to_handle_at, EINVAL, ENOSYS, NEED_NOTHING},
            {"keyctl", c_keyctl, EOPNOTSUPP, ENOSYS, NEED_NOTHING},
            {"add_key", c_add_key, EFAULT, ENOSYS, NEED_NOTHING},
            {"request_key", c_request_key, EFAULT, ENOSYS, NEED_NOTHING},
        };
        check_denied(d, ELEMENTSOF(d), &filter, EPERM);
}

CALL(c_setns, syscall(SYS_setns, -1, 0))
CALL(c_unshare_user, syscall(SYS_unshare, CLONE_NEWUSER))
CALL(c_unshare_bad, syscall(SYS_unshare, CLONE_NEWNS | CLONE_PTRACE /* not for unshare */))
CALL(c_clone3, syscall(SYS_clone3, NULL, 0)) /* size 0: EINVAL from the kernel */
CALL(c_io_uring_setup, syscall(SYS_io_uring_setup, 1, NULL))
CALL(c_io_uring_enter, syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0))
CALL(c_io_uring_register, syscall(SYS_io_uring_register, -1, 0, NULL, 0))

Test(seccomp, namespaces_and_io_uring)
{
        const struct denied d[] = {
            {"setns", c_setns, EBADF, 0, NEED_NOTHING},
            /* a real user namespace, for the child alone */
            {"unshare(CLONE_NEWUSER)", c_unshare_user, 0, 0, NEED_NOTHING},
            {"unshare(bad flags)", c_unshare_bad, EINVAL, 0, NEED_NOTHING},
            /* kernel.io_uring_disabled=2 would answer EPERM itself */
            {"io_uring_setup", c_io_uring_setup, EFAULT, ENOSYS, NEED_NOTHING},
            {"io_uring_enter", c_io_uring_enter, EBADF, ENOSYS, NEED_NOTHING},
            /* since 6.11 fd -1 means "no ring" and opcode 0 is invalid for it */
            {"io_uring_register", c_io_uring_register, EINVAL, EBADF, NEED_NOTHING},
        };
        check_denied(d, ELEMENTSOF(d), &filter, EPERM);
}

Test(seccomp, clone3_is_enosys)
{
        const struct denied d[] = {{"clone3", c_clone3, EINVAL, 0, NEED_NOTHING}};
        check_denied(d, ELEMENTSOF(d), &filter, ENOSYS);
}

/* --- clone() flags ------------------------------------------------------------------------- */

static unsigned long clone_arg;

/* CLONE_THREAD without CLONE_SIGHAND: the kernel refuses (EINVAL) before creating anything. */
static long c_clone_refused(void)
{
        return syscall(SYS_clone, clone_arg | CLONE_THREAD, NULL, NULL, NULL, 0);
}

static long c_clone_fork(void)
{
        return wait_child((pid_t)syscall(SYS_clone, clone_arg | SIGCHLD, NULL, NULL, NULL, 0));
}

Test(seccomp, clone_with_namespace_flags)
{
        static const struct {
                const char *name;
                unsigned long flag;
        } flags[] = {
            {"CLONE_NEWNS", CLONE_NEWNS},         {"CLONE_NEWUTS", CLONE_NEWUTS},
            {"CLONE_NEWIPC", CLONE_NEWIPC},       {"CLONE_NEWUSER", CLONE_NEWUSER},
            {"CLONE_NEWPID", CLONE_NEWPID},       {"CLONE_NEWNET", CLONE_NEWNET},
            {"CLONE_NEWCGROUP", CLONE_NEWCGROUP},
        };
        for (size_t i = 0; i < ELEMENTSOF(flags); i++) {
                /* The kernel reads the low 32 bits only; so does the filter. */
                for (unsigned long high = 0; high <= 1UL << 32; high += 1UL << 32) {
                        clone_arg = flags[i].flag | high;
                        int got = run(&filter, false, c_clone_refused);
                        cr_expect_eq(got, EPERM, "clone(%s%s): %s", flags[i].name,
                                     high ? " | 1 << 32" : "", errname(got));
                        int ctl = run(NULL, false, c_clone_refused);
                        cr_expect_eq(ctl, EINVAL, "control clone(%s): %s", flags[i].name,
                                     errname(ctl));
                }
        }
        /* A real namespace, for a child that exits at once. */
        clone_arg = CLONE_NEWUSER;
        cr_expect_eq(run(&filter, false, c_clone_fork), EPERM);
        cr_expect_eq(run(NULL, false, c_clone_fork), 0);
}

static void *thread_main(void *arg)
{
        return arg;
}

static long c_thread(void)
{
        pthread_t t;
        int r = pthread_create(&t, NULL, thread_main, NULL);
        if (r != 0) {
                errno = r;
                return -1;
        }
        return pthread_join(t, NULL) == 0 ? 0 : -1;
}

Test(seccomp, fork_and_threads_still_work)
{
        clone_arg = 0;
        cr_expect_eq(run(&filter, false, c_clone_fork), 0, "clone(SIGCHLD)");
        /* glibc tries clone3() first and takes ENOSYS as its cue to use clone(). */
        cr_expect_eq(run(&filter, false, c_thread), 0, "pthread_create");
}

/* --- personality() ------------------------------------------------------------------------- */

static unsigned long persona_arg;

CALL(c_personality, syscall(SYS_personality, persona_arg))

Test(seccomp, personality)
{
        /* The kernel reads the persona as unsigned int: high bits are ignored on both sides. */
        static const unsigned long allowed[] = {
            PER_LINUX,
            0xffffffffUL,
            ~0UL /* the query */,
            1UL << 32 /* PER_LINUX */,
        };
        static const unsigned long denied[] = {
            ADDR_NO_RANDOMIZE,
            READ_IMPLIES_EXEC,
            PER_LINUX32,
            PER_BSD,
            1,
            0x80000000UL,
            0x7fffffffUL,
            0xfffffffeUL,
            0x7ffffffeUL,
            0xaaaaaaaaUL,
            1UL << 32 | ADDR_NO_RANDOMIZE,
        };
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++) {
                persona_arg = allowed[i];
                int got = run(&filter, false, c_personality);
                cr_expect_eq(got, 0, "personality(%#lx): %s", persona_arg, errname(got));
        }
        for (size_t i = 0; i < ELEMENTSOF(denied); i++) {
                persona_arg = denied[i];
                int got = run(&filter, false, c_personality);
                cr_expect_eq(got, EPERM, "personality(%#lx): %s", persona_arg, errname(got));
                int ctl = run(NULL, false, c_personality);
                cr_expect_eq(ctl, 0, "control personality(%#lx): %s", persona_arg, errname(ctl));
        }
}

/* Every single-bit persona and every one with a single bit clear is refused: each of the 32
 * masked rules is needed. */
Test(seccomp, personality_every_bit)
{
        for (unsigned i = 0; i < 32; i++) {
                persona_arg = 1UL << i;
                cr_expect_eq(run(&filter, false, c_personality), EPERM, "%#lx", persona_arg);
                persona_arg = 0xffffffffUL & ~(1UL << i);
                cr_expect_eq(run(&filter, false, c_personality), EPERM, "%#lx", persona_arg);
        }
}

/* --- ioctl() ------------------------------------------------------------------------------- */

static unsigned long ioctl_arg;

/* On fd -1: the kernel answers EBADF, the filter answers first. */
static long c_ioctl_badfd(void)
{
        char c = 0;
        return syscall(SYS_ioctl, -1, ioctl_arg, &c);
}

static long c_ioctl_pipe(void)
{
        int p[2], n = 0;
        if (pipe(p) < 0)
                return -1;
        return syscall(SYS_ioctl, p[0], ioctl_arg, &n);
}

Test(seccomp, ioctl_terminal_injection)
{
        static const unsigned long denied[] = {
            TIOCSTI,
            TIOCLINUX,
            TIOCSETD,
            1UL << 32 | TIOCSTI, /* CVE-2019-10063 */
            0xdeadbeefUL << 32 | TIOCLINUX,
            1UL << 32 | TIOCSETD,
        };
        for (size_t i = 0; i < ELEMENTSOF(denied); i++) {
                ioctl_arg = denied[i];
                int got = run(&filter, false, c_ioctl_badfd);
                cr_expect_eq(got, EPERM, "ioctl(%#lx): %s", ioctl_arg, errname(got));
                int ctl = run(NULL, false, c_ioctl_badfd);
                cr_expect_eq(ctl, EBADF, "control ioctl(%#lx): %s", ioctl_arg, errname(ctl));
        }
}

Test(seccomp, ioctl_other_requests)
{
        ioctl_arg = FIONREAD;
        cr_expect_eq(run(&filter, false, c_ioctl_pipe), 0, "FIONREAD");
        ioctl_arg = (unsigned long)TIOCSTI << 32 | FIONREAD; /* the kernel sees FIONREAD */
        cr_expect_eq(run(&filter, false, c_ioctl_pipe), 0, "TIOCSTI << 32 | FIONREAD");
        ioctl_arg = TCGETS; /* not a terminal: the kernel's answer, not the filter's */
        cr_expect_eq(run(&filter, false, c_ioctl_pipe), ENOTTY, "TCGETS");
}

/* --- foreign ABIs -------------------------------------------------------------------------- */

#if defined(__x86_64__)
static long raw_result(long r)
{
        if (r < 0 && r >= -4095) {
                errno = (int)-r;
                return -1;
        }
        return r;
}

/* i386 getpid (20) through int 0x80, which also works from a 64-bit process; older kernels
 * return r8-r11 zeroed. Without ia32 emulation (ia32_emulation=0, or a confidential guest,
 * where it is off by default) the instruction faults: the child dies of SIGSEGV, which
 * AddressSanitizer's handler would turn into exit status 1 (EPERM's number). */
static long c_int80_getpid(void)
{
        signal(SIGSEGV, SIG_DFL);
        long r;
        __asm__ volatile("int $0x80" : "=a"(r) : "0"(20L) : "memory", "r8", "r9", "r10", "r11");
        return raw_result((int)r);
}

/* x32 getpid (39 | __X32_SYSCALL_BIT) through the 64-bit entry point: its arch is x86_64. */
static long c_x32_getpid(void)
{
        long r;
        __asm__ volatile("syscall" : "=a"(r) : "0"(0x40000000L | 39) : "memory", "rcx", "r11");
        return raw_result(r);
}

Test(seccomp, foreign_abis)
{
        int ctl = run_raw(NULL, false, c_int80_getpid);
        int got = run_raw(&filter, false, c_int80_getpid);
        if (ctl < 0) {
                /* ia32_emulation=0: int 0x80 traps before any system call, filter or not.
                 * (Info, not a warning: Criterion exits 1 after a warning.) */
                cr_log_info("int 0x80 without a filter: %s (ia32 emulation off)", errname(ctl));
                cr_expect_eq(got, ctl, "int 0x80 under the filter: %s", errname(got));
        } else {
                cr_expect_eq(ctl, 0, "int 0x80 getpid without the filter: %s", errname(ctl));
                cr_expect_eq(got, EPERM, "int 0x80 getpid under the filter: %s", errname(got));
        }

        /* Without CONFIG_X86_X32_ABI the kernel answers ENOSYS; with it, the pid. */
        ctl = run(NULL, false, c_x32_getpid);
        cr_expect(ctl == ENOSYS || ctl == 0, "x32 getpid without the filter: %s", errname(ctl));
        got = run(&filter, false, c_x32_getpid);
        cr_expect_eq(got, EPERM, "x32 getpid under the filter: %s", errname(got));
}
#endif

/* libseccomp lets syscall number -1 through its x32 check (ptracers use it to skip a call). */
CALL(c_syscall_minus_one, syscall(-1L))

Test(seccomp, syscall_minus_one_reaches_the_kernel)
{
        cr_expect_eq(run(&filter, false, c_syscall_minus_one), ENOSYS);
}

/* --- the network layer --------------------------------------------------------------------- */

static int family_arg = AF_UNIX;

static long c_socket(void)
{
        long r = syscall(SYS_socket, family_arg, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (r >= 0)
                close((int)r);
        return r;
}

static long c_socketpair(void)
{
        int sv[2];
        return syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
}

CALL(c_connect, syscall(SYS_connect, -1, NULL, 0))
CALL(c_accept, syscall(SYS_accept, -1, NULL, NULL))
CALL(c_accept4, syscall(SYS_accept4, -1, NULL, NULL, 0))
CALL(c_bind, syscall(SYS_bind, -1, NULL, 0))
CALL(c_listen, syscall(SYS_listen, -1, 0))
CALL(c_sendto, syscall(SYS_sendto, -1, NULL, 0, 0, NULL, 0))
CALL(c_sendmsg, syscall(SYS_sendmsg, -1, NULL, 0))
CALL(c_recvfrom, syscall(SYS_recvfrom, -1, NULL, 0, 0, NULL, NULL))
CALL(c_recvmsg, syscall(SYS_recvmsg, -1, NULL, 0))
CALL(c_sendmmsg, syscall(SYS_sendmmsg, -1, NULL, 0, 0))
CALL(c_recvmmsg, syscall(SYS_recvmmsg, -1, NULL, 0, 0, NULL))

static const struct denied network_calls[] = {
    {"socket", c_socket, 0, 0, NEED_NOTHING},
    {"socketpair", c_socketpair, 0, 0, NEED_NOTHING},
    {"connect", c_connect, EBADF, 0, NEED_NOTHING},
    {"accept", c_accept, EBADF, 0, NEED_NOTHING},
    {"accept4", c_accept4, EBADF, 0, NEED_NOTHING},
    {"bind", c_bind, EBADF, 0, NEED_NOTHING},
    {"listen", c_listen, EBADF, 0, NEED_NOTHING},
    {"sendto", c_sendto, EBADF, 0, NEED_NOTHING},
    {"sendmsg", c_sendmsg, EBADF, 0, NEED_NOTHING},
    {"recvfrom", c_recvfrom, EBADF, 0, NEED_NOTHING},
    {"recvmsg", c_recvmsg, EBADF, 0, NEED_NOTHING},
    {"sendmmsg", c_sendmmsg, EBADF, 0, NEED_NOTHING},
    {"recvmmsg", c_recvmmsg, EBADF, 0, NEED_NOTHING},
};

Test(seccomp, deny_network)
{
        struct cordon_bpf net = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.net = CORDON_SECCOMP_NET_NONE}, &net);
        family_arg = AF_UNIX;
        check_denied(network_calls, ELEMENTSOF(network_calls), &net, EPERM);
        cordon_bpf_clear(&net);
}

Test(seccomp, network_open_by_default)
{
        family_arg = AF_UNIX;
        for (size_t i = 0; i < ELEMENTSOF(network_calls); i++) {
                int got = run(&filter, false, network_calls[i].call);
                cr_expect_eq(got, network_calls[i].control, "%s: %s", network_calls[i].name,
                             errname(got));
        }
}

Test(seccomp, deny_socket_create)
{
        struct cordon_bpf sock = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.net = CORDON_SECCOMP_NET_NO_SOCKET}, &sock);
        static const int families[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};
        for (size_t i = 0; i < ELEMENTSOF(families); i++) {
                family_arg = families[i];
                int got = run(&sock, false, c_socket);
                cr_expect_eq(got, EPERM, "socket(%d): %s", family_arg, errname(got));
                int ctl = run(NULL, false, c_socket);
                cr_expect_neq(ctl, EPERM, "control socket(%d): %s", family_arg, errname(ctl));
        }
        cr_expect_eq(run(&sock, false, c_socketpair), 0, "socketpair keeps working");
        cr_expect_eq(run(&sock, false, c_connect), EBADF, "connect is not filtered");
        cr_expect_eq(run(&sock, false, c_sendto), EBADF, "sendto is not filtered");
        cordon_bpf_clear(&sock);
}

/* socket() and socketpair() of family_raw, the register as passed, high half included. Never a
 * connection: creating the socket shows the family is reachable. */
static unsigned long family_raw;
static long c_personality_set(void);

static long c_socket_raw(void)
{
        long r = syscall(SYS_socket, family_raw, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (r >= 0)
                close((int)r);
        return r;
}

static long c_socketpair_family(void)
{
        int sv[2];
        long r = syscall(SYS_socketpair, family_raw, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
        if (r >= 0) {
                close(sv[0]);
                close(sv[1]);
        }
        return r;
}

Test(seccomp, restrict_socket_families)
{
        struct cordon_bpf fam = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.net = CORDON_SECCOMP_NET_FAMILIES}, &fam);
        /* The kernel reads the low 32 bits; the filter admits only exact small values. */
        static const unsigned long admitted[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};
        for (size_t i = 0; i < ELEMENTSOF(admitted); i++) {
                family_raw = admitted[i];
                int got = run(&fam, false, c_socket_raw);
                int ctl = run(NULL, false, c_socket_raw);
                /* AF_NETLINK has no SOCK_STREAM: the kernel's own answer either way. */
                cr_expect_eq(got, ctl, "socket(%lu): %s, without the filter %s", family_raw,
                             errname(got), errname(ctl));
                cr_expect_neq(got, EAFNOSUPPORT, "socket(%lu)", family_raw);
        }
        /* Refused: every other family below AF_MAX and beyond, and an admitted one with high
         * garbage (a refusal, never a way around: AF_VSOCK | 1 << 32 is AF_VSOCK to the kernel). */
        for (unsigned long f = 0; f <= 64; f++) {
                if (f == AF_UNIX || f == AF_INET || f == AF_INET6 || f == AF_NETLINK)
                        continue;
                family_raw = f;
                int got = run(&fam, false, c_socket_raw);
                cr_expect_eq(got, EAFNOSUPPORT, "socket(%lu): %s", f, errname(got));
        }
        static const unsigned long garbage[] = {
            1UL << 32 | AF_VSOCK, 1UL << 32 | AF_UNIX, 0xffffffffUL << 32 | AF_INET, ~0UL /* -1 */,
            0x80000000UL,         0xffffffffUL,        1UL << 63 | AF_KEY,
        };
        for (size_t i = 0; i < ELEMENTSOF(garbage); i++) {
                family_raw = garbage[i];
                int got = run(&fam, false, c_socket_raw);
                cr_expect_eq(got, EAFNOSUPPORT, "socket(%#lx): %s", family_raw, errname(got));
        }
        /* Control: AF_VSOCK exists on this machine (a Firecracker guest), also through the high
         * garbage the kernel drops; without vsock the kernel answers EAFNOSUPPORT itself. */
        family_raw = 1UL << 32 | AF_VSOCK;
        int ctl = run(NULL, false, c_socket_raw);
        if (ctl == EAFNOSUPPORT)
                cr_log_warn("no AF_VSOCK in this kernel: the control cannot show the difference");
        else
                cr_expect_eq(ctl, 0, "control socket(AF_VSOCK | 1 << 32): %s", errname(ctl));

        /* socketpair(): AF_UNIX alone. */
        family_raw = AF_UNIX;
        cr_expect_eq(run(&fam, false, c_socketpair_family), 0, "socketpair(AF_UNIX)");
        static const unsigned long pair_refused[] = {0,        AF_INET, AF_NETLINK,
                                                     AF_VSOCK, AF_TIPC, 1UL << 32 | AF_UNIX};
        for (size_t i = 0; i < ELEMENTSOF(pair_refused); i++) {
                family_raw = pair_refused[i];
                int got = run(&fam, false, c_socketpair_family);
                cr_expect_eq(got, EAFNOSUPPORT, "socketpair(%#lx): %s", family_raw, errname(got));
        }
        /* Nothing else changes: the rest of the deny list is there as in the default filter. */
        cr_expect_eq(run(&fam, false, c_personality_set), EPERM);
        cordon_bpf_clear(&fam);
}

Test(seccomp, socket_families_with_the_other_socket_rules)
{
        /* NO_SOCKET wins for socket() (EPERM); socketpair() keeps its family rule. */
        struct cordon_bpf b = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.tier = CORDON_SECCOMP_TIER_NET_ONLY,
                                           .net = cordon_seccomp_net_stricter(
                                               CORDON_SECCOMP_NET_NO_SOCKET,
                                               CORDON_SECCOMP_NET_FAMILIES)},
              &b);
        family_raw = AF_VSOCK;
        cr_expect_eq(run(&b, false, c_socket_raw), EPERM);
        family_raw = AF_INET;
        cr_expect_eq(run(&b, false, c_socket_raw), EPERM);
        cr_expect_eq(run(&b, false, c_socketpair_family), EAFNOSUPPORT);
        family_raw = AF_UNIX;
        cr_expect_eq(run(&b, false, c_socketpair_family), 0);
        cordon_bpf_clear(&b);
        /* NONE wins for both (EPERM). */
        build(
            &(struct cordon_seccomp_key){.net = cordon_seccomp_net_stricter(
                                             CORDON_SECCOMP_NET_NONE, CORDON_SECCOMP_NET_FAMILIES)},
            &b);
        family_raw = AF_VSOCK;
        cr_expect_eq(run(&b, false, c_socket_raw), EPERM);
        family_raw = AF_UNIX;
        cr_expect_eq(run(&b, false, c_socketpair_family), EPERM);
        cordon_bpf_clear(&b);
}

/* --- the landlock backend's stream-only rules ----------------------------------------------- */

/* socket() or socketpair() with these registers, as passed (high halves included). */
static unsigned long sock_family, sock_type, sock_proto;

static long c_socket3(void)
{
        long r = syscall(SYS_socket, sock_family, sock_type, sock_proto);
        if (r >= 0)
                close((int)r);
        return r;
}

static long c_socketpair3(void)
{
        int sv[2];
        long r = syscall(SYS_socketpair, sock_family, sock_type, sock_proto, sv);
        if (r >= 0) {
                close(sv[0]);
                close(sv[1]);
        }
        return r;
}

#define MSG_FASTOPEN_FLAG 0x20000000UL
CALL(c_sendto_fastopen, syscall(SYS_sendto, -1, NULL, 0, MSG_FASTOPEN_FLAG, NULL, 0))
CALL(c_sendto_fastopen_high,
     syscall(SYS_sendto, -1, NULL, 0, 1UL << 32 | MSG_FASTOPEN_FLAG, NULL, 0))
CALL(c_sendmsg_fastopen, syscall(SYS_sendmsg, -1, NULL, MSG_FASTOPEN_FLAG))
CALL(c_sendmmsg_fastopen, syscall(SYS_sendmmsg, -1, NULL, 0, MSG_FASTOPEN_FLAG))

static int socket_under(const struct cordon_bpf *b, unsigned long family, unsigned long type,
                        unsigned long proto)
{
        sock_family = family;
        sock_type = type;
        sock_proto = proto;
        return run(b, false, c_socket3);
}

static int pair_under(const struct cordon_bpf *b, unsigned long family, unsigned long type)
{
        sock_family = family;
        sock_type = type;
        sock_proto = 0;
        return run(b, false, c_socketpair3);
}

/* What the stream rules and NO_SOCKET refuse alike besides socket(): datagram pairs. Each
 * refusal is EACCES where the kernel answers otherwise. */
static void check_datagram_pairs(const struct cordon_bpf *b)
{
        static const unsigned long flags[] = {0, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC};
        for (size_t i = 0; i < ELEMENTSOF(flags); i++) {
                cr_expect_eq(pair_under(b, AF_UNIX, SOCK_STREAM | flags[i]), 0);
                cr_expect_eq(pair_under(b, AF_UNIX, SOCK_SEQPACKET | flags[i]), 0);
                cr_expect_eq(pair_under(b, AF_UNIX, SOCK_DGRAM | flags[i]), EACCES);
                cr_expect_eq(pair_under(NULL, AF_UNIX, SOCK_DGRAM | flags[i]), 0, "control");
        }
        /* High garbage: the kernel reads an int, so SOCK_DGRAM | 1 << 32 is a datagram pair. */
        cr_expect_eq(pair_under(b, AF_UNIX, 1UL << 32 | SOCK_DGRAM), EACCES);
        cr_expect_eq(pair_under(NULL, AF_UNIX, 1UL << 32 | SOCK_DGRAM), 0, "control");
        cr_expect_eq(pair_under(b, AF_UNIX, SOCK_RAW), EACCES);
        /* Bits above the type are the kernel's to refuse (EINVAL), before any socket. */
        cr_expect_eq(pair_under(b, AF_UNIX, SOCK_STREAM | 0x100), EINVAL);
        cr_expect_eq(pair_under(b, AF_INET, SOCK_STREAM), EAFNOSUPPORT, "the family rule stays");
}

/* The stream rules' TCP escapes past Landlock: listen() (autobind), Fast Open sends. */
static void check_stream_escapes(const struct cordon_bpf *b)
{
        check_datagram_pairs(b);
        static const struct denied calls[] = {
            {"listen", c_listen, EBADF, 0, NEED_NOTHING},
            {"sendto MSG_FASTOPEN", c_sendto_fastopen, EBADF, 0, NEED_NOTHING},
            {"sendto MSG_FASTOPEN | 1 << 32", c_sendto_fastopen_high, EBADF, 0, NEED_NOTHING},
            {"sendmsg MSG_FASTOPEN", c_sendmsg_fastopen, EBADF, 0, NEED_NOTHING},
            {"sendmmsg MSG_FASTOPEN", c_sendmmsg_fastopen, EBADF, 0, NEED_NOTHING},
        };
        check_denied(calls, ELEMENTSOF(calls), b, EACCES);
        /* Sends without the flag and the other calls are the kernel's. */
        cr_expect_eq(run(b, false, c_sendto), EBADF);
        cr_expect_eq(run(b, false, c_sendmsg), EBADF);
        cr_expect_eq(run(b, false, c_connect), EBADF);
        cr_expect_eq(run(b, false, c_bind), EBADF);
        cr_expect_eq(run(b, false, c_accept4), EBADF);
}

static void check_stream_rule(enum cordon_seccomp_tier tier, enum cordon_seccomp_net net)
{
        struct cordon_bpf b = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.tier = tier, .net = net}, &b);
        bool with_unix = net == CORDON_SECCOMP_NET_STREAM_UNIX;
        /* Admitted: TCP streams, with either flag, protocol 0 or IPPROTO_TCP. */
        static const unsigned long inet[] = {AF_INET, AF_INET6};
        static const unsigned long types[] = {SOCK_STREAM, SOCK_STREAM | SOCK_NONBLOCK,
                                              SOCK_STREAM | SOCK_CLOEXEC,
                                              SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC};
        for (size_t f = 0; f < ELEMENTSOF(inet); f++)
                for (size_t t = 0; t < ELEMENTSOF(types); t++) {
                        cr_expect_eq(socket_under(&b, inet[f], types[t], 0), 0);
                        cr_expect_eq(socket_under(&b, inet[f], types[t], 6 /* TCP */), 0);
                }
        cr_expect_eq(socket_under(&b, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0),
                     with_unix ? 0 : EACCES);
        cr_expect_eq(socket_under(NULL, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), 0, "control");
        /* Refused: datagrams (UDP, ICMP "ping" sockets), raw, SCTP and MPTCP streams, and every
         * other family; each a call the kernel answers otherwise (the control). */
        static const struct {
                unsigned long family, type, proto;
        } refused[] = {
            {AF_INET, SOCK_DGRAM, 0},
            {AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0},
            {AF_INET, 1UL << 32 | SOCK_DGRAM, 0},
            {AF_UNIX, SOCK_DGRAM, 0},
            {AF_UNIX, SOCK_SEQPACKET, 0},
            {AF_INET, SOCK_STREAM, 132 /* SCTP */},
            {AF_INET, SOCK_STREAM, 262 /* MPTCP */},
            {AF_INET, SOCK_STREAM, 1UL << 32 | 6},
            {AF_INET, SOCK_STREAM, 17 /* UDP: the kernel refuses it too */},
            {AF_NETLINK, SOCK_RAW, 0},
            {40 /* AF_VSOCK */, SOCK_STREAM, 0},
            {1UL << 32 | AF_INET, SOCK_STREAM, 0},
            {AF_INET, SOCK_RAW, 1},
            {17 /* AF_PACKET */, SOCK_RAW, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                int got = socket_under(&b, refused[i].family, refused[i].type, refused[i].proto);
                cr_expect_eq(got, EACCES, "socket(%#lx, %#lx, %lu): %s", refused[i].family,
                             refused[i].type, refused[i].proto, errname(got));
                int ctl = socket_under(NULL, refused[i].family, refused[i].type, refused[i].proto);
                cr_expect_neq(ctl, EACCES, "control socket(%#lx, %#lx, %lu)", refused[i].family,
                              refused[i].type, refused[i].proto);
        }
        check_stream_escapes(&b);
        if (tier == CORDON_SECCOMP_TIER_NET_ONLY) {
                cr_expect_eq(run(&b, false, c_io_uring_setup), EPERM, "io_uring goes too");
                cr_expect_eq(run(&b, false, c_personality_set), 0, "no deny list");
        } else {
                cr_expect_eq(run(&b, false, c_io_uring_setup), EPERM);
                cr_expect_eq(run(&b, false, c_personality_set), EPERM);
        }
        cordon_bpf_clear(&b);
}

Test(seccomp, stream_rule_without_unix)
{
        check_stream_rule(CORDON_SECCOMP_TIER_FULL, CORDON_SECCOMP_NET_STREAM_INET);
        check_stream_rule(CORDON_SECCOMP_TIER_NET_ONLY, CORDON_SECCOMP_NET_STREAM_INET);
}

Test(seccomp, stream_rule_with_unix)
{
        check_stream_rule(CORDON_SECCOMP_TIER_FULL, CORDON_SECCOMP_NET_STREAM_UNIX);
        check_stream_rule(CORDON_SECCOMP_TIER_NET_ONLY, CORDON_SECCOMP_NET_STREAM_UNIX);
}

Test(seccomp, no_socket_refuses_datagram_pairs)
{
        struct cordon_bpf b = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.net = CORDON_SECCOMP_NET_NO_SOCKET}, &b);
        check_datagram_pairs(&b);
        cr_expect_eq(socket_under(&b, AF_INET, SOCK_STREAM, 0), EPERM, "socket() stays EPERM");
        cordon_bpf_clear(&b);
}

static long c_personality_set(void)
{
        long r = syscall(SYS_personality, 0x0040000 /* ADDR_NO_RANDOMIZE */);
        return r < 0 ? r : 0;
}

Test(seccomp, network_rules_only)
{
        struct cordon_bpf sock = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.tier = CORDON_SECCOMP_TIER_NET_ONLY,
                                           .net = CORDON_SECCOMP_NET_NO_SOCKET},
              &sock);
        family_arg = AF_INET;
        cr_expect_eq(run(&sock, false, c_socket), EPERM, "the socket rule stays");
        cr_expect_eq(run(&sock, false, c_personality_set), 0, "the deny list is left out");
        cr_expect_eq(run(&filter, false, c_personality_set), EPERM, "control: the full filter");
        cr_expect_eq(run_raw(&sock, false, c_int80_getpid) == EPERM ||
                         run_raw(NULL, false, c_int80_getpid) == -SIGSEGV,
                     true, "foreign ABIs stay refused, or the kernel has no ia32 emulation");
        cordon_bpf_clear(&sock);
}

Test(seccomp, network_rules_only_refuse_io_uring)
{
        /* IORING_OP_SOCKET creates sockets of any family inside the kernel: the family rule of
         * the filter without the deny list takes io_uring away too. */
        struct cordon_bpf fam = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.tier = CORDON_SECCOMP_TIER_NET_ONLY,
                                           .net = CORDON_SECCOMP_NET_FAMILIES},
              &fam);
        cr_expect_eq(run(&fam, false, c_io_uring_setup), EPERM);
        cr_expect_neq(run(NULL, false, c_io_uring_setup), EPERM, "control: no filter");
        family_raw = AF_VSOCK;
        cr_expect_eq(run(&fam, false, c_socket_raw), EAFNOSUPPORT);
        cordon_bpf_clear(&fam);
        /* The same for the rule that refuses every socket call. */
        struct cordon_bpf none = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.tier = CORDON_SECCOMP_TIER_NET_ONLY,
                                           .net = CORDON_SECCOMP_NET_NONE},
              &none);
        cr_expect_eq(run(&none, false, c_io_uring_setup), EPERM);
        cordon_bpf_clear(&none);
}

Test(seccomp, prebuilt_programs_match_libseccomp)
{
        /* The programs compiled into cordon are what libseccomp makes of the rules today. */
        for (unsigned v = 0; v < CORDON_SECCOMP_PROGRAMS; v++) {
                struct cordon_seccomp_key o = cordon_seccomp_program_key(v);
                struct cordon_bpf built = {.insns = NULL}, compiled = {.insns = NULL};
                cr_assert_eq(cordon_seccomp_program(&o), (int)v);
                cr_assert_eq(cordon_seccomp_build(&o, &built), 0);
                cr_assert_eq(cordon_seccomp_compile(&o, &compiled), 0);
                cr_assert_eq(built.len, compiled.len, "variant %u", v);
                cr_assert_eq(
                    memcmp(built.insns, compiled.insns, built.len * sizeof(struct sock_filter)), 0,
                    "variant %u", v);
                cordon_bpf_clear(&built);
                cordon_bpf_clear(&compiled);
        }
}

Test(seccomp, program_keys)
{
        /* Every key has its own program, and the index is a bijection. */
        for (unsigned v = 0; v < CORDON_SECCOMP_PROGRAMS; v++) {
                struct cordon_seccomp_key k = cordon_seccomp_program_key(v);
                cr_expect_eq(cordon_seccomp_program(&k), (int)v);
        }
        cr_expect_eq(cordon_seccomp_program(NULL), 0, "NULL is the default filter");
        struct cordon_bpf b = {.insns = NULL};
        struct cordon_seccomp_key bad_net = {.net = _CORDON_SECCOMP_NET_MAX};
        struct cordon_seccomp_key bad_tier = {.tier = _CORDON_SECCOMP_TIER_MAX};
        cr_expect_eq(cordon_seccomp_build(&bad_net, &b), -EINVAL);
        cr_expect_eq(cordon_seccomp_build(&bad_tier, &b), -EINVAL);
        cr_expect_eq(cordon_seccomp_compile(&bad_net, &b), -EINVAL);
        cr_expect_null(b.insns);
        /* The socket rules form a chain: the stricter of two is the later one. */
        for (int a = 0; a < _CORDON_SECCOMP_NET_MAX; a++)
                for (int c = 0; c < _CORDON_SECCOMP_NET_MAX; c++)
                        cr_expect_eq((int)cordon_seccomp_net_stricter(a, c), a > c ? a : c);
}

/* --- the landlock backend's notify rules --------------------------------------------------- */

#include <sys/stat.h>

#include "lib/mech/seccomp-notify.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* What a notified call answers here: the supervisor below replies with this errno. */
#define NOTIFIED EXDEV

static unsigned long notify_arg;
CALL(c_ioctl_null_arg, ioctl(open("/dev/null", O_RDONLY | O_CLOEXEC), notify_arg, 0))
CALL(c_openat_arg, openat(AT_FDCWD, "/nonexistent/x", (int)notify_arg, 0600))
CALL(c_open_arg, syscall(SYS_open, "/nonexistent/x", notify_arg, 0600))
CALL(c_mkdir, mkdir("/nonexistent/x", 0700))
CALL(c_unlink, unlink("/nonexistent/x"))
CALL(c_link, link("/nonexistent/x", "/nonexistent/y"))
CALL(c_creat, creat("/nonexistent/x", 0600))

/* Runs @call under @b installed with a listener: the child forks the caller and answers every
 * notification with NOTIFIED. Returns what run_raw() returns for the caller. */
static int run_notified(const struct cordon_bpf *b, long (*call)(void))
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0, "fork: %m");
        if (pid == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        _exit(SETUP_FAILED);
                int listener = cordon_seccomp_install_listener(b);
                if (listener < 0)
                        _exit(SETUP_FAILED + 1);
                pid_t caller = fork();
                if (caller == 0) {
                        close(listener);
                        errno = 0;
                        _exit(call() < 0 ? errno : 0);
                }
                for (;;) {
                        struct pollfd p = {.fd = listener, .events = POLLIN};
                        int status;
                        if (waitpid(caller, &status, WNOHANG) == caller)
                                _exit(WIFEXITED(status) ? WEXITSTATUS(status) : SETUP_FAILED + 2);
                        if (poll(&p, 1, 10) <= 0 || !(p.revents & POLLIN))
                                continue;
                        struct seccomp_notif req;
                        if (cordon_seccomp_notif_recv(listener, &req) < 0)
                                continue;
                        (void)cordon_seccomp_notif_return(listener, req.id, -NOTIFIED);
                }
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status), "the supervisor child died");
        cr_assert_lt(WEXITSTATUS(status), SETUP_FAILED, "setup failed (%d)", WEXITSTATUS(status));
        return WEXITSTATUS(status);
}

Test(seccomp, notify_rules)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        struct cordon_bpf b = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.tier = CORDON_SECCOMP_TIER_FULL,
                                           .net = CORDON_SECCOMP_NET_NO_SOCKET,
                                           .notify = true},
              &b);
        static const struct {
                const char *name;
                long (*call)(void);
                unsigned long arg;
                int want; /* under the filter */
        } cases[] = {
            {"ioctl TIOCGPTPEER", c_ioctl_null_arg, TIOCGPTPEER, NOTIFIED},
            /* The kernel reads the request as 32 bits: garbage above still notifies. */
            {"ioctl TIOCGPTPEER | 1 << 32", c_ioctl_null_arg, 1UL << 32 | TIOCGPTPEER, NOTIFIED},
            {"ioctl TIOCSTI is still refused", c_ioctl_null_arg, TIOCSTI, EPERM},
            {"ioctl TIOCGWINSZ runs", c_ioctl_null_arg, TIOCGWINSZ, ENOTTY},
            {"openat O_CREAT", c_openat_arg, O_CREAT | O_WRONLY, NOTIFIED},
            {"openat O_CREAT|O_EXCL|O_CLOEXEC", c_openat_arg, O_CREAT | O_EXCL | O_CLOEXEC,
             NOTIFIED},
            {"openat without O_CREAT runs", c_openat_arg, O_RDONLY, ENOENT},
            {"open O_CREAT", c_open_arg, O_CREAT | O_RDWR, NOTIFIED},
            {"open O_CREAT with garbage above 32 bits", c_open_arg, 1UL << 40 | O_CREAT, NOTIFIED},
            {"open without O_CREAT runs", c_open_arg, O_RDONLY, ENOENT},
            /* Opening an existing name as shm_open()/sem_open() do: O_NOFOLLOW. */
            {"openat O_NOFOLLOW", c_openat_arg, O_RDWR | O_NOFOLLOW, NOTIFIED},
            {"openat O_NOFOLLOW|O_CLOEXEC", c_openat_arg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC,
             NOTIFIED},
            {"open O_NOFOLLOW", c_open_arg, O_RDWR | O_NOFOLLOW, NOTIFIED},
            {"open O_NOFOLLOW with garbage above 32 bits", c_open_arg, 1UL << 40 | O_NOFOLLOW,
             NOTIFIED},
            {"openat O_CREAT|O_NOFOLLOW", c_openat_arg, O_CREAT | O_NOFOLLOW | O_RDWR, NOTIFIED},
            /* A directory walk (fts: rm -r, find) is not: O_NOFOLLOW|O_DIRECTORY runs. */
            {"openat O_NOFOLLOW|O_DIRECTORY runs", c_openat_arg,
             O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC, ENOENT},
            {"open O_NOFOLLOW|O_DIRECTORY runs", c_open_arg, O_RDONLY | O_NOFOLLOW | O_DIRECTORY,
             ENOENT},
            {"openat O_NOFOLLOW|O_TMPFILE runs", c_openat_arg, O_RDWR | O_NOFOLLOW | O_TMPFILE,
             ENOENT},
            {"openat O_DIRECTORY runs", c_openat_arg, O_RDONLY | O_DIRECTORY, ENOENT},
            {"open O_NOFOLLOW in the high half only runs", c_open_arg,
             (unsigned long)O_NOFOLLOW << 32, ENOENT},
            {"creat", c_creat, 0, NOTIFIED},
            {"mkdir", c_mkdir, 0, NOTIFIED},
            {"unlink", c_unlink, 0, NOTIFIED},
            {"link", c_link, 0, NOTIFIED},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                notify_arg = cases[i].arg;
                int got = run_notified(&b, cases[i].call);
                cr_expect_eq(got, cases[i].want, "%s: %s, expected %s", cases[i].name, errname(got),
                             errname(cases[i].want));
        }
        /* Without the notify bit none of these reaches a supervisor. */
        struct cordon_bpf plain = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.tier = CORDON_SECCOMP_TIER_FULL,
                                           .net = CORDON_SECCOMP_NET_NO_SOCKET},
              &plain);
        notify_arg = O_CREAT | O_WRONLY;
        cr_expect_eq(run(&plain, false, c_openat_arg), ENOENT, "openat O_CREAT without notify");
        notify_arg = TIOCGPTPEER;
        cr_expect_eq(run(&plain, false, c_ioctl_null_arg), ENOTTY, "TIOCGPTPEER without notify");
        notify_arg = O_RDWR | O_NOFOLLOW;
        cr_expect_eq(run(&plain, false, c_openat_arg), ENOENT, "openat O_NOFOLLOW without notify");
        cordon_bpf_clear(&plain);
        cordon_bpf_clear(&b);
}

/* The landlock backend's unix-socket note: under the isolated network's rule (which refuses
 * socket(AF_UNIX)) and with the notify bit, a blocking socket(AF_UNIX, SOCK_STREAM, 0) reaches
 * the supervisor (NOTIFIED here; the real one answers the rule's errno), every other socket()
 * answers as without notifications, and socketpair() is untouched. */
static void check_unix_notified(enum cordon_seccomp_tier tier, enum cordon_seccomp_net net)
{
        struct cordon_bpf b = {.insns = NULL};
        const struct cordon_seccomp_key k = {.tier = tier, .net = net, .notify = true};
        const int refuse = cordon_seccomp_unix_notified(&k);
        cr_assert_eq(refuse, EPERM);
        build(&k, &b);
        static const struct {
                unsigned long family, type, proto;
                bool notified;
        } cases[] = {
            {AF_UNIX, SOCK_STREAM, 0, true},
            {AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, true},
            /* The kernel reads the type as an int: garbage above it is the same call. */
            {AF_UNIX, 1UL << 32 | SOCK_STREAM, 0, true},
            /* Non-blocking (nscd's probe on every user lookup), other types, a protocol, high
             * garbage in the family or the protocol: refused without a word. */
            {AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, false},
            {AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, false},
            {AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, false},
            {AF_UNIX, SOCK_SEQPACKET, 0, false},
            {AF_UNIX, SOCK_RAW, 0, false},
            {AF_UNIX, SOCK_STREAM, 6, false},
            {AF_UNIX, SOCK_STREAM, 1UL << 32, false},
            {1UL << 32 | AF_UNIX, SOCK_STREAM, 0, false},
            {~0UL << 32 | AF_UNIX, SOCK_STREAM, 0, false},
            {0 /* AF_UNSPEC */, SOCK_STREAM, 0, false},
            {AF_INET, SOCK_DGRAM, 0, false},
            {40 /* AF_VSOCK */, SOCK_STREAM, 0, false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                sock_family = cases[i].family;
                sock_type = cases[i].type;
                sock_proto = cases[i].proto;
                int got = run_notified(&b, c_socket3);
                int want = cases[i].notified ? NOTIFIED : refuse;
                cr_expect_eq(got, want, "net %d tier %d: socket(%#lx, %#lx, %#lx): %s, expected %s",
                             net, tier, cases[i].family, cases[i].type, cases[i].proto,
                             errname(got), errname(want));
        }
        /* What the rule admits stays admitted; socketpair() as without notifications. */
        sock_family = AF_INET;
        sock_type = SOCK_STREAM | SOCK_CLOEXEC;
        sock_proto = 0;
        cr_expect_eq(run_notified(&b, c_socket3),
                     net == CORDON_SECCOMP_NET_STREAM_INET ? 0 : EPERM);
        check_datagram_pairs(&b);
        /* Without a listener (never so in a launch) the notified call fails all the same. */
        sock_family = AF_UNIX;
        sock_type = SOCK_STREAM;
        cr_expect_eq(run(&b, false, c_socket3), ENOSYS);
        cordon_bpf_clear(&b);
}

Test(seccomp, notify_unix_sockets)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        check_unix_notified(CORDON_SECCOMP_TIER_FULL, CORDON_SECCOMP_NET_NO_SOCKET);
        check_unix_notified(CORDON_SECCOMP_TIER_NET_ONLY, CORDON_SECCOMP_NET_NO_SOCKET);
}

CALL(c_bind_any, syscall(SYS_bind, 0, NULL, 0))
CALL(c_listen_any, syscall(SYS_listen, 0, 0))
CALL(c_connect_any, syscall(SYS_connect, 0, NULL, 0))

/* Proxied mode before Landlock ABI 9 with the notify bit: the command's own unix sockets, which
 * the supervisor keeps from the host's (cordon_seccomp_unix_supervised()). socket(AF_UNIX) of
 * SOCK_STREAM and SOCK_SEQPACKET is admitted, datagrams are not; SOCK_SEQPACKET of AF_INET
 * (SCTP) stays refused; bind(), listen() and connect() reach the supervisor. Without the notify
 * bit the rule is as before: no AF_UNIX, listen() refused. */
static void check_unix_supervised(enum cordon_seccomp_tier tier)
{
        const struct cordon_seccomp_key k = {
            .tier = tier, .net = CORDON_SECCOMP_NET_STREAM_INET, .notify = true};
        cr_assert(cordon_seccomp_unix_supervised(&k));
        cr_assert(cordon_seccomp_connect_notified(&k));
        cr_assert_eq(cordon_seccomp_unix_notified(&k), 0);
        struct cordon_bpf b = {.insns = NULL};
        build(&k, &b);
        static const struct {
                unsigned long family, type, proto;
                int want;
        } cases[] = {
            {AF_UNIX, SOCK_STREAM, 0, 0},
            {AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, 0},
            {AF_UNIX, SOCK_SEQPACKET, 0, 0},
            {AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, 0},
            /* The kernel reads the type as an int. */
            {AF_UNIX, 1UL << 32 | SOCK_SEQPACKET, 0, 0},
            {AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, 0},
            {AF_UNIX, SOCK_DGRAM, 0, EACCES},
            {AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, EACCES},
            {AF_UNIX, 1UL << 32 | SOCK_DGRAM, 0, EACCES},
            {AF_UNIX, SOCK_RAW, 0, EACCES},
            {AF_UNIX, 4 /* SOCK_RDM */, 0, EACCES},
            {AF_UNIX, SOCK_STREAM, 1UL << 32, EACCES},
            {1UL << 32 | AF_UNIX, SOCK_STREAM, 0, EACCES},
            {AF_INET, SOCK_SEQPACKET, 0, EACCES},
            {AF_INET6, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, EACCES},
            {AF_INET, SOCK_DGRAM, 0, EACCES},
            {AF_NETLINK, SOCK_RAW, 0, EACCES},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                sock_family = cases[i].family;
                sock_type = cases[i].type;
                sock_proto = cases[i].proto;
                int got = run_notified(&b, c_socket3);
                cr_expect_eq(got, cases[i].want,
                             "tier %d: socket(%#lx, %#lx, %#lx): %s, expected %s", tier,
                             cases[i].family, cases[i].type, cases[i].proto, errname(got),
                             errname(cases[i].want));
        }
        cr_expect_eq(run_notified(&b, c_bind_any), NOTIFIED, "bind");
        cr_expect_eq(run_notified(&b, c_listen_any), NOTIFIED, "listen");
        cr_expect_eq(run_notified(&b, c_connect_any), NOTIFIED, "connect");
        check_datagram_pairs(&b);
        cordon_bpf_clear(&b);

        struct cordon_bpf plain = {.insns = NULL};
        const struct cordon_seccomp_key p = {.tier = tier, .net = CORDON_SECCOMP_NET_STREAM_INET};
        cr_assert(!cordon_seccomp_unix_supervised(&p));
        build(&p, &plain);
        cr_expect_eq(socket_under(&plain, AF_UNIX, SOCK_STREAM, 0), EACCES);
        cr_expect_eq(socket_under(&plain, AF_UNIX, SOCK_SEQPACKET, 0), EACCES);
        cr_expect_eq(run(&plain, false, c_listen), EACCES);
        cr_expect_eq(run(&plain, false, c_bind), EBADF);
        cordon_bpf_clear(&plain);
}

Test(seccomp, unix_supervised)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        check_unix_supervised(CORDON_SECCOMP_TIER_FULL);
        check_unix_supervised(CORDON_SECCOMP_TIER_NET_ONLY);
        /* Only that rule: the others never hand bind() or listen() over. */
        static const enum cordon_seccomp_net others[] = {
            CORDON_SECCOMP_NET_ANY, CORDON_SECCOMP_NET_FAMILIES, CORDON_SECCOMP_NET_STREAM_UNIX,
            CORDON_SECCOMP_NET_NO_SOCKET, CORDON_SECCOMP_NET_NONE};
        for (size_t i = 0; i < ELEMENTSOF(others); i++)
                cr_expect(!cordon_seccomp_unix_supervised(
                              &(struct cordon_seccomp_key){.net = others[i], .notify = true}),
                          "net %d", others[i]);
}

/* The landlock backend's open network before Landlock ABI 9 (OPEN_UNIX): every family as
 * without a rule, but unix sockets the supervisor keeps to the command's own; with the notify
 * bit socket(AF_UNIX) of SOCK_STREAM and SOCK_SEQPACKET is admitted, and bind(), listen() and
 * connect() reach the supervisor; without it (nothing to check a connect) AF_UNIX is refused. */
static void check_open_unix(enum cordon_seccomp_tier tier)
{
        const struct cordon_seccomp_key k = {
            .tier = tier, .net = CORDON_SECCOMP_NET_OPEN_UNIX, .notify = true};
        cr_assert(cordon_seccomp_unix_supervised(&k));
        cr_assert(cordon_seccomp_connect_notified(&k));
        cr_assert_eq(cordon_seccomp_unix_notified(&k), 0);
        struct cordon_bpf b = {.insns = NULL};
        build(&k, &b);
        static const struct {
                unsigned long family, type;
                int want;
        } cases[] = {
            {AF_UNIX, SOCK_STREAM, 0},
            {AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0},
            {AF_INET, SOCK_STREAM, 0},
            {AF_INET, SOCK_DGRAM, 0},
            {AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0},
            {AF_NETLINK, SOCK_RAW, 0},
            {AF_UNIX, SOCK_DGRAM, EACCES},
            {AF_UNIX, 1UL << 32 | SOCK_DGRAM, EACCES},
            {AF_UNIX, SOCK_RAW, EACCES},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int got = socket_under(&b, cases[i].family, cases[i].type, 0);
                cr_expect_eq(got, cases[i].want, "tier %d: socket(%#lx, %#lx): %s, expected %s",
                             tier, cases[i].family, cases[i].type, errname(got),
                             errname(cases[i].want));
        }
        cr_expect_eq(run_notified(&b, c_bind_any), NOTIFIED, "bind");
        cr_expect_eq(run_notified(&b, c_listen_any), NOTIFIED, "listen");
        cr_expect_eq(run_notified(&b, c_connect_any), NOTIFIED, "connect");
        check_datagram_pairs(&b);
        cordon_bpf_clear(&b);

        struct cordon_bpf plain = {.insns = NULL};
        const struct cordon_seccomp_key p = {.tier = tier, .net = CORDON_SECCOMP_NET_OPEN_UNIX};
        cr_assert(!cordon_seccomp_unix_supervised(&p));
        cr_assert(!cordon_seccomp_connect_notified(&p));
        build(&p, &plain);
        cr_expect_eq(socket_under(&plain, AF_UNIX, SOCK_STREAM, 0), EACCES);
        cr_expect_eq(socket_under(&plain, AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0), EACCES);
        cr_expect_eq(socket_under(&plain, 1UL << 32 | AF_UNIX, SOCK_STREAM, 0), EACCES);
        cr_expect_eq(socket_under(&plain, AF_INET, SOCK_STREAM, 0), 0);
        cr_expect_eq(socket_under(&plain, AF_INET, SOCK_DGRAM, 0), 0);
        cr_expect_eq(socket_under(NULL, AF_UNIX, SOCK_STREAM, 0), 0, "control");
        /* TCP listen() and connect() are the kernel's (EBADF for -1), not refused. */
        cr_expect_eq(run(&plain, false, c_listen), EBADF);
        cr_expect_eq(run(&plain, false, c_connect), EBADF);
        check_datagram_pairs(&plain);
        cordon_bpf_clear(&plain);
}

Test(seccomp, open_unix)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        check_open_unix(CORDON_SECCOMP_TIER_FULL);
        check_open_unix(CORDON_SECCOMP_TIER_NET_ONLY);
}

Test(seccomp, notify_unix_sockets_only_where_refused)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        /* The rules that admit AF_UNIX (the ns backend's FAMILIES, STREAM_UNIX, STREAM_INET with
         * the supervisor, none) and NONE
         * (never with a listener) notify no socket(); without the notify bit nothing does. */
        static const enum cordon_seccomp_net admitted[] = {
            CORDON_SECCOMP_NET_ANY, CORDON_SECCOMP_NET_FAMILIES, CORDON_SECCOMP_NET_STREAM_UNIX,
            CORDON_SECCOMP_NET_STREAM_INET};
        sock_family = AF_UNIX;
        sock_type = SOCK_STREAM;
        sock_proto = 0;
        for (size_t i = 0; i < ELEMENTSOF(admitted); i++) {
                struct cordon_seccomp_key k = {.net = admitted[i], .notify = true};
                cr_expect_eq(cordon_seccomp_unix_notified(&k), 0);
                struct cordon_bpf b = {.insns = NULL};
                build(&k, &b);
                cr_expect_eq(run_notified(&b, c_socket3), 0, "net %d", admitted[i]);
                cordon_bpf_clear(&b);
        }
        cr_expect_eq(cordon_seccomp_unix_notified(&(struct cordon_seccomp_key){
                         .net = CORDON_SECCOMP_NET_NONE, .notify = true}),
                     0);
        static const enum cordon_seccomp_net refused[] = {CORDON_SECCOMP_NET_NO_SOCKET,
                                                          CORDON_SECCOMP_NET_STREAM_INET};
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                struct cordon_seccomp_key k = {.net = refused[i]};
                cr_expect_eq(cordon_seccomp_unix_notified(&k), 0);
                struct cordon_bpf b = {.insns = NULL};
                build(&k, &b);
                int want = refused[i] == CORDON_SECCOMP_NET_NO_SOCKET ? EPERM : EACCES;
                cr_expect_eq(run(&b, false, c_socket3), want, "net %d without notify", refused[i]);
                cordon_bpf_clear(&b);
        }
        cr_expect_eq(cordon_seccomp_unix_notified(NULL), 0);
}

Test(seccomp, notify_program_without_listener_is_enosys)
{
        /* Installed without a listener (a bug in the launch), a notified call fails with
         * ENOSYS instead of hanging: never a wait on nobody. */
        struct cordon_bpf b = {.insns = NULL};
        build(&(struct cordon_seccomp_key){.notify = true}, &b);
        notify_arg = O_CREAT | O_WRONLY;
        cr_expect_eq(run(&b, false, c_openat_arg), ENOSYS);
        cordon_bpf_clear(&b);
}
