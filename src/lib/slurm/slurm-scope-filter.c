/* scontrol show job|step output kept to the jobs in scope. scontrol 22.05 writes a record as
 * "JobId=N [ArrayJobId=M ArrayTaskId=T | HetJobId=M HetJobOffset=O] JobName=..." (api/job_info.c)
 * or "StepId=N[_T].S ..." (api/job_step_info.c), its fields on indented lines ending with a
 * blank line, or with --oneliner one record a line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/slurm/slurm-scope.h"
#include "shared/macro.h"

struct buf {
        char *b;
        size_t n;
};

static bool starts(const char *s, const char *end, const char *prefix)
{
        size_t l = strlen(prefix);
        return (size_t)(end - s) >= l && memcmp(s, prefix, l) == 0;
}

/* The decimal number at *p (no sign), advancing past it; false without digits or past
 * UINT32_MAX. */
static bool number(const char **p, const char *end, uint32_t *ret)
{
        const char *s = *p;
        uint64_t v = 0;
        if (s >= end || *s < '0' || *s > '9')
                return false;
        for (; s < end && *s >= '0' && *s <= '9'; s++) {
                v = v * 10 + (uint64_t)(*s - '0');
                if (v > UINT32_MAX)
                        return false;
        }
        *p = s;
        *ret = (uint32_t)v;
        return true;
}

/* The base job of the record the line starts: for a job the leading tokens, up to JobName=
 * (which holds the user's text and is not read): JobId=N, then ArrayJobId=M or HetJobId=M,
 * which win; for a step the number StepId= starts with. False when it cannot be read. */
static bool record_job(const char *s, const char *end, uint32_t *ret)
{
        if (starts(s, end, "StepId=")) {
                s += 7;
                return number(&s, end, ret);
        }
        if (!starts(s, end, "JobId="))
                return false;
        s += 6;
        if (!number(&s, end, ret))
                return false;
        while (s < end && *s == ' ') {
                s++;
                uint32_t v;
                if (starts(s, end, "ArrayJobId=") || starts(s, end, "HetJobId=")) {
                        s = (const char *)memchr(s, '=', (size_t)(end - s)) + 1;
                        if (!number(&s, end, &v))
                                return false;
                        if (v != 0)
                                *ret = v;
                } else if (starts(s, end, "ArrayTaskId=") || starts(s, end, "HetJobOffset=") ||
                           starts(s, end, "ArrayTaskThrottle=")) {
                        while (s < end && *s != ' ' && *s != '\n')
                                s++;
                } else
                        break;
        }
        return true;
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

static void append(struct buf *o, const char *s, size_t n)
{
        memcpy(o->b + o->n, s, n);
        o->n += n;
}

int cordon_slurm_scope_filter_scontrol(const char *out, size_t len, const uint32_t *ids,
                                       size_t n_ids, char **ret, size_t *ret_len)
{
        if ((!out && len > 0) || (!ids && n_ids > 0) || !ret || !ret_len)
                return -EINVAL;
        if (len > CORDON_SLURM_SCOPE_MAX_OUTPUT || n_ids > CORDON_SLURM_SCOPE_MAX_IDS)
                return -E2BIG;
        _cleanup_free_ uint32_t *sorted = malloc((n_ids ?: 1) * sizeof(uint32_t));
        if (!sorted)
                return -ENOMEM;
        if (n_ids > 0)
                memcpy(sorted, ids, n_ids * sizeof(uint32_t));
        qsort(sorted, n_ids, sizeof(uint32_t), cmp_u32);
        /* the output never grows but for scontrol's own line when every record is dropped */
        struct buf o = {.b = malloc(len + 64)};
        if (!o.b)
                return -ENOMEM;
        const char *end = out + len;
        bool records = false, kept = false, keep = false, steps = false;
        /* A record starts at a line starting "JobId=" or "StepId=" (a multi-line record's
         * other lines are indented, a oneliner's record is its line) and runs to the next;
         * lines before the first record (scontrol -v's counts) are not kept. scontrol
         * writes a job's name and comment as they are: one holding a newline followed by
         * "JobId=" starts a record of its own (see ARCHITECTURE.md, "Slurm scopes"). */
        for (const char *l = out; l < end;) {
                const char *nl = memchr(l, '\n', (size_t)(end - l));
                const char *next = nl ? nl + 1 : end;
                uint32_t id;
                if (starts(l, next, "JobId=") || starts(l, next, "StepId=")) {
                        /* a record whose job cannot be read is not kept */
                        bool known = record_job(l, next, &id);
                        records = true;
                        steps = l[0] == 'S';
                        keep = known && n_ids > 0 &&
                               bsearch(&id, sorted, n_ids, sizeof(id), cmp_u32) != NULL;
                        kept = kept || keep;
                }
                if (keep)
                        append(&o, l, (size_t)(next - l));
                l = next;
        }
        if (!records) {
                /* no record at all: scontrol's own message ("No jobs in the system") */
                o.n = 0;
                append(&o, out, len);
        } else if (!kept) {
                static const char jobs[] = "No jobs in the system\n",
                                  stepsmsg[] = "No job steps in the system\n";
                if (steps)
                        append(&o, stepsmsg, sizeof(stepsmsg) - 1);
                else
                        append(&o, jobs, sizeof(jobs) - 1);
        }
        o.b[o.n] = 0;
        *ret_len = o.n;
        *ret = o.b;
        return 0;
}
