/* NETWORK_MAIL_BLOCK: a stub program bound over every mailer the host has, and a directory of
 * stubs of the same names first on PATH, so that an agent calling sendmail or mail learns the
 * policy in a few lines instead of meeting a dropped connection. Defence in depth above the
 * network rules, which stop SMTP whatever program speaks it. The landlock backend, without
 * mounts, gets the directory of stubs alone, made by the launch (launch/mail-shadow.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/policy/backend-traits.h"
#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define ORIGIN "NETWORK_MAIL_BLOCK"

/* The stub names the program it was called as, reduced to printable ASCII ([:graph:] in the C
 * locale: a hostile name of escape sequences, CR or OSC 8 links cannot reach the terminal or a
 * log) and cut to 64 bytes, and the argument count, never the arguments. $0 rather than argv[0]:
 * for a script the kernel replaces argv[0] with the path it executed. Only shell builtins
 * besides tr; without tr it says "a mailer". The words are for whoever reads stderr, often an
 * agent: that this is a rule, not a fault, that the other ways are closed as well, and what to
 * do instead. No apostrophe anywhere: the lines are single-quoted. 77 is EX_NOPERM of
 * sysexits.h. */
#define STUB_HEAD                                                                                  \
        "#!/bin/sh\n"                                                                              \
        "# cordon: mail is disabled in this sandbox (NETWORK_MAIL_BLOCK); see the message "        \
        "below.\n"                                                                                 \
        "n=$(printf '%s' \"${0##*/}\" | LC_ALL=C tr -cd '[:graph:]' 2>/dev/null)\n"                \
        "printf 'cordon: mail is disabled by the configuration of this sandbox "                   \
        "(NETWORK_MAIL_BLOCK): %.64s was called with %d arguments and sent nothing.\\n' "          \
        "\"${n:-a mailer}\" \"$#\" >&2\n"                                                          \
        "printf '%s\\n' 'This is a boundary set on purpose, not a fault to repair: "
#define STUB_TAIL                                                                                  \
        "and the network rules of the sandbox refuse the SMTP ports (25, 465, 587, 2525) in "      \
        "every network mode but open.' "                                                           \
        "'An agent must not retry, and must not look for another program, path or protocol "       \
        "to send mail with: that would be working around a rule the user set. Tell the user "      \
        "that mail is blocked here, and offer another channel (a file in the project, or the "     \
        "text in your answer).' >&2\n"                                                             \
        "exit 77\n"

static const char stub_script[] =
    STUB_HEAD "every mailer program here (sendmail, mail, mailx, mutt, msmtp, ssmtp, exim, ...), "
              "called by name or at its usual path, is this same stub, " STUB_TAIL;

/* The landlock backend has no mounts: only the names found on PATH lead to the stub. */
static const char stub_script_by_name[] =
    STUB_HEAD "every mailer name on PATH here (sendmail, mail, mailx, mutt, msmtp, ssmtp, exim, "
              "...) leads to this same stub, " STUB_TAIL;

const char *cordon_mail_stub_script(bool by_name_only)
{
        return by_name_only ? stub_script_by_name : stub_script;
}

/* The canonical places of the mailers of Debian's packages (and the names other distributions
 * give them): the sendmail interface of every MTA, the MUAs that send, the postfix tools that
 * queue or control mail, exim's, dma, OpenSMTPD's smtpctl, nullmailer's and qmail's clients, and
 * git send-email. Listed, not searched for: each missing one costs a failed lstat() of a cached
 * directory. A link among them (the alternatives system's /usr/bin/mail, msmtp-mta's sendmail) is
 * followed to the program it leads to. */
