/* `cordon doctor`: AppArmor's restriction of unprivileged user namespaces (Ubuntu 23.10+) and
 * whether it applies to cordon, from the sysctl and the caller's own AppArmor label. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cordon/doctor.h"
#include "lib/doctor/doctor.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"

#define APPARMOR_SYSCTL  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
#define APPARMOR_ENABLED "/sys/module/apparmor/parameters/enabled"
/* The label files: apparmor/current since Linux 5.8 (LSM stacking), current before that,
 * where it may also belong to another LSM; only read when AppArmor is active. */
#define APPARMOR_LABEL     "/proc/self/attr/apparmor/current"
#define APPARMOR_LABEL_OLD "/proc/self/attr/current"

/* @path under @root (NULL: the host), or NULL on ENOMEM. */
static char *at_root(const char *root, const char *path)
{
        return root ? path_join(root, path + 1) : strdup(path);
}

/* The first line of a small file, or -errno. */
static int read_line(const char *root, const char *path, char *buf, size_t n)
{
        _cleanup_free_ char *p = at_root(root, path), *s = NULL;
        if (!p)
                return -ENOMEM;
        int r = read_full_file(p, 4096, &s, NULL);
        if (r < 0)
                return r;
        s[strcspn(s, "\n")] = 0;
        snprintf(buf, n, "%s", s);
        return 0;
}

_public_ void cordon_doctor_check_apparmor(const char *root, struct cordon_doctor_apparmor *ret)
{
        struct cordon_doctor_apparmor a = {
            .enabled = -1,
            .restrict_unprivileged_userns = -1,
            .profile = CORDON_APPARMOR_PROFILE_COPY,
            .profile_dir = CORDON_APPARMOR_DIR,
        };
        char line[sizeof(a.label)];

        if (read_line(root, APPARMOR_ENABLED, line, sizeof(line)) >= 0)
                a.enabled = streq(line, "Y") ? 1 : 0;
        _cleanup_free_ char *sysctl = at_root(root, APPARMOR_SYSCTL);
        if (sysctl)
                a.restrict_unprivileged_userns = cordon_read_sysctl(sysctl);
        /* The sysctl is registered only once AppArmor has initialised: its presence tells
         * that AppArmor is active where the module parameter cannot be read. */
        if (a.enabled < 0 && a.restrict_unprivileged_userns >= 0)
                a.enabled = 1;
        if (a.enabled == 1 && (read_line(root, APPARMOR_LABEL, line, sizeof(line)) >= 0 ||
                               read_line(root, APPARMOR_LABEL_OLD, line, sizeof(line)) >= 0))
                snprintf(a.label, sizeof(a.label), "%s", line);

        /* The kernel's own rule: a task creating a user namespace while the sysctl is 1, with
         * no profile attached ("unconfined") and without CAP_SYS_ADMIN, gets a namespace in
         * which it holds no capabilities. A label we could not read counts as unconfined. A
         * profile attached to the caller decides by its own rules (ours grants `userns`). */
        a.restricts_caller = a.enabled != 0 && a.restrict_unprivileged_userns == 1 &&
                             (!*a.label || streq(a.label, "unconfined")) && geteuid() != 0;
        _cleanup_free_ char *copy = at_root(root, a.profile);
        a.profile_installed = copy && access(copy, R_OK) == 0;
        *ret = a;
}
