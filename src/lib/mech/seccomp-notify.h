/* seccomp user notification, the kernel side: installing a filter with a listener, receiving a
 * notification, answering it with a value, an errno, "continue", or a descriptor added to the
 * caller's table (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND), and reaching the
 * caller's memory and descriptors (process_vm_readv, pidfd_getfd). No policy here: what each
 * call means is the supervisor's (launch/notify.c). */
#pragma once

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/mech/seccomp-filter.h"

/* Whether the kernel has everything the landlock backend's notifications need: a filter with a
 * listener, SECCOMP_ADDFD_FLAG_SEND (Linux 5.14) and pidfd_getfd() (5.6). Asked once per
 * process, without installing anything. */
bool cordon_seccomp_notify_available(void);

/* Child side. Installs @b (no-new-privs already set) with SECCOMP_FILTER_FLAG_NEW_LISTENER and
 * returns the listener (close-on-exec), or -errno (-EBUSY: a filter above already has one).
 * Async-signal-safe. */
int cordon_seccomp_install_listener(const struct cordon_bpf *b);

/* The supervisor's side. Each returns >= 0 or -errno; -ENOENT means the notification is gone
 * (its caller died or was interrupted): drop it. EINTR is retried. */
/* Asks the kernel to wake the command and the supervisor on the waking CPU
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6): each notified call is a round trip, and a
 * wake-up on another CPU costs it tens of microseconds. -EINVAL before 6.6; only speed. */
int cordon_seccomp_notify_sync_wakeup(int listener);
/* Receives one notification into @ret (blocking: poll the listener first). */
int cordon_seccomp_notif_recv(int listener, struct seccomp_notif *ret);
/* 0 while the notification @id is still pending, -ENOENT once it is not. */
int cordon_seccomp_notif_id_valid(int listener, uint64_t id);
/* Answers @id: the syscall runs as the caller made it (Landlock and the rest still check). */
int cordon_seccomp_notif_continue(int listener, uint64_t id);
/* Answers @id with @val, or with the errno -@val when negative. */
int cordon_seccomp_notif_return(int listener, uint64_t id, int64_t val);
/* Answers @id with a copy of @fd installed in the caller (close-on-exec when @cloexec): its
 * syscall returns the new number (SECCOMP_ADDFD_FLAG_SEND). Returns that number. */
int cordon_seccomp_notif_send_fd(int listener, uint64_t id, int fd, bool cloexec);
/* Reads the NUL-terminated string at @addr in @pid's memory into @buf (@size bytes with the
 * NUL), then checks that @id is still pending, so that what was read is the caller's. Returns
 * its length, -ENAMETOOLONG without a NUL in @size bytes, -EFAULT, -ENOENT, -EPERM. */
int cordon_seccomp_notif_read_string(int listener, uint64_t id, pid_t pid, uint64_t addr, char *buf,
                                     size_t size);
/* Reads exactly @size bytes at @addr in @pid's memory into @buf, then checks that @id is still
 * pending, as cordon_seccomp_notif_read_string() does. Returns 0, -EFAULT, -ENOENT, -EPERM. */
int cordon_seccomp_notif_read(int listener, uint64_t id, pid_t pid, uint64_t addr, void *buf,
                              size_t size);
/* A pidfd of the caller of @id (thread @pid), checked to be it (@id still pending after the
 * open). Returns the pidfd (close-on-exec) or -errno. */
int cordon_seccomp_notif_pidfd(int listener, uint64_t id, pid_t pid);
/* A copy of the descriptor @fd of the process of @pidfd (pidfd_getfd()), close-on-exec. */
int cordon_seccomp_pidfd_getfd(int pidfd, int fd);
