/* The SPANK plugin's namespace work, done in slurm_spank_task_init_privileged (as root, in the
 * task's own process, single-threaded after slurmstepd's fork): telling whether Slurm put the
 * job into namespaces of its own (job_container/tmpfs, the namespace/ * plugins), and a new
 * network namespace with its loopback up for --cordon-network=isolated, made inside whatever
 * namespaces the task is in already. */
#pragma once

/* Whether the calling process's namespace of kind @ns ("mnt", "net") is another than its
 * parent's (in a task, slurmstepd's, which stays in the node's): 1 (Slurm's job namespace), 0
 * (slurmstepd's), -errno (the links could not be read). Never changes a namespace. */
int cordon_spank_ns_is_own(const char *ns);

/* unshare(CLONE_NEWNET) and the new namespace's loopback up. 0 or -errno, with the step that
 * failed in @err. */
int cordon_spank_netns_isolate(char *err, size_t size);
