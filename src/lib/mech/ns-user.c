/* User namespace setup. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/mech/ns-user.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

int cordon_ns_user_write_maps(uid_t uid, gid_t gid)
{
        char buf[64];
        int r;

        /* An unprivileged map of the gid requires setgroups to be denied first (since 3.19). */
        r = write_string_file_at(AT_FDCWD, "/proc/self/setgroups", "deny");
        if (r < 0 && r != -ENOENT)
                return r;
        snprintf(buf, sizeof(buf), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
        r = write_string_file_at(AT_FDCWD, "/proc/self/uid_map", buf);
        if (r < 0)
                return r;
        snprintf(buf, sizeof(buf), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
        return write_string_file_at(AT_FDCWD, "/proc/self/gid_map", buf);
}

int cordon_ns_user_probe(void)
{
        /* Read before the clone: inside the new namespace they are the overflow ids (65534). */
        uid_t uid = getuid();
        gid_t gid = getgid();
        pid_t pid =
            (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, 0);
        if (pid < 0)
                return -errno;
        if (pid == 0)
                _exit(cordon_ns_user_write_maps(uid, gid) < 0 ? 1 : 0);
        int status;
        if (waitpid(pid, &status, 0) < 0)
                return -errno;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EPERM;
}