static const char *const mail_paths[] = {
    "/usr/sbin/sendmail",
    "/usr/bin/sendmail",
    "/usr/lib/sendmail",
    "/usr/sbin/sendmail-mta",
    "/usr/sbin/sendmail-msp",
    "/usr/lib/sm.bin/sendmail",
    "/usr/sbin/sendmail.postfix",
    "/usr/sbin/sendmail.sendmail",
    "/usr/sbin/sendmail.exim",
    "/usr/sbin/sendmail.ssmtp",
    "/usr/bin/mail",
    "/usr/bin/Mail",
    "/usr/bin/mailx",
    "/usr/bin/bsd-mailx",
    "/usr/bin/heirloom-mailx",
    "/usr/bin/s-nail",
    "/usr/bin/mail.mailutils",
    "/usr/bin/mutt",
    "/usr/bin/neomutt",
    "/usr/bin/msmtp",
    "/usr/bin/msmtpq",
    "/usr/bin/ssmtp",
    "/usr/sbin/ssmtp",
    "/usr/bin/swaks",
    "/usr/bin/sendemail",
    "/usr/sbin/postfix",
    "/usr/sbin/postdrop",
    "/usr/sbin/postqueue",
    "/usr/sbin/postsuper",
    "/usr/sbin/postkick",
    "/usr/sbin/postlog",
    "/usr/sbin/exim",
    "/usr/sbin/exim4",
    "/usr/sbin/rsmtp",
    "/usr/sbin/runq",
    "/usr/sbin/rmail",
    "/usr/sbin/dma",
    "/usr/sbin/smtpctl",
    "/usr/bin/nullmailer-inject",
    "/usr/sbin/nullmailer-queue",
    "/usr/sbin/nullmailer-send",
    "/var/qmail/bin/qmail-inject",
    "/var/qmail/bin/qmail-queue",
    "/var/qmail/bin/qmail-remote",
    "/var/qmail/bin/sendmail",
    "/usr/lib/git-core/git-send-email",
    NULL,
};

/* The names in the directory of stubs first on PATH: the mailers one calls by name, for the
 * copies outside the canonical places (/usr/local/bin, a conda environment, $HOME/.local/bin)
 * and for hosts that have none. Short on purpose: each name is a link made on every start
 * (about 4 us each here); the names only the mailers' own tools call, by absolute path, have
 * their stub where those look. The first is the stub itself, the others link to it. */
static const char *const mail_names[] = {
    "sendmail", "mail",  "mailx",     "mutt", "neomutt", "msmtp", "ssmtp",
    "s-nail",   "swaks", "sendemail", "exim", "exim4",   "dma",   NULL,
};

const char *const *cordon_mail_paths(void)
{
        return mail_paths;
}

const char *const *cordon_mail_names(void)
{
        return mail_names;
}

