/* The landlock backend's part of the launch (its table's launch entries, backend.h): what it
 * refuses for want of namespaces, its private TMPDIR, the seccomp stand-in for a network
 * namespace, the notifications, and the Landlock ruleset made in the supervisor. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/launch/landlock-env.h"
#include "lib/launch/launch-internal.h"
#include "lib/launch/launch-landlock.h"
#include "lib/launch/launch.h"
#include "lib/launch/net-mode-hooks.h"
#include "lib/mech/seccomp-notify.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "lib/supervisor/notify-fs.h"
#include "shared/macro.h"

/* Scoping of abstract unix sockets and signals: the landlock backend has no namespace to stand
 * in for it. */
#define LANDLOCK_BACKEND_MIN_ABI 6

static int make_tmpdir(struct cordon_launch *l, struct cordon_diag *diag)
{
        _cleanup_free_ char *dir = strdup("/tmp/cordon-XXXXXX");
        if (!dir)
                return -ENOMEM;
        if (!mkdtemp(dir))
                return cordon_diag_set(diag, -errno,
                                       "failed to create a private TMPDIR in /tmp: %m");
        l->tmpdir = TAKE_PTR(dir);
        return 0;
}

static int prepare_failed(const struct cordon_launch *l, int r, int rule, struct cordon_diag *diag)
{
        if (rule < 0 || (size_t)rule >= l->ll.n_rules)
                return cordon_diag_set(diag, r, "failed to create the Landlock ruleset: %s",
                                       strerror(-r));
        const char *path = l->ll.rules[rule].path;
        if (r == -ELOOP || r == -ESTALE)
                return cordon_diag_set(diag, r,
                                       "refusing to start: '%s' changed while the Landlock rules "
                                       "were planned (%s); is something renaming it?",
                                       path,
                                       r == -ELOOP ? "a symlink is on its path now"
                                                   : "another file or directory is there now");
        return cordon_diag_set(diag, r, "failed to add the Landlock rule for '%s': %s", path,
                               strerror(-r));
}

/* Whether the landlock backend's filter can have a listener: both layers on (a "continue" is
 * safe only because Landlock still checks), the kernel's SECCOMP_ADDFD_FLAG_SEND, a caller
 * that does not wait on its pipes before the supervisor's loop runs (config-eval), and a
 * supervisor to answer at all (not cordon_confine_self()'s caller). */
bool cordon_launch_landlock_notify(const struct cordon_launch *l)
{
        return l->landlock && l->seccomp && !l->p->no_notify && !l->self && l->probe_notify();
}

/* The landlock backend's seccomp notifications (launch/notify.h): a pty's peer and the private
 * /dev/shm. They need both layers (a "continue" is safe only because Landlock still checks) and
 * a kernel with SECCOMP_ADDFD_FLAG_SEND; without them pseudo-terminals and POSIX shared memory
 * fail as Landlock answers (cordon doctor says so). The shm directory is a convenience, not a
 * restriction: without /dev/shm the command only lacks shared memory. */
static int prepare_notify(struct cordon_launch *l)
{
        /* The child sends the listener with sendmsg(), after the filter is in: a filter that
         * refuses sendmsg (a side-effect level below `network`) goes without them. */
        l->seccomp_key.notify =
            cordon_launch_landlock_notify(l) && l->seccomp_key.net != CORDON_SECCOMP_NET_NONE;
        /* PRIVATE_IPC=false asked for the host's /dev/shm itself (granted by the plan): a
         * private stand-in would split what the setting shares. */
        if (!l->seccomp_key.notify || l->dry_run || l->shm_dir || l->p->host_ipc)
                return 0;
        int r = cordon_shm_dir_create(&l->shm_dir, &l->shm_dirfd);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                l->shm_dir = NULL;
                l->shm_dirfd = -EBADF;
        }
        return 0;
}

int cordon_launch_landlock_prepare(struct cordon_launch *l, bool *resolve_unix,
                                   struct cordon_diag *diag)
{
        const struct cordon_policy *p = l->p;
        const struct cordon_net_mode_hooks *hooks = cordon_net_mode_hooks(l->net_mode);
        int r;

