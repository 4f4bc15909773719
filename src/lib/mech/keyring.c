/* Session keyring isolation. */
#include <errno.h>
#include <linux/keyctl.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/mech/keyring.h"

int cordon_keyring_detach(void)
{
        /* The session keyring is part of the credentials clone() copies; possession, not uid,
         * grants access to the keys in it, so the user namespace alone does not hide them. */
        if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
                return errno == ENOSYS ? 0 : -errno;
        return 0;
}
