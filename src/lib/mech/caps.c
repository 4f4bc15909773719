/* Capability dropping. Raw capset() keeps us free of libcap for three syscalls. */
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/mech/caps.h"
#include "shared/macro.h"

static unsigned long last_cap(void)
{
        static unsigned long cached;
        if (cached)
                return cached;
        /* /proc may not be mounted any more; probe the bounding set instead. */
        unsigned long c = CAP_LAST_CAP;
        while (prctl(PR_CAPBSET_READ, c + 1, 0, 0, 0) >= 0)
                c++;
        while (c > 0 && prctl(PR_CAPBSET_READ, c, 0, 0, 0) < 0)
                c--;
        cached = c;
        return c;
}

int cordon_caps_drop_all(void)
{
        /* Lock root out of privilege first: without SECBIT_NOROOT a uid-0 process would get a
         * full permitted set back from the inheritable/bounding sets at the next execve. */
        if (prctl(PR_SET_SECUREBITS,
                  SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                      SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                      SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
                  0, 0, 0) < 0)
                return -errno;
        unsigned long last = last_cap();
        for (unsigned long c = 0; c <= last; c++)
                if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
                        return -errno;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
        struct __user_cap_data_struct d[2] = {{0}};
        if (syscall(SYS_capset, &h, d) < 0)
                return -errno;
        return 0;
}

bool cordon_caps_any(void)
{
        struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
        struct __user_cap_data_struct d[2] = {{0}};
        if (syscall(SYS_capget, &h, d) < 0)
                return true; /* unknown: let the drop itself report */
        return (d[0].permitted | d[1].permitted | d[0].effective | d[1].effective) != 0;
}

int cordon_caps_set_no_new_privs(void)
{
        return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}
