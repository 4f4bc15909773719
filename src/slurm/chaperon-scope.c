/* SLURM_SCOPE for the chaperon's query commands (chaperon-scope.h): lib/slurm/slurm-scope.h
 * judges the call and rewrites it, here its verdict becomes what the chaperon runs and how it
 * filters the output. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/slurm/slurm-scope.h"
#include "shared/strv.h"
#include "slurm/chaperon-scope.h"

static const struct {
        const char *name;
        enum cordon_slurm_query q;
} queries[] = {
    {"squeue", CORDON_SLURM_SQUEUE},     {"scancel", CORDON_SLURM_SCANCEL},
    {"scontrol", CORDON_SLURM_SCONTROL}, {"sstat", CORDON_SLURM_SSTAT},
    {"sacct", CORDON_SLURM_SACCT},       {"sinfo", CORDON_SLURM_SINFO},
    {"sprio", CORDON_SLURM_SPRIO},       {"sshare", CORDON_SLURM_SSHARE},
    {"sacctmgr", CORDON_SLURM_SACCTMGR},
};

void chaperon_scope_result_clear(struct chaperon_scope_result *res)
{
        strv_free(res->argv);
        *res = (struct chaperon_scope_result){0};
}

/* FILTER_HEADER_ONLY: the first @lines lines of the output. */
static size_t head_len(const char *out, size_t len, unsigned lines)
{
        size_t n = 0;
        for (unsigned k = 0; k < lines && n < len; k++) {
                const char *nl = memchr(out + n, '\n', len - n);
                n = nl ? (size_t)(nl - out) + 1 : len;
        }
        return n;
}

int chaperon_scope_judge(const struct chaperon_config *c, char *const *argv, const uint32_t *ids,
                         size_t n_ids, struct chaperon_scope_result *res, struct cordon_diag *diag)
{
        *res = (struct chaperon_scope_result){0};
        const struct cordon_slurm_scope_request req = {
            .command = _CORDON_SLURM_QUERY_MAX,
            .argv = argv,
            .scope = (enum cordon_slurm_scope)c->scope,
            .user = c->user,
            .uid = c->uid,
            .ids = ids,
            .n_ids = n_ids,
        };
        struct cordon_slurm_scope_request q = req;
        for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
                if (streq(argv[0], queries[i].name))
                        q.command = queries[i].q;
        if (q.command == _CORDON_SLURM_QUERY_MAX)
                return -EINVAL;
        struct cordon_slurm_scope_result r = {0};
        int k = cordon_slurm_scope_check(&q, &r, &res->rule, diag);
        if (k < 0)
                return k == -ENOMEM ? k : -EPERM;
        res->argv = TAKE_PTR(r.argv);
        switch (r.filter) {
        case CORDON_SLURM_FILTER_NONE:
                break;
        case CORDON_SLURM_FILTER_HEADER_ONLY:
                res->empty = true;
                res->header_lines = r.header_lines;
                break;
        case CORDON_SLURM_FILTER_SCONTROL:
                res->filter = cordon_slurm_scope_filter_scontrol;
                break;
        }
        cordon_slurm_scope_result_clear(&r);
        return 0;
}

size_t chaperon_scope_head(const char *out, size_t len, unsigned lines)
{
        return head_len(out, len, lines);
}
