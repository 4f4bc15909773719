/* `cordon doctor` for the landlock backend: what it delivers on this host, item by item, computed
 * from the report's probes (Landlock ABI, seccomp) and the seccomp user-notification probe. The
 * notes name variables (SANDBOX_BACKEND, TMPDIR), not flags; the CLI renders them. */
#include <stdarg.h>
#include <stdio.h>

#include "cordon/doctor.h"
#include "lib/mech/landlock.h"
#include "lib/mech/seccomp-notify.h"
#include "shared/macro.h"

/* What the items depend on, read once from the probes. */
struct ll_facts {
        int abi;      /* Landlock ABI; 0 when unavailable */
        bool seccomp; /* seccomp filters can be installed */
        bool notify;  /* the user-notification machinery (listener, ADDFD_FLAG_SEND, pidfd_getfd) */
};

/* The items' keys and descriptions, in the order of enum cordon_doctor_ll_item. */
static const struct {
        const char *name, *what;
} ll_items[_CORDON_DOCTOR_LL_MAX] = {
    [CORDON_DOCTOR_LL_TMPDIR] = {"tmpdir", "a private TMPDIR"},
    [CORDON_DOCTOR_LL_TMP] = {"tmp", "creating files directly under /tmp"},
    [CORDON_DOCTOR_LL_SHM] = {"shm", "POSIX shared memory and semaphores (/dev/shm)"},
    [CORDON_DOCTOR_LL_PTY] = {"pty", "new pseudo-terminals (script, Python pty, tmux)"},
    [CORDON_DOCTOR_LL_SCOPE] = {"scope", "signals and abstract unix sockets kept inside"},
    [CORDON_DOCTOR_LL_TCP] = {"tcp", "TCP connect and bind rules"},
    [CORDON_DOCTOR_LL_PROXIED] = {"proxied", "network mode proxied"},
    [CORDON_DOCTOR_LL_FILTERED] = {"filtered", "network mode filtered"},
    [CORDON_DOCTOR_LL_PROC] = {"proc", "a private /proc"},
    [CORDON_DOCTOR_LL_PASSWD] = {"passwd", "a filtered /etc/passwd and /etc/group"},
    [CORDON_DOCTOR_LL_HOME_SEEDED] = {"home_seeded", "writable copies of HOME_SEEDED files"},
    [CORDON_DOCTOR_LL_PROTECTED] = {"protected",
                                    "protected files read-only inside writable directories"},
    [CORDON_DOCTOR_LL_HOME_SCRATCH] = {"home_scratch",
                                       "a writable scratch home (HOME_ACCESS=tmpwrite)"},
    [CORDON_DOCTOR_LL_UNIX] = {"unix",
                               "the host's unix sockets kept out, the command's own usable"},
};

_printf_(3, 4) static void set(struct cordon_doctor_ll_feature *f, bool works, const char *fmt, ...)
{
        va_list ap;
        f->works = works;
        va_start(ap, fmt);
        vsnprintf(f->note, sizeof(f->note), fmt, ap);
        va_end(ap);
}

/* Network mode proxied: the supervisor's proxy on a loopback port, the command limited to
 * connect() to that port by Landlock's TCP rules, to stream sockets by the seccomp filter, and
 * to the proxy's own address by the supervisor (notify.c: Landlock sees the port only).
 * Its own function, so that the proxied mode's part can refine the line in one place. */
static void ll_proxied(const struct ll_facts *f, struct cordon_doctor_ll_feature *ret)
{
        /* Unix sockets: from ABI 9 the socket rule admits AF_UNIX (Landlock keeps the host's
         * out by path: cordon_net_mode_rule_no_netns()) and the supervisor refuses their
         * connect() (it cannot let one run unchecked: notify.h); before, the supervisor lets
         * them reach only the sockets the command bound itself (notify-unix.h). */
        if (f->abi >= 4 && f->seccomp && f->notify)
                set(ret, true,
                    "connect() only to the proxy at 127.0.0.1 and a port chosen at random per "
                    "run, the address checked through seccomp user notification; %s",
                    f->abi >= CORDON_LANDLOCK_RESOLVE_UNIX_ABI
                        ? "a unix socket's connect() is refused"
                        : "unix sockets reach only those the command bound itself (before ABI "
                          "9 Landlock cannot keep the host's out)");
        else if (f->abi < 4)
                set(ret, false,
                    "needs Landlock ABI 4 (Linux 6.7) for TCP rules, this kernel has %d", f->abi);
        else if (!f->seccomp)
                set(ret, false, "needs seccomp filters for its socket rules");
        else
                set(ret, false,
                    "needs Linux 5.14 seccomp user notification: Landlock's TCP rule alone would "
                    "let a connect() to any host on the proxy's port out");
}

