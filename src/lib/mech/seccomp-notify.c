/* seccomp user notification, the kernel side: the probe, installing a filter with a listener,
 * and the ioctls and memory/descriptor access of the supervisor's answers. Mechanism only: what
 * a notification means and how it is answered is launch/notify.c's. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/mech/seccomp-notify.h"
#include "shared/kernel-util.h"
#include "shared/macro.h"

/* Newer than some build headers (Linux 5.9 and 5.14). */
#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The kernel copies its own struct seccomp_notif out (and its seccomp_notif_resp in), which a
 * newer kernel may have grown: both go through a zeroed buffer this large, and the probe
 * refuses a kernel whose structures would not fit (SECCOMP_GET_NOTIF_SIZES). */
#define NOTIF_BUF 1024

static bool probe_notify(void)
{
        /* A kernel with user notifications (5.0) answers the size query; the action query
         * confirms SECCOMP_RET_USER_NOTIF is known to the filter code. */
        struct seccomp_notif_sizes sizes;
        if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
                return false;
        /* The kernel's structures may only have grown: ours must fit in what it writes. */
        if (sizes.seccomp_notif < sizeof(struct seccomp_notif) ||
            sizes.seccomp_notif_resp < sizeof(struct seccomp_notif_resp) ||
            sizes.seccomp_notif > NOTIF_BUF || sizes.seccomp_notif_resp > NOTIF_BUF)
                return false;
        uint32_t action = SECCOMP_RET_USER_NOTIF;
        if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0)
                return false;
        /* pidfd_getfd() (5.6): a bad pidfd is EBADF where the call exists. */
        if (syscall(SYS_pidfd_getfd, -1, 0, 0) == 0 || errno == ENOSYS)
                return false;
        /* SECCOMP_ADDFD_FLAG_SEND (5.14) can only be asked of a listener, which would mean a
         * filter installed in some process: a child forked for it costs more than the start it
         * serves. The release number stands in; a kernel that backported the flag to an older
         * number loses the notifications (pty and shm then fail as without them), never the
         * other way round. */
        return kernel_release_at_least(514);
}

bool cordon_seccomp_notify_available(void)
{
        static atomic_int known; /* 0: not asked yet; 1: available; -1: not */
        int k = atomic_load_explicit(&known, memory_order_relaxed);
        if (k == 0) {
                k = probe_notify() ? 1 : -1;
                atomic_store_explicit(&known, k, memory_order_relaxed);
        }
        return k > 0;
}

int cordon_seccomp_install_listener(const struct cordon_bpf *b)
{
        if (!b || !b->insns || b->len == 0)
                return -EINVAL;
        struct sock_fprog prog = {.len = b->len, .filter = b->insns};
        /* The listener comes close-on-exec from the kernel: the command never holds it. */
        long fd =
            syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
        return fd < 0 ? negative_errno() : (int)fd;
}

static int notif_ioctl(int listener, unsigned long request, void *arg)
{
        for (;;) {
                int r = ioctl(listener, request, arg);
                if (r >= 0)
                        return r;
                if (errno != EINTR)
                        return negative_errno();
        }
}

int cordon_seccomp_notify_sync_wakeup(int listener)
{
        return ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP,
                     0) < 0
                   ? -errno
                   : 0;
}

int cordon_seccomp_notif_recv(int listener, struct seccomp_notif *ret)
{
        /* The kernel refuses a buffer that is not zeroed (EINVAL). */
        union {
                struct seccomp_notif n;
                char bytes[NOTIF_BUF];
        } buf;
        memset(&buf, 0, sizeof(buf));
        int r = notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &buf);
        if (r >= 0)
                *ret = buf.n;
        return r;
}

int cordon_seccomp_notif_id_valid(int listener, uint64_t id)
{
        return notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id);
}

static int send_resp(int listener, uint64_t id, int64_t val, int32_t err, uint32_t flags)
{
        union {
                struct seccomp_notif_resp r;
                char bytes[NOTIF_BUF];
        } buf;
        memset(&buf, 0, sizeof(buf));
        buf.r = (struct seccomp_notif_resp){.id = id, .val = val, .error = err, .flags = flags};
        return notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &buf);
}

