/* The failure message of each launcher step: a table beside enum cordon_step. A row names the
 * action and, where there is one, what it acted on (a rule's path, the working directory, the
 * command); the errno's text follows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/diag.h"
#include "lib/launch/exec-search.h"
#include "lib/launch/launch.h"
#include "lib/mech/ns-limits.h"
#include "lib/policy/policy.h"
#include "lib/launch/step.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

enum subject {
        SUBJECT_NONE,
        SUBJECT_SOURCE,        /* the rule's host path for a bind, else its guest path */
        SUBJECT_GUEST,         /* the rule's guest path */
        SUBJECT_MOUNT,         /* a bind: its source; another mount: "TYPE on 'GUEST'" */
        SUBJECT_LANDLOCK_RULE, /* the Landlock rule's path; without one, @without */
        SUBJECT_CWD,
        SUBJECT_COMMAND,
        SUBJECT_NS_LIMIT, /* the name of the /proc/sys/user limit */
};

struct step_message {
        const char *action;   /* "failed to ..." */
        enum subject subject; /* quoted after @action */
        const char *after;    /* after the subject */
        const char *without;  /* instead of @action and the subject when there is none */
};

static const struct step_message step_messages[] = {
    [CORDON_STEP_USERNS] = {"failed to write the user namespace id maps"},
    [CORDON_STEP_OPEN] = {"failed to open", SUBJECT_SOURCE},
    [CORDON_STEP_ROOT] = {"failed to mount the sandbox root"},
    [CORDON_STEP_MOUNTPOINT] = {"failed to create mount point", SUBJECT_GUEST},
    [CORDON_STEP_MOUNT] = {"failed to bind", SUBJECT_MOUNT},
    [CORDON_STEP_MASK] = {"failed to mask", SUBJECT_GUEST},
    [CORDON_STEP_PIVOT] = {"failed to switch to the sandbox root"},
    [CORDON_STEP_HOSTNAME] = {"failed to set the hostname"},
    [CORDON_STEP_NETWORK] = {"failed to bring up the loopback interface"},
    [CORDON_STEP_KEYRING] = {"failed to leave the session keyring"},
    [CORDON_STEP_CAPS] = {"failed to drop capabilities"},
    [CORDON_STEP_NNP] = {"failed to set no-new-privs"},
    [CORDON_STEP_LANDLOCK] = {"failed to apply the Landlock rule for", SUBJECT_LANDLOCK_RULE, "",
                              "failed to apply the Landlock ruleset"},
    [CORDON_STEP_SECCOMP] = {"failed to install the seccomp filter"},
    [CORDON_STEP_CHDIR] = {"failed to change directory to", SUBJECT_CWD},
    [CORDON_STEP_FORK] = {"failed to start the command"},
    [CORDON_STEP_EXEC] = {"failed to execute", SUBJECT_COMMAND},
    [CORDON_STEP_LIMITS] = {"failed to apply the resource limits"},
    [CORDON_STEP_TERMINAL] = {"failed to make the pseudo-terminal the command's"},
    [CORDON_STEP_NS_LIMITS] = {"failed to lower the sandbox's user namespace limit",
                               SUBJECT_NS_LIMIT, " in /proc/sys/user"},
    [CORDON_STEP_PROXY] = {"failed to open the egress proxy's port 127.0.0.1:3128 inside"},
    [CORDON_STEP_NET_FILTER] = {"failed to load the filtered network's nftables rules"},
};

static const struct step_message other_step = {"failed to set up the sandbox"};

/* How host directory @dir shows inside: cordon_policy_guest_shown() of it, or of its realpath
 * when a link leads there (/bin -> usr/bin). */
static int dir_shown(const struct cordon_policy *p, const char *dir)
{
        _cleanup_free_ char *norm = NULL;
        int s = path_normalize(dir, &norm) < 0 ? 0 : cordon_policy_guest_shown(p, norm);
        if (s != 0)
                return s;
        _cleanup_free_ char *real = realpath(dir, NULL);
        return real && !streq(real, norm ?: "") ? cordon_policy_guest_shown(p, real) : 0;
}

/* Appends to @diag's message where @what (the command, or the interpreter of its script) is on
 * the host when the sandbox does not show it, with the fix: its directory in READONLY_MOUNTS.
 * 1 when it said so, 0 when the sandbox shows it (or nothing can be said). */
