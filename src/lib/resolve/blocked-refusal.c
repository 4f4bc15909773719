/* The refusal over BLOCKED_FILES entries that cannot be protected, fitted into one diagnostic:
 * the full text when it fits, then shorter forms that still name every entry. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cordon/cordon.h"
#include "lib/policy/diag.h"
#include "lib/resolve/blocked-refusal.h"
#include "shared/macro.h"

#define MSG_MAX sizeof(((struct cordon_diag *)0)->message)

struct text {
        char buf[MSG_MAX];
        size_t len;
        bool full; /* something did not fit */
};

_printf_(2, 3) static void add(struct text *t, const char *fmt, ...)
{
        if (t->full)
                return;
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
        va_end(ap);
        if (k < 0 || (size_t)k >= sizeof(t->buf) - t->len) {
                t->buf[t->len] = 0;
                t->full = true;
                return;
        }
        t->len += (size_t)k;
}

/* @s as one shell word: as it is when it holds only characters no shell treats specially, else
 * in single quotes. */
static void add_word(struct text *t, const char *s)
{
        if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                            "/._-+,:@%=") == strlen(s)) {
                add(t, "%s", s);
                return;
        }
        add(t, "'");
        for (const char *c = s; *c; c++)
                add(t, *c == '\'' ? "'\\''" : "%c", *c);
        add(t, "'");
}

/* mkdir -p DIR && touch FILE, or touch FILE. */
static void add_commands(struct text *t, const struct cordon_blocked_failure *f)
{
        if (f->parent_missing) {
                const char *slash = strrchr(f->path, '/');
                char dir[4096];
                snprintf(dir, sizeof(dir), "%.*s",
                         (int)(slash && slash != f->path ? slash - f->path : 1), f->path);
                add(t, "mkdir -p ");
                add_word(t, dir);
                add(t, " && ");
        }
        add(t, "touch ");
        add_word(t, f->path);
}

enum detail {
        FULL,      /* path, origin, reason; the commands */
        NO_REASON, /* path and origin; the commands */
        PATHS,     /* paths; the commands */
        GENERIC,   /* paths; the commands in words */
        _DETAIL_MAX,
};

/* The message at @d; false when it does not fit. With @keep (the last resort), as many paths as
 * fit, then a count of the others. */
static bool compose(struct text *t, enum detail d, const struct cordon_blocked_failure *f, size_t n,
                    size_t keep)
{
        *t = (struct text){0};
        size_t creatable = 0;
        for (size_t i = 0; i < n; i++)
                creatable += f[i].creatable;
        if (n == 1)
                add(t, "cannot protect BLOCKED_FILES entry ");
        else
                add(t, "cannot protect %zu BLOCKED_FILES entries: ", n);
        size_t shown = keep ? keep : n;
        for (size_t i = 0; i < shown; i++) {
                add(t, "%s'%s'", i ? "; " : "", f[i].path);
                if (d <= NO_REASON && f[i].origin)
                        add(t, " (from %s)", f[i].origin);
                if (d == FULL && f[i].why)
                        add(t, ": %s", f[i].why);
        }
        if (shown < n)
                add(t, "; and %zu more", n - shown);
        add(t, "; refusing to run with %s unprotected (remove %s from BLOCKED_FILES",
            n == 1 ? "it" : "them", n == 1 ? "it" : "them");
        if (creatable && d < GENERIC) {
                add(t, ", or create %s once outside the sandbox, as a user who may write there: ",
                    creatable == 1 ? "it" : "them");
                bool first = true;
                for (size_t i = 0; i < n; i++) {
                        if (!f[i].creatable)
                                continue;
                        add(t, first ? "" : "; ");
                        add_commands(t, &f[i]);
                        first = false;
                }
        } else if (creatable)
                add(t, ", or create each once outside the sandbox, as a user who may write there: "
                       "mkdir -p DIR && touch FILE");
        add(t, ")");
        return !t->full;
}

int cordon_blocked_refusal(struct cordon_diag *diag, int r, const struct cordon_blocked_failure *f,
                           size_t n)
{
        if (!diag || n == 0)
                return r;
        struct text t;
        bool fits = false;
        for (enum detail d = FULL; d < _DETAIL_MAX && !fits; d++)
                fits = compose(&t, d, f, n, 0);
        /* Not even every path fits: as many as do. */
        for (size_t keep = n - 1; !fits && keep > 0; keep--)
                fits = compose(&t, GENERIC, f, n, keep);
        return cordon_diag_set(diag, r, "%s", t.buf);
}
