/* `cordon run`'s hint after a command that failed (see run-hint.h). Evidence only: a path is
 * named when an argument spells it (whole, after an option's '=', or as a word of a shell
 * script such as `sh -c 'git clone ~/src/lib'`), and counts only when the host has it; the
 * policy says what the sandbox made of it (cordon_policy_describe_path()). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli-config.h"
#include "cli/run-hint.h"
#include "cli/run-options.h"
#include "shared/macro.h"

/* Bounds: the hint is cheap whatever the command line. */
#define HINT_ARGS_MAX  256
#define HINT_PATHS_MAX 64
#define HINT_WORD_MAX  4096

enum {
        RANK_NONE,
        RANK_PROTECTED, /* read-only, a copy or generated, inside a writable directory */
        RANK_HIDDEN,    /* hidden or not shown, and the host has it */
};

struct hint {
        const struct cordon_policy *p;
        const struct cordon_report *rep;
        const char *home, *cwd;
        unsigned described;
        int rank;
        char named[HINT_WORD_MAX];
        char path[HINT_WORD_MAX];
        struct cordon_path_info info;
};

static bool looks_like_path(const char *w)
{
        if (!*w || strstr(w, "://"))
                return false;
        return w[0] == '/' || w[0] == '~' || strchr(w, '/');
}

/* @path with the home spelled "~", as the user typed it. */
static void tilde(const char *path, const char *home, char *buf, size_t size)
{
        size_t n = home ? strlen(home) : 0;
        if (n > 1 && strncmp(path, home, n) == 0 && path[n] == '/')
                snprintf(buf, size, "~%s", path + n);
        else
                snprintf(buf, size, "%s", path);
}

static void consider(struct hint *h, const char *word)
{
        if (h->rank == RANK_HIDDEN || h->described >= HINT_PATHS_MAX || !looks_like_path(word))
                return;
        _cleanup_free_ char *path = NULL;
        if (cli_path_from_arg(word, h->home, h->cwd, &path) < 0)
                return;
        h->described++;
        struct cordon_path_info info;
        if (cordon_policy_describe_path(h->p, path, h->rep->backend, &info) < 0)
                return;
        int rank = info.view == CORDON_PATH_HIDDEN || info.view == CORDON_PATH_ABSENT ? RANK_HIDDEN
                   : info.protected_in_writable ? RANK_PROTECTED
                                                : RANK_NONE;
        struct stat st;
        if (rank <= h->rank || lstat(path, &st) < 0)
                return; /* not there on the host either: the sandbox is not why */
        h->rank = rank;
        h->info = info;
        tilde(word, h->home, h->named, sizeof(h->named));
        snprintf(h->path, sizeof(h->path), "%s", path);
}

/* The argument, what follows an option's '=', and its words split as a shell script's. */
static void consider_arg(struct hint *h, const char *arg)
{
        consider(h, arg);
        const char *eq = arg[0] == '-' ? strchr(arg, '=') : NULL;
        if (eq)
                consider(h, eq + 1);
        if (!arg[strcspn(arg, " \t\n'\"`;|&<>()=")])
                return;
        char word[HINT_WORD_MAX];
        for (const char *c = arg; *c;) {
                c += strspn(c, " \t\n'\"`;|&<>()=");
                size_t n = strcspn(c, " \t\n'\"`;|&<>()=");
                if (n > 0 && n < sizeof(word)) {
                        memcpy(word, c, n);
                        word[n] = 0;
                        consider(h, word);
                }
                c += n;
        }
}

