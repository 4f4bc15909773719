/* The SPANK plugin's namespace work (spank-ns.h). The job's own namespaces are only looked at,
 * never left: a network namespace made here is a child of the task's, so Slurm's job container
 * stays around it. */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/macro.h"
#include "slurm/spank/spank-ns.h"

/* Slurm joins the job's namespaces in the task's own process, after slurmstepd's fork and before
 * slurm_spank_task_init_privileged (slurmstepd's _pre_task_child_privileged(): container_g_join(),
 * then the SPANK callback), so slurmstepd, the parent, is still in the node's. Not PID 1's: where
 * PID 1 is protected even root may not read its links (EACCES), and in a container PID 1 is not
 * the host's. */
int cordon_spank_ns_is_own(const char *ns)
{
        char self[64], parent[64];
        struct stat a, b;
        snprintf(self, sizeof(self), "/proc/self/ns/%s", ns);
        snprintf(parent, sizeof(parent), "/proc/%d/ns/%s", (int)getppid(), ns);
        if (stat(self, &a) < 0 || stat(parent, &b) < 0)
                return -errno;
        return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

int cordon_spank_netns_isolate(char *err, size_t size)
{
        if (unshare(CLONE_NEWNET) < 0) {
                int r = -errno;
                snprintf(err, size, "a new network namespace (unshare): %s", strerror(-r));
                return r;
        }
        /* The loopback of a new network namespace is down: up, so that the task's own
         * 127.0.0.1 works (MPI ranks of one node, a test server) while nothing else does. */
        _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct ifreq ifr = {0};
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
        int r = fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 ? -errno : 0;
        if (r == 0) {
                ifr.ifr_flags |= IFF_UP;
                r = ioctl(fd, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
        }
        if (r < 0) {
                snprintf(err, size, "the new network namespace's loopback up: %s", strerror(-r));
                return r;
        }
        return 0;
}
