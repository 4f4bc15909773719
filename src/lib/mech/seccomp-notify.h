/* seccomp user notification, the kernel side: installing a filter with a listener, receiving a
 * notification, answering it with a value, an errno, "continue", or a descriptor added to the
 * caller's table (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND), and reaching the
 * caller's memory and descriptors (process_vm_readv, pidfd_getfd). No policy here: what each
 * call means is the supervisor's (launch/notify.c). */
#pragma once

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
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