static void ll_features(const struct ll_facts *f, struct cordon_doctor_ll_feature *out)
{
        static const char needs_notify[] =
            "not available: needs Linux 5.14 seccomp user notification; SANDBOX_BACKEND=ns "
            "provides it";

        set(&out[CORDON_DOCTOR_LL_TMPDIR], true,
            "a fresh directory of the launch in TMPDIR, removed at its end");
        /* Without a mount namespace there is no private /tmp; the notifications only add the
         * note to the refusal, they never grant the create. */
        set(&out[CORDON_DOCTOR_LL_TMP], false,
            "no private /tmp without a mount namespace: refused with EACCES%s; use TMPDIR, or "
            "SANDBOX_BACKEND=ns",
            f->notify ? " and a note naming this gap" : "");
        if (f->notify) {
                set(&out[CORDON_DOCTOR_LL_SHM], true,
                    "/dev/shm names are made and opened in a private directory of the launch, "
                    "through seccomp user notification; an open by name without O_NOFOLLOW "
                    "(not through shm_open() or sem_open()) is refused");
                /* tmux is named in the item: its server and clients need a unix socket too,
                 * which the isolated network refuses (with a note, notify.h); the proxied one
                 * lets the client reach the server the command started (notify-unix.h). */
                set(&out[CORDON_DOCTOR_LL_PTY], true,
                    "the peer opened through seccomp user notification; the host's /dev/pts/N "
                    "stay closed, and so does opening a /dev/pts/N by name; tmux also needs a "
                    "unix socket, which network mode isolated refuses with a note");
        } else {
                set(&out[CORDON_DOCTOR_LL_SHM], false, "%s", needs_notify);
                set(&out[CORDON_DOCTOR_LL_PTY], false, "%s", needs_notify);
        }
        if (f->abi >= 6)
                set(&out[CORDON_DOCTOR_LL_SCOPE], true, "Landlock ABI 6 scopes");
        else
                set(&out[CORDON_DOCTOR_LL_SCOPE], false,
                    "needs Landlock ABI 6 (Linux 6.12), this kernel has %d: the command can signal "
                    "the user's other processes and reach abstract unix sockets outside",
                    f->abi);
        if (f->abi >= 4)
                set(&out[CORDON_DOCTOR_LL_TCP], true,
                    "Landlock ABI 4: no TCP bind, connect only where a network mode allows");
        else
                set(&out[CORDON_DOCTOR_LL_TCP], false,
                    "needs Landlock ABI 4 (Linux 6.7), this kernel has %d: isolated still refuses "
                    "socket(), proxied cannot be confined",
                    f->abi);
        ll_proxied(f, &out[CORDON_DOCTOR_LL_PROXIED]);
        /* Every network mode keeps the host's unix sockets out (launch-landlock.c): isolated
         * refuses socket(), proxied and open let the command's reach only its own. */
        if (f->abi >= CORDON_LANDLOCK_RESOLVE_UNIX_ABI)
                set(&out[CORDON_DOCTOR_LL_UNIX], true,
                    "Landlock ABI 9 keeps the host's out by path; isolated refuses socket()");
        else if (f->seccomp && f->notify)
                set(&out[CORDON_DOCTOR_LL_UNIX], true,
                    "a unix socket's connect() reaches only sockets the command bound itself, "
                    "checked through seccomp user notification, in network modes open and "
                    "proxied (never ssh-agent, the session bus, Docker or Slurm's munge); "
                    "isolated refuses socket()");
        else if (f->seccomp)
                set(&out[CORDON_DOCTOR_LL_UNIX], false,
                    "needs Linux 5.14 seccomp user notification: without it network mode open "
                    "refuses socket(AF_UNIX) (tmux fails), since nothing could keep a connect() "
                    "from the host's");
        else
                set(&out[CORDON_DOCTOR_LL_UNIX], false,
                    "needs seccomp filters: without them no network mode runs under the "
                    "landlock backend");
        set(&out[CORDON_DOCTOR_LL_FILTERED], false,
            "needs a network namespace: NETWORK_FILTER_FALLBACK decides what runs instead");
        set(&out[CORDON_DOCTOR_LL_PROC], false,
            "needs a mount and pid namespace: the host's /proc shows its processes, /proc/keys "
            "and, for root, the root-only entries");
        set(&out[CORDON_DOCTOR_LL_PASSWD], false,
            "needs a mount namespace: the host's files are readable as they are");
        set(&out[CORDON_DOCTOR_LL_HOME_SEEDED], false,
            "needs a mount namespace: the files are read-only instead");
        set(&out[CORDON_DOCTOR_LL_PROTECTED], false,
            "needs read-only binds: a writable git repository is refused (PROTECT_GIT_CONFIG); "
            "a new .git and the project's agent files (.mcp.json, .envrc, .claude, ...: "
            "PROTECT_AGENT_PROJECT_FILES) stay writable and can run on the host later");
        /* The tmpfs over the home is a mount; Landlock can only grant the real home or not. */
        set(&out[CORDON_DOCTOR_LL_HOME_SCRATCH], false,
            "needs a mount namespace: the home is the real one, and what HOME_WRITABLE and the "
            "agents' state do not grant is refused with EACCES, as with HOME_ACCESS=restricted");
}

_public_ void cordon_doctor_check_landlock_backend(const struct cordon_doctor_landlock *ll,
                                                   const struct cordon_doctor_seccomp *sc,
                                                   struct cordon_doctor_landlock_backend *ret)
{
        const struct ll_facts f = {
            .abi = ll->abi > 0 ? ll->abi : 0,
            .seccomp = sc->filter,
            .notify = sc->filter && (sc->actions & CORDON_SECCOMP_ACTION_USER_NOTIF) &&
                      cordon_seccomp_notify_available(),
        };
        struct cordon_doctor_landlock_backend b = {.usable = f.abi > 0};

        for (size_t i = 0; i < ELEMENTSOF(ll_items); i++) {
                b.features[i].name = ll_items[i].name;
                b.features[i].what = ll_items[i].what;
        }
        if (b.usable)
                ll_features(&f, b.features);
        else
                for (size_t i = 0; i < ELEMENTSOF(b.features); i++)
                        set(&b.features[i], false,
                            "the landlock backend cannot run here: Landlock is unavailable");
        *ret = b;
}
