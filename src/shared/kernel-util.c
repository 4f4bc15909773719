#include <stdio.h>
#include <sys/utsname.h>

#include "shared/kernel-util.h"

unsigned kernel_release_number(const char *release)
{
        unsigned major = 0, minor = 0;
        if (!release || sscanf(release, "%u.%u", &major, &minor) != 2 || minor >= 100)
                return 0;
        return major * 100 + minor;
}

bool kernel_release_at_least(unsigned number)
{
        struct utsname u;
        return uname(&u) == 0 && kernel_release_number(u.release) >= number;
}