static const char *base_name(const char *path)
{
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

/* True when @name is the last component of one of @paths. */
static bool is_mailer_name(const char *const *paths, const char *name)
{
        for (const char *const *p = paths; *p; p++)
                if (streq(base_name(*p), name))
                        return true;
        return false;
}

/* The stub over the mailer at @path, when there is one: the program @path leads to (through
 * every link on the way, as exec would follow them), provided it is a regular file with a
 * mailer's name that the sandbox sees at the same place. The guest path is opened inside with
 * RESOLVE_NO_SYMLINKS at the launch, so a link swapped in later fails the start rather than
 * redirect the bind. */
static int stub_one(struct lower *l, const char *const *paths, const char *path)
{
        struct stat st;
        if (lstat(path, &st) < 0)
                return 0; /* not installed (or not reachable by the caller either) */
        _cleanup_free_ char *real = cordon_lower_realpath_lstated(l, path, &st);
        if (!real)
                return errno == ENOMEM ? -ENOMEM : 0; /* a dangling link runs nothing */
        if (!streq(real, path) && lstat(real, &st) < 0)
                return 0;
        if (!S_ISREG(st.st_mode))
                return 0;
        if (!is_mailer_name(paths, base_name(real)))
                /* A multi-call binary (busybox) behind sendmail: a stub over it would break every
                 * other program it is. */
                return cordon_lower_warn(l,
                                         "%s: '%s' leads to '%s', which is not a mailer; left as "
                                         "it is (the network rules still apply)",
                                         ORIGIN, path, real);
        if (!cordon_lower_visible_same_path(l->p, real))
                return 0;
        const struct cordon_fs_rule *done = cordon_policy_find_fs(l->p, real);
        if (done && done->access == CORDON_ACCESS_DATA && streq_ptr(done->origin, ORIGIN))
                return 0; /* another name of a program already stubbed */
        return cordon_lower_put(l, real, stub_script, CORDON_ACCESS_DATA, CORDON_FS_EXEC, ORIGIN);
}

/* The directory of stubs for PATH: the stub under the first of @names and a link to it under
 * each other one. Not where a bind from the host holds the directory (the mount points would be
 * made on the host, or fail in a read-only bind) or where any rule lies below it. */
static int stub_dir(struct lower *l, const char *const *names, const char *dir)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                bool host_bind = cordon_access_is_bind(r->access) && r->host;
                if (path_is_below(r->guest, dir) || (host_bind && path_is_below(dir, r->guest)))
                        return cordon_lower_warn(l,
                                                 "%s: '%s' is taken by a rule from %s; the "
                                                 "stubs are not put first on PATH",
                                                 ORIGIN, dir, strempty(r->origin));
        }
        /* Added without cordon_lower_put()'s search for an earlier rule: none lies below. */
        _cleanup_free_ char *stub = path_join(dir, names[0]);
        if (!stub)
                return -ENOMEM;
        int r = cordon_policy_add_fs(l->p, stub, stub_script, CORDON_ACCESS_DATA, CORDON_FS_EXEC,
                                     ORIGIN);
        for (const char *const *n = names + 1; r >= 0 && *n; n++) {
                _cleanup_free_ char *link = path_join(dir, *n);
                if (!link)
                        return -ENOMEM;
                r = cordon_policy_add_fs(l->p, link, names[0], CORDON_ACCESS_SYMLINK, 0, ORIGIN);
        }
        if (r >= 0)
                l->mail_stub_dir = dir;
        return r;
}

int cordon_lower_mail_stub_at(struct lower *l, const char *const *paths, const char *const *names,
                              const char *dir)
{
        if (!names[0])
                return -EINVAL;
        l->p->mail_stub = true;
        for (const char *const *p = paths; *p; p++) {
                int r = stub_one(l, paths, *p);
                if (r < 0)
                        return r;
        }
        return stub_dir(l, names, dir);
}

int cordon_lower_mail_stub(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        /* auto: on unless both the asked and the delivered mode are open; open is always
         * delivered, so asked open is enough to know. The landlock backend has no mounts for
         * the stubs over the mailers: auto gives it the directory of stubs first on PATH alone,
         * which the launch makes on the host (launch/mail-shadow.c); on refuses to start
         * (cordon_launch_prepare()). */
        bool on = s->mail_block == CORDON_MAIL_BLOCK_ON;
        bool want =
            on || (s->mail_block == CORDON_MAIL_BLOCK_AUTO && s->net_mode != CORDON_NET_OPEN);
        if (!want)
                return 0;
        l->p->mail_stub_required = on;
        if (!cordon_backend_traits(s->backend)->mount_ns) {
                l->p->mail_stub = true; /* the rules below would be dropped */
                return 0;
        }
        return cordon_lower_mail_stub_at(l, mail_paths, mail_names, CORDON_MAIL_STUB_DIR);
}

int cordon_lower_mail_path(struct lower *l)
{
        const char *dir = l->mail_stub_dir;
        if (!dir)
                return 0;
        char **slot = NULL;
        for (char **e = l->p->envp; e && *e; e++)
                if (strncmp(*e, "PATH=", 5) == 0)
                        slot = e;
        /* Without a PATH, the lookup's default (exec-search.c) follows the stubs. */
        const char *old = slot ? *slot + 5 : "/usr/local/bin:/usr/bin:/bin";
        size_t n = strlen(dir);
        if (strncmp(old, dir, n) == 0 && (old[n] == ':' || old[n] == 0))
                return 0; /* already first (a sandbox started from inside one) */
        char *path = NULL;
        if (asprintf(&path, "PATH=%s:%s", dir, old) < 0)
                return -ENOMEM;
        if (!slot)
                return strv_consume(&l->p->envp, path);
        free(*slot);
        *slot = path;
        return 0;
}