        /* Checked first, so the refusal names the flag whatever else is missing. */
        if (p->limits.tmp_size_bytes > 0)
                return cordon_diag_set(
                    diag, -EOPNOTSUPP,
                    "TMP_SIZE cannot be enforced by the landlock backend: it has no "
                    "mount namespace, so its TMPDIR is a directory on the host's /tmp and "
                    "its home is not a tmpfs (use SANDBOX_BACKEND=ns)");
        /* The stub over the mailers is mounts: `on` asks for it, and a requested
         * restriction missing is a refusal. `auto` gets the PATH part alone
         * (mail-shadow.h). */
        if (p->mail_stub && p->mail_stub_required)
                return cordon_diag_set(
                    diag, -EOPNOTSUPP,
                    "NETWORK_MAIL_BLOCK=on cannot be enforced by the landlock backend: it "
                    "has no mount namespace to put the mail stub over the host's mailers "
                    "(use the ns backend, or set NETWORK_MAIL_BLOCK=auto for the stubs "
                    "first on PATH only, or off)");
        /* The git directories' read-only entries are mounts too (an explicit landlock
         * backend is refused by the resolve already, naming the same). */
        if (p->git_protected)
                return cordon_diag_set(
                    diag, -EOPNOTSUPP,
                    "PROTECT_GIT_CONFIG cannot be enforced by the landlock backend: it "
                    "cannot keep git's '%s' read-only inside a writable "
                    "directory (use the ns backend, or set PROTECT_GIT_CONFIG=false)",
                    p->git_protected);
        /* Without namespaces: an IPC namespace, and files over /etc/passwd. */
        if (p->private_ipc_required || p->filter_passwd_required)
                return cordon_diag_set(
                    diag, -EOPNOTSUPP,
                    "%s cannot be enforced by the landlock backend: it has no %s (use the "
                    "ns backend, or set it to false)",
                    p->private_ipc_required ? "PRIVATE_IPC" : "FILTER_PASSWD",
                    p->private_ipc_required ? "IPC namespace"
                                            : "mount namespace to filter /etc/passwd in");
        if (l->landlock_abi <= 0)
                return cordon_diag_set(diag, -EOPNOTSUPP, "the landlock backend cannot run: %s",
                                       cordon_landlock_missing_reason(l->landlock_abi));
        /* The private TMPDIR stands in for a writable private /tmp only: a capability
         * policy without user_temp writes has a read-only one. None for a caller confining
         * itself: nothing would remove it (cordon_confine_self() refuses a private /tmp, and
         * the host's /tmp bound read-write is the plan's grant). */
        if (!l->tmpdir && !l->dry_run && !l->self && cordon_launch_tmp_writable(p) &&
            (r = make_tmpdir(l, diag)) < 0)
                return r;
        /* Network isolation was asked for and there is no network namespace: socket()
         * is refused instead, whatever the profile says about the hardening layers. The open
         * network keeps unix sockets from the host's the same way (OPEN_UNIX): the ns backend's
         * mount view hides them. Not for a caller confining itself (a Slurm task): its node's
         * sockets (PMIx, the step daemon) are the job's, and no supervisor would answer. */
        enum cordon_seccomp_net stand_in =
            cordon_net_mode_rule_no_netns(hooks, l->landlock_abi, resolve_unix);
        if (stand_in == CORDON_SECCOMP_NET_OPEN_UNIX && l->self)
                stand_in = CORDON_SECCOMP_NET_ANY;
        if (stand_in != CORDON_SECCOMP_NET_ANY) {
                if (!l->probe_seccomp())
                        return cordon_diag_set(diag, -EOPNOTSUPP,
                                               stand_in == CORDON_SECCOMP_NET_OPEN_UNIX
                                                   ? "the landlock backend keeps the host's unix "
                                                     "sockets out with seccomp, which this kernel "
                                                     "does not offer"
                                                   : "the landlock backend isolates the network "
                                                     "with seccomp, which this kernel does not "
                                                     "offer");
                l->seccomp_key.net = cordon_seccomp_net_stricter(l->seccomp_key.net, stand_in);
                l->seccomp_isolates_net = stand_in != CORDON_SECCOMP_NET_OPEN_UNIX;
        }
        if ((r = prepare_notify(l)) < 0)
                return r;
        if (l->landlock && l->landlock_abi < LANDLOCK_BACKEND_MIN_ABI) {
                char what[256];
                snprintf(what, sizeof(what),
                         "Landlock ABI %d cannot keep signals and abstract unix sockets "
                         "inside the landlock backend (needs ABI %d, Linux 6.12)",
                         l->landlock_abi, LANDLOCK_BACKEND_MIN_ABI);
                bool keep = true;
                r = cordon_launch_layer_missing(l, &keep, what, diag);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The Landlock layer off (the unrestricted profile, or CORDON_HANDLER_SANDBOX=off) in proxied
 * mode: Landlock's TCP rule stands in for the network namespace all the same, as the socket
 * rule does, in a ruleset that handles nothing of the filesystem (isolated needs none: its
 * socket rule refuses every socket()). net-decide.c delivers proxied here only with ABI >= 4;
 * create_ruleset() refuses less. */
static int prepare_net_only(struct cordon_launch *l, bool resolve_unix, struct cordon_diag *diag)
{
        l->ll = (struct cordon_landlock_plan){.abi = l->landlock_abi, .host = true};
        cordon_landlock_plan_set_net(&l->ll, l->net_mode, l->proxy_port, resolve_unix);
        int r = cordon_landlock_plan_prepare(&l->ll, NULL);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to create the Landlock ruleset: %s",
                                       strerror(-r));
        return 0;
}

int cordon_launch_landlock_ruleset(struct cordon_launch *l, bool resolve_unix,
                                   struct cordon_diag *diag)
{
        if (l->dry_run)
                return 0;
        if (!l->landlock)
                return cordon_net_mode_traits(l->net_mode)->proxy
                           ? prepare_net_only(l, resolve_unix, diag)
                           : 0;
        int r = l->tmpdir
                    ? cordon_landlock_plan_add(&l->ll, l->tmpdir,
                                               CORDON_LANDLOCK_FS_READ | CORDON_LANDLOCK_FS_WRITE,
                                               false)
                    : 0;
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to plan the Landlock rules: %s",
                                       strerror(-r));
        /* Host paths are opened here, once, and the child gets the ruleset: between planning
         * and the child, a path could have changed. */
        int rule = -1;
        r = cordon_landlock_plan_prepare(&l->ll, &rule);
        if (r < 0)
                return prepare_failed(l, r, rule, diag);
        return 0;
}

/* The package caches and configuration copies, by variable: no mount puts them at the tools'
 * own paths here. */
int cordon_launch_landlock_env(const struct cordon_launch *l, char ***ret)
{
        *ret = NULL;
        if (!l->p->landlock_env && !l->p->landlock_env_files)
                return 0;
        return cordon_landlock_env(l->p, l->tmpdir, l->dry_run, ret);
}
