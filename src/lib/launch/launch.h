/* Deciding how a policy is launched: which backend, which hardening layers (by profile and
 * fallback), and preparing them in the supervisor (the seccomp program, the Landlock plan, the
 * landlock backend's private TMPDIR). The sandbox's phases (spawn.c) then apply the lot. */
#pragma once

#include <stdbool.h>

#include "cordon/cordon.h"
#include "lib/mech/landlock.h"
#include "lib/mech/nft.h"
#include "lib/mech/pasta.h"
#include "lib/mech/res-limits.h"
#include "lib/mech/seccomp-filter.h"
#include "lib/launch/agent-home.h"
#include "lib/launch/net-decide.h"
#include "lib/launch/slurm-doorbell.h"
#include "lib/supervisor/supervise.h"

struct cordon_policy;

struct cordon_launch {
        const struct cordon_policy *p;
        enum cordon_backend backend; /* CORDON_BACKEND_NS or CORDON_BACKEND_LANDLOCK */
        bool auto_backend;           /* chosen by `auto`: may still fall back to landlock */
        /* How `auto` decided, for the plan: "" (not yet known), or what the dry run's probe
         * found, or why it fell back to landlock. */
        char backend_note[256];
        /* The network mode delivered: the policy's, or its fallback (net-decide.h). */
        enum cordon_net_mode net_mode;
        char net_note[1024]; /* why it is not the policy's mode; "" when it is */
        /* Why pasta failed to start on an earlier attempt ("": it did not). */
        char filtered_failed[sizeof(((struct cordon_diag *)0)->message) + 32];

        bool seccomp;
        struct cordon_seccomp_key seccomp_key; /* the program in @bpf */
        /* The landlock backend stands in for the network namespace with the socket rule. */
        bool seccomp_isolates_net;
        struct cordon_bpf bpf;

        bool landlock;
        int landlock_abi; /* > 0 when the kernel has Landlock, else -errno */
        struct cordon_landlock_plan ll;

        /* --memory, --pids, --cpus, --cgroup: NULL when none is asked for. */
        struct cordon_limits_state *limits;
        int cgroup_fds[4]; /* cgroup.procs of each cgroup the child joins; -1 when unused */
        /* A loose pids bound (limits.pids_loose) as the pid namespace's pid_max, which the
         * ns backend's child writes; 0: none (the pids limit, if any, is in @limits). */
        uint64_t pid_max;
        /* What delivers SANDBOX_NPROC_LIMIT (NONE: not set): RLIMIT_NPROC in the child, or for
         * the real uid 0, which the kernel exempts from it, the pids cgroup of @limits (then
         * CGROUP2 or CGROUP1; that cgroup's pids.max is the smaller of it and PIDS_LIMIT, and
         * @nproc_pids_only says PIDS_LIMIT was not set: the report keeps the pids limit out). */
        enum cordon_limit_mechanism nproc_mech;
        bool nproc_pids_only;

        /* The filtered network: the ruleset the child loads (built in prepare), pasta once the
         * parent steps started it (stopped by the mode's teardown, and at clear). */
        struct cordon_nft_plan nft;
        struct cordon_pasta pasta;
        bool pasta_end_said; /* its end during the run was said (net-filtered.h) */
        /* Why the command lost the filtered network after it may have started ("filtered
         * failed: ..."; "" when it did not): pasta ended, and the command has only its
         * loopback. The report then says isolated (cordon_net_filtered_lost()). During the
         * launch spawn.c keeps pasta's bare message here until the child's report is in. */
        char net_lost[sizeof(((struct cordon_diag *)0)->message) + 64];
        /* The proxied network: the port the command is told of (0 until decided, and in a dry
         * run of the landlock backend), and the landlock backend's listening socket on the
         * host's loopback until the sandbox takes it (-EBADF otherwise; net-proxied.h). */
        uint16_t proxy_port;
        int proxy_fd;

