/* A batch job's standard streams (chaperon.h). Slurm opens a job's --output, --error and --input
 * files in slurmstepd, by path, when the job starts: long after the chaperon judged the
 * submission, and outside any sandbox. A sandbox can swap a directory of its project (or the
 * file itself) for a link meanwhile, and slurmstepd would then create or truncate a file of the
 * host's (~/.ssh/authorized_keys) with what the job prints. So Slurm gets a file of the
 * chaperon's state directory, which no sandbox can write, and the job opens the user's files
 * itself, as its first act inside its confinement, where a link out of the project leads
 * nowhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "slurm/chaperon.h"

/* Appends @n bytes of @s to the string in @buf (NULL: empty). */
static int append(char **buf, const char *s, size_t n)
{
        size_t have = *buf ? strlen(*buf) : 0;
        char *p = realloc(*buf, have + n + 1);
        if (!p)
                return -ENOMEM;
        memcpy(p + have, s, n);
        p[have + n] = 0;
        *buf = p;
        return 0;
}

static int append_str(char **buf, const char *s)
{
        return append(buf, s, strlen(s));
}

/* What pattern letter @c stands for in a batch job, as shell text inside double quotes, and
 * whether it is a number (which a width pads with zeros). NULL: no such pattern. */
static const char *pattern_value(char c, bool *numeric)
{
        static const struct {
                char c;
                bool numeric;
                const char *sh;
        } map[] = {
            {'A', true, "${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID}}"},
            {'a', true, "${SLURM_ARRAY_TASK_ID:-4294967294}"},
            {'b', true, "$(( ${SLURM_ARRAY_TASK_ID:-0} % 10 ))"},
            {'j', true, "${SLURM_JOB_ID}"},
            {'J', false, "${SLURM_JOB_ID}.batch"},
            {'N', false, "${SLURMD_NODENAME}"},
            {'n', true, "0"},
            {'s', false, "batch"},
            {'t', true, "0"},
            {'u', false, "${USER}"},
            {'x', false, "${SLURM_JOB_NAME}"},
        };
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (map[i].c == c) {
                        *numeric = map[i].numeric;
                        return map[i].sh;
                }
        return NULL;
}

int chaperon_stdio_pattern(const char *spec, char **ret)
{
        _cleanup_free_ char *w = NULL;
        if (!spec || !*spec || strchr(spec, '\\'))
                return -EINVAL; /* "\\" turns Slurm's patterns off: not followed here */
        int r = append_str(&w, "\"");
        for (const char *p = spec; r >= 0 && *p; p++) {
                if (*p != '%') {
                        if (strchr("\"$`", *p))
                                r = append_str(&w, "\\");
                        if (r >= 0)
                                r = append(&w, p, 1);
                        continue;
                }
                p++;
                if (*p == '%') {
                        r = append_str(&w, "%");
                        continue;
                }
                unsigned width = 0;
                while (*p >= '0' && *p <= '9' && width < 100)
                        width = width * 10 + (unsigned)(*p++ - '0');
                bool numeric = false;
                const char *v = *p ? pattern_value(*p, &numeric) : NULL;
                if (!v || width > 10)
                        return -EINVAL;
                if (width && numeric) {
                        char pad[64];
                        snprintf(pad, sizeof(pad), "$(printf '%%0%ud' \"", width);
                        r = append_str(&w, pad);
                        if (r >= 0)
                                r = append_str(&w, v);
                        if (r >= 0)
                                r = append_str(&w, "\")");
                } else
                        r = append_str(&w, v);
        }
        if (r >= 0)
                r = append_str(&w, "\"");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

bool chaperon_stdio_option(const char *name)
{
        return streq(name, "output") || streq(name, "error") || streq(name, "input") ||
               streq(name, "open-mode");
}

int chaperon_stdio_redirects(const struct cordon_slurm_submit *s, char **ret, char *why,
                             size_t why_size)
{
        const char *out = NULL, *err = NULL, *in = NULL, *mode = NULL;
        bool array = false;
        /* In Slurm's order: the last use of each wins. */
        for (size_t i = 0; i < s->n_uses; i++) {
                const struct cordon_slurm_use *u = &s->uses[i];
                const char *n = u->option->name;
                if (streq(n, "output"))
                        out = u->value;
                else if (streq(n, "error"))
                        err = u->value;
                else if (streq(n, "input"))
                        in = u->value;
                else if (streq(n, "open-mode"))
                        mode = u->value;
                else if (streq(n, "array"))
                        array = true;
        }
        if (!out)
                out = array ? "slurm-%A_%a.out" : "slurm-%j.out";
        if (mode && !streq(mode, "append") && !streq(mode, "truncate")) {
                snprintf(why, why_size, "--open-mode=%s: Slurm takes append or truncate", mode);
                return -EINVAL;
        }
        const char *to = mode && streq(mode, "append") ? ">>" : ">";
        _cleanup_free_ char *line = NULL, *o = NULL, *e = NULL, *i = NULL;
        const char *bad = NULL;
        if (chaperon_stdio_pattern(out, &o) < 0)
                bad = out;
        else if (err && chaperon_stdio_pattern(err, &e) < 0)
                bad = err;
        else if (in && chaperon_stdio_pattern(in, &i) < 0)
                bad = in;
        if (bad) {
                snprintf(why, why_size,
                         "'%s': a file name pattern the chaperon cannot give the job (a "
                         "backslash, or a %% pattern other than %%%% %%A %%a %%b %%j %%J %%N %%n "
                         "%%s %%t %%u %%x, padded to at most 10)",
                         bad);
                return -EINVAL;
        }
        int r = append_str(&line, "exec ");
        if (r >= 0)
                r = append_str(&line, to);
        if (r >= 0)
                r = append_str(&line, o);
        if (r >= 0)
                r = append_str(&line, " 2");
        if (r >= 0 && e) {
                r = append_str(&line, to);
                if (r >= 0)
                        r = append_str(&line, e);
        } else if (r >= 0)
                r = append_str(&line, ">&1");
        if (r >= 0 && i) {
                r = append_str(&line, " <");
                if (r >= 0)
                        r = append_str(&line, i);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(line);
        return 0;
}

bool chaperon_stdio_shell_script(const char *script, size_t size)
{
        static const char *const shells[] = {"sh", "bash", "dash", "ksh", "zsh", "mksh", "ash"};
        if (size < 3 || memcmp(script, "#!", 2) != 0)
                return false;
        const char *end = memchr(script, '\n', size);
        size_t n = end ? (size_t)(end - script) : size;
        char first[256];
        if (n >= sizeof(first))
                return false;
        memcpy(first, script + 2, n - 2);
        first[n - 2] = 0;
        /* "#!/bin/bash -l", "#! /usr/bin/env bash": the interpreter's base name. */
        char *p = first + strspn(first, " \t");
        char *prog = strsep(&p, " \t");
        const char *base = prog ? strrchr(prog, '/') : NULL;
        base = base ? base + 1 : prog;
        if (base && streq(base, "env") && p) {
                p += strspn(p, " \t");
                char *next = strsep(&p, " \t");
                base = next;
        }
        for (size_t i = 0; base && i < ELEMENTSOF(shells); i++)
                if (streq(base, shells[i]))
                        return true;
        return false;
}