int cordon_seccomp_notif_continue(int listener, uint64_t id)
{
        return send_resp(listener, id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

int cordon_seccomp_notif_return(int listener, uint64_t id, int64_t val)
{
        /* A negative value is an errno, the way the syscall itself returns one. */
        if (val < 0)
                return send_resp(listener, id, 0, (int32_t)val, 0);
        return send_resp(listener, id, val, 0, 0);
}

int cordon_seccomp_notif_send_fd(int listener, uint64_t id, int fd, bool cloexec)
{
        struct seccomp_notif_addfd a = {
            .id = id,
            .flags = SECCOMP_ADDFD_FLAG_SEND,
            .srcfd = (uint32_t)fd,
            .newfd = 0,
            .newfd_flags = cloexec ? O_CLOEXEC : 0,
        };
        /* With FLAG_SEND the call is answered: the caller's syscall returns the new number. */
        return notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
}

int cordon_seccomp_notif_read_string(int listener, uint64_t id, pid_t pid, uint64_t addr, char *buf,
                                     size_t size)
{
        if (size == 0)
                return -EINVAL;
        if (addr == 0)
                return -EFAULT;
        size_t got = 0;
        const long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
        /* Page by page: a string that ends just before an unmapped page must still be read,
         * and process_vm_readv() stops at the first fault. */
        while (got < size) {
                uint64_t at = addr + got;
                size_t want = (size_t)page - (size_t)(at % (uint64_t)page);
                if (want > size - got)
                        want = size - got;
                struct iovec local = {.iov_base = buf + got, .iov_len = want};
                struct iovec remote = {.iov_base = (void *)(uintptr_t)at, .iov_len = want};
                ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        int r = n < 0 ? negative_errno() : -EFAULT;
                        return r == -ESRCH ? -ENOENT : r;
                }
                const char *nul = memchr(buf + got, 0, (size_t)n);
                got += (size_t)n;
                if (nul) {
                        /* The pid may have been reused by now: what was read counts only
                         * while the notification is still pending. */
                        int r = cordon_seccomp_notif_id_valid(listener, id);
                        return r < 0 ? r : (int)(nul - buf);
                }
        }
        return -ENAMETOOLONG;
}

int cordon_seccomp_notif_read(int listener, uint64_t id, pid_t pid, uint64_t addr, void *buf,
                              size_t size)
{
        if (addr == 0)
                return -EFAULT;
        size_t got = 0;
        while (got < size) {
                struct iovec local = {.iov_base = (char *)buf + got, .iov_len = size - got};
                struct iovec remote = {.iov_base = (void *)(uintptr_t)(addr + got),
                                       .iov_len = size - got};
                ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        int r = n < 0 ? negative_errno() : -EFAULT;
                        return r == -ESRCH ? -ENOENT : r;
                }
                got += (size_t)n;
        }
        /* What was read is the caller's only while its notification is still pending. */
        return cordon_seccomp_notif_id_valid(listener, id);
}

int cordon_seccomp_notif_pidfd(int listener, uint64_t id, pid_t pid)
{
        /* notif.pid is a thread's id; pidfd_open() takes one with PIDFD_THREAD (6.9), before
         * that only a thread group leader's. */
        long fd = syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
        if (fd < 0 && errno == EINVAL)
                fd = syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0)
                return errno == ESRCH ? -ENOENT : negative_errno();
        /* The pidfd names the caller only if the notification was still pending once it was
         * open: a pid reused in between would have ended the caller's syscall first. */
        int r = cordon_seccomp_notif_id_valid(listener, id);
        if (r < 0) {
                (void)close((int)fd);
                return r;
        }
        return (int)fd;
}

int cordon_seccomp_pidfd_getfd(int pidfd, int fd)
{
        long r = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
        return r < 0 ? negative_errno() : (int)r;
}
