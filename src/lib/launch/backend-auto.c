/* The `auto` backend: `ns` where a user namespace can be had, else `landlock` where the kernel
 * has Landlock. One function decides it for the launcher and for `cordon doctor`. */
#include <errno.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "lib/launch/backend-auto.h"
#include "lib/doctor/doctor.h"

void cordon_backend_facts_read(int landlock_abi, struct cordon_backend_facts *ret)
{
        uid_t euid = geteuid();
        /* Root is exempt from the restriction: spare it the read on the launch path. */
        *ret = (struct cordon_backend_facts){
            .userns = -1,
            .landlock_abi = landlock_abi,
            .euid = euid,
            .apparmor_restrict_unprivileged_userns =
                euid == 0
                    ? -1
                    : cordon_read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
        };
}

bool cordon_backend_apparmor_restricts_userns(const struct cordon_backend_facts *f)
{
        return f->euid != 0 && f->apparmor_restrict_unprivileged_userns == 1;
}

int cordon_backend_auto_decide(const struct cordon_backend_facts *f, bool *ret_fall_back)
{
        bool fall_back = false;
        int b;

        /* The userns restriction of Ubuntu's AppArmor lets the clone succeed and then refuses the
         * mounts; the sysctl spares the doomed attempt. */
        if (cordon_backend_apparmor_restricts_userns(f) && f->landlock_abi > 0)
                b = CORDON_BACKEND_LANDLOCK;
        else if (f->userns == 0)
                b = f->landlock_abi > 0 ? CORDON_BACKEND_LANDLOCK : -EOPNOTSUPP;
        else {
                b = CORDON_BACKEND_NS;
                fall_back = f->userns < 0;
        }
        if (ret_fall_back)
                *ret_fall_back = fall_back;
        return b;
}