/* Why the rule hides it, in a few words. */
static void hidden_reason(const struct hint *h, char *buf, size_t size)
{
        const struct cordon_path_info *i = &h->info;
        enum cordon_access access = CORDON_ACCESS_TMPFS;
        char where[HINT_WORD_MAX];
        if (i->view == CORDON_PATH_ABSENT) {
                snprintf(buf, size,
                         "it shows the system directories, the project and the paths "
                         "it is given");
                return;
        }
        (void)cordon_policy_get_fs(h->p, i->rule, NULL, NULL, &access, NULL, NULL);
        tilde(i->rule_path, h->home, where, sizeof(where));
        if (access == CORDON_ACCESS_MASKED && *i->variable)
                snprintf(buf, size, "'%s' is masked by %s", where, i->variable);
        else if (access == CORDON_ACCESS_MASKED)
                snprintf(buf, size, "'%s' is masked, from %s", where, strempty(i->origin));
        else if (streq(i->variable, "HOME_ACCESS"))
                snprintf(buf, size, "HOME_ACCESS=%s: the home is %s", i->value,
                         streq(i->value, "restricted") ? "an empty read-only directory"
                                                       : "a scratch directory");
        else if (*i->variable)
                snprintf(buf, size, "%s: '%s' is an empty directory of its own", i->variable,
                         where);
        else
                snprintf(buf, size, "'%s' is an empty directory of its own, from %s", where,
                         strempty(i->origin));
}

/* "; to show it: --ro PATH", or where to look when no flag lifts it. */
static void fix_text(const struct hint *h, const char *what, char *buf, size_t size)
{
        const struct cordon_path_info *i = &h->info;
        char fix[HINT_WORD_MAX + 64], word[HINT_WORD_MAX];
        if (!*i->fix_variable) {
                tilde(h->path, h->home, word, sizeof(word));
                snprintf(buf, size, "; 'cordon config explain %s' says why", word);
                return;
        }
        run_options_spell_fix_home(i->fix_variable, i->fix_value, h->home, fix, sizeof(fix));
        snprintf(buf, size, "; to %s: %s", what, fix);
}

bool run_hint(const struct cordon_policy *p, const struct cordon_report *rep, char *const *command,
              const char *home, const char *cwd, char *buf, size_t size)
{
        struct hint *h = calloc(1, sizeof(*h));
        if (size > 0)
                buf[0] = 0;
        if (!h || !p || !rep || !cwd) {
                free(h);
                return false;
        }
        *h = (struct hint){.p = p, .rep = rep, .home = home, .cwd = cwd};
        for (size_t i = 1; command && command[0] && command[i] && i < HINT_ARGS_MAX; i++)
                consider_arg(h, command[i]);

        char reason[HINT_WORD_MAX + 128], fix[2 * HINT_WORD_MAX];
        if (h->rank == RANK_HIDDEN) {
                hidden_reason(h, reason, sizeof(reason));
                fix_text(h, "show it", fix, sizeof(fix));
                snprintf(buf, size,
                         "the command named '%s', which the sandbox %s (%s): probably why it "
                         "failed%s",
                         h->named, h->info.view == CORDON_PATH_ABSENT ? "does not show" : "hides",
                         reason, fix);
        } else if (h->rank == RANK_PROTECTED) {
                const struct cordon_path_info *i = &h->info;
                if (*i->variable)
                        snprintf(reason, sizeof(reason), "%s", i->variable);
                else
                        snprintf(reason, sizeof(reason), "from %s", strempty(i->origin));
                fix_text(h, "lift it", fix, sizeof(fix));
                snprintf(buf, size,
                         "the command named '%s', which the sandbox %s inside a writable "
                         "directory (%s): probably why it failed%s",
                         h->named,
                         i->view == CORDON_PATH_READ_ONLY ? "keeps read-only"
                         : i->view == CORDON_PATH_COPY    ? "gives it as a private copy"
                                                          : "replaces with a read-only file",
                         reason, fix);
        } else if (rep->proxy.refused > 0)
                /* print_refused() has named them and the fix on the line above. */
                snprintf(buf, size,
                         "the proxy refused %llu connection%s of the command (the line above): "
                         "probably why it failed",
                         rep->proxy.refused, rep->proxy.refused == 1 ? "" : "s");
        else if (rep->resolver.refused > 0)
                snprintf(buf, size,
                         "the sandbox's resolver refused %llu name%s of the command (the line "
                         "above): probably why it failed",
                         rep->resolver.refused, rep->resolver.refused == 1 ? "" : "s");
        free(h);
        return size > 0 && buf[0];
}