        char *tmpdir; /* landlock backend: the private TMPDIR on the host, removed at clear */
        /* Landlock backend with NETWORK_MAIL_BLOCK: the directory of mail stubs first on PATH
         * (mail-shadow.h), removed at clear; NULL when none. */
        char *mail_dir;
        /* SLURM_SCOPE: the chaperon's doorbell and what it is told (slurm-doorbell.h). */
        struct cordon_launch_slurm slurm;
        /* The agents' private homes (agent-home.h), made after the host actions. */
        struct cordon_agent_homes agent_homes;
        /* The host actions' line of what they made quietly ("created ..."); NULL: nothing. */
        char *created_note;
        /* Landlock backend with notifications (seccomp_key.notify): the private directory that
         * stands in for /dev/shm (notify-fs.h), removed at clear; NULL/-1 when none. */
        char *shm_dir;
        int shm_dirfd;
        /* The BLOCKED_FILES placeholders (and parents) this launch created, for
         * CLEANUP_MATERIALIZED_BLOCKED_FILES; none when it is off. */
        struct cordon_host_created *created;
        size_t n_created;
        char **envp; /* landlock backend: the policy's environment with TMPDIR set */

        /* Set before cordon_launch_prepare(): decide only, for a plan (cordon run --dry-run).
         * Nothing is created, changed or removed on the host: no host action of the policy,
         * no TMPDIR, no cgroup (the limits get the mechanism planning picks). The launch must
         * not be run. */
        bool dry_run;
        /* Set before cordon_launch_prepare(): the caller confines itself (cordon_confine_self(),
         * confine-self.c), and no process of cordon's outlives the call: the filter has no
         * notification listener, and no private TMPDIR is made (confine-self.c refuses the
         * policies that need one, and whatever else needs a helper, before). */
        bool self;
        /* The note on the network rules the mode cannot apply in full was said
         * (net-rules-note.h): once per launch, also when a fallback prepares again. */
        bool rules_note_said;

        /* Called with one line for each warning (a layer skipped, a backend fallback). */
        void (*warn)(void *userdata, const char *message);
        void *userdata;
        /* What the kernel offers; NULL: ask it (cordon_landlock_abi(),
         * cordon_seccomp_available()). Tests put in a kernel without a mechanism. */
        int (*probe_landlock)(void);
        bool (*probe_seccomp)(void);
        bool (*probe_notify)(void); /* NULL: cordon_seccomp_notify_available() */
        /* Whether filtered mode can be delivered (pasta); NULL: the real probe. */
        cordon_net_filtered_probe probe_filtered;
};

/* Decides and prepares everything that can be done before the clone. @l->warn, @l->userdata
 * and the probes may be set beforehand; everything else is initialised here. Returns 0, or
 * -errno with the reason in @diag (a profile that cannot run, a required layer missing;
 * -EOPNOTSUPP for a limit the chosen backend cannot enforce, such as a tmpfs size under the
 * landlock backend).
 * On success and failure alike, release @l with cordon_launch_clear(). */
int cordon_launch_prepare(const struct cordon_policy *p, struct cordon_launch *l,
                          struct cordon_diag *diag);
void cordon_launch_clear(struct cordon_launch *l);
/* Whether the landlock backend's private TMPDIR is there (a dry run: would be), where its
 * configuration copies go (landlock-env.h). */
bool cordon_launch_has_tmpdir(const struct cordon_launch *l);
/* After the sandbox has ended: CLEANUP_MATERIALIZED_BLOCKED_FILES removes the placeholders this
 * launch created, each "kept" one reported through @l->warn. Once; harmless when off. */
void cordon_launch_cleanup_materialized(struct cordon_launch *l);

/* Switches a prepared `auto` launch to the landlock backend (user namespaces turned out to be
 * unavailable). Returns 0 or -errno with the reason in @diag (-EOPNOTSUPP as for
 * cordon_launch_prepare(), e.g. a tmpfs size the landlock backend cannot enforce). */
int cordon_launch_fall_back(struct cordon_launch *l, const char *why, struct cordon_diag *diag);
/* pasta failed to start (@why): decides the network mode again without filtered, as
 * NETWORK_FILTER_FALLBACK says, and prepares the launch for it. Returns 0, or -errno with the
 * reason in @diag (a strict fallback, no other mode this backend can deliver). */
int cordon_launch_net_fall_back(struct cordon_launch *l, const char *why, struct cordon_diag *diag);