static int not_shown(const struct cordon_policy *p, const char *what, const char *host,
                     struct cordon_diag *diag)
{
        _cleanup_free_ char *dir = strdup(host);
        if (!dir)
                return 0;
        *strrchr(dir, '/') = 0;
        if (!*dir)
                return 0; /* in "/": the root is never bound */
        int s = dir_shown(p, dir);
        size_t n = strlen(diag->message);
        if (s > 0)
                return 0;
        if (s < 0)
                snprintf(diag->message + n, sizeof(diag->message) - n,
                         "; %s is '%s' on the host, in a hidden path", what, host);
        else if (strlen(dir) < sizeof(diag->fix_value)) {
                snprintf(diag->message + n, sizeof(diag->message) - n,
                         "; %s is '%s' on the host, which the sandbox does not show: add '%s' to "
                         "READONLY_MOUNTS to show it read-only",
                         what, host, dir);
                snprintf(diag->fix_variable, sizeof(diag->fix_variable), "READONLY_MOUNTS");
                snprintf(diag->fix_value, sizeof(diag->fix_value), "%s", dir);
        }
        return 1;
}

/* A command that was not found (ENOENT), or that Landlock refused to execute (EACCES): where it
 * is on the host, looked up with the sandbox's PATH. Shown inside, a script fails the same way
 * when the interpreter of its #! line is missing: then where that is. */
static void exec_hint(const struct cordon_launch *l, const char *argv0, struct cordon_diag *diag)
{
        const char *path = NULL;
        STRV_FOREACH (e, l->envp ?: l->p->envp)
                if (startswith(*e, "PATH="))
                        path = *e + 5;
        _cleanup_free_ char *host = NULL, *interp = NULL, *arg = NULL;
        if (!diag || cordon_exec_find_host(argv0, path, &host) < 0)
                return;
        if (not_shown(l->p, "it", host, diag) || cordon_exec_read_shebang(host, &interp, &arg) < 0)
                return;
        /* "#!/usr/bin/env NAME" runs env, which reports a missing NAME itself. */
        if (path_is_absolute(interp))
                (void)not_shown(l->p, "its interpreter", interp, diag);
}

void cordon_step_describe(const struct cordon_launch *l, const struct cordon_step_report *rep,
                          const char *argv0, struct cordon_diag *diag)
{
        const struct cordon_policy *p = l->p;
        const struct step_message *m = rep->step > 0 &&
                                               (size_t)rep->step < ELEMENTSOF(step_messages) &&
                                               step_messages[rep->step].action
                                           ? &step_messages[rep->step]
                                           : &other_step;
        const struct cordon_fs_rule *r =
            rep->step != CORDON_STEP_LANDLOCK && rep->rule >= 0 && (size_t)rep->rule < p->n_fs
                ? &p->fs[rep->rule]
                : NULL;
        bool bind = r && r->host && cordon_access_is_bind(r->access);
        const char *err = strerror(rep->err);
        const char *subject = "";

        if (diag)
                diag->step = (enum cordon_step)rep->step;
        switch (m->subject) {
        case SUBJECT_NONE:
                cordon_diag_set(diag, 0, "%s: %s", m->action, err);
                return;
        case SUBJECT_MOUNT:
                if (!(r && cordon_access_is_bind(r->access))) {
                        cordon_diag_set(diag, 0, "failed to mount %s on '%s': %s",
                                        r ? cordon_access_to_string(r->access) : "tmpfs",
                                        r ? r->guest : "/", err);
                        return;
                }
                __attribute__((fallthrough));
        case SUBJECT_SOURCE:
                subject = r ? (bind ? r->host : r->guest) : "";
                break;
        case SUBJECT_GUEST:
                subject = r ? r->guest : "";
                break;
        case SUBJECT_LANDLOCK_RULE:
                if (rep->rule < 0 || (size_t)rep->rule >= l->ll.n_rules) {
                        cordon_diag_set(diag, 0, "%s: %s", m->without, err);
                        return;
                }
                subject = l->ll.rules[rep->rule].path;
                break;
        case SUBJECT_CWD:
                subject = strempty(p->cwd);
                break;
        case SUBJECT_COMMAND:
                subject = argv0;
                break;
        case SUBJECT_NS_LIMIT:
                subject = cordon_ns_limit_name(rep->rule);
                break;
        }
        cordon_diag_set(diag, 0, "%s '%s'%s: %s", m->action, subject, strempty(m->after), err);
        if (rep->step == CORDON_STEP_EXEC && (rep->err == ENOENT || rep->err == EACCES))
                exec_hint(l, argv0, diag);
}
