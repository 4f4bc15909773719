/* SLURM_SCOPE for the chaperon's query commands (chaperon-scope.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/diag.h"
#include "shared/strv.h"
#include "slurm/chaperon-scope.h"

static bool in_ids(const uint32_t *ids, size_t n, uint32_t id)
{
        size_t lo = 0, hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (ids[mid] == id)
                        return true;
                if (ids[mid] < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return false;
}

static char *id_list(const uint32_t *ids, size_t n)
{
        size_t cap = n * 11 + 1, len = 0;
        char *s = malloc(cap);
        if (!s)
                return NULL;
        s[0] = 0;
        for (size_t i = 0; i < n; i++)
                len += (size_t)snprintf(s + len, cap - len, "%s%" PRIu32, i ? "," : "", ids[i]);
        return s;
}

void chaperon_scope_result_clear(struct chaperon_scope_result *res)
{
        strv_free(res->argv);
        *res = (struct chaperon_scope_result){0};
}

int chaperon_scope_judge(const struct chaperon_config *c, char *const *argv, const uint32_t *ids,
                         size_t n_ids, struct chaperon_scope_result *res, struct cordon_diag *diag)
{
        *res = (struct chaperon_scope_result){0};
        int r = strv_extend_strv(&res->argv, argv);
        if (r < 0)
                return r;
        const char *name = argv[0];
        bool limited = c->scope <= 1;
        if (streq(name, "squeue")) {
                if (!limited)
                        return strv_extend(&res->argv, "--me");
                res->empty = n_ids == 0;
                _cleanup_free_ char *list = id_list(ids, n_ids);
                char *opt = NULL;
                if (!list || asprintf(&opt, "--jobs=%s", n_ids ? list : "0") < 0)
                        return -ENOMEM;
                return strv_consume(&res->argv, opt);
        }
        if (streq(name, "scancel")) {
                if (!limited)
                        return strv_extend(&res->argv, "--me");
                size_t n = 0;
                for (size_t i = 1; argv[i]; i++) {
                        if (argv[i][0] == '-')
                                continue;
                        char *end = NULL;
                        unsigned long id = strtoul(argv[i], &end, 10);
                        if (end == argv[i] || id > UINT32_MAX ||
                            !in_ids(ids, n_ids, (uint32_t)id)) {
                                res->rule = "scope-target";
                                return cordon_diag_set(diag, -EPERM,
                                                       "job %s is not in this sandbox's scope "
                                                       "(SLURM_SCOPE=%s)",
                                                       argv[i],
                                                       c->scope == 0 ? "session" : "project");
                        }
                        n++;
                }
                if (!n) {
                        res->rule = "scope-criteria";
                        return cordon_diag_set(
                            diag, -EPERM,
                            "name the jobs to cancel by id: a cancel by other "
                            "criteria could reach jobs out of this sandbox's scope");
                }
                return 0;
        }
        if (streq(name, "sacct")) {
                char *opt = NULL;
                if (asprintf(&opt, "--user=%s", c->user) < 0)
                        return -ENOMEM;
                return strv_consume(&res->argv, opt);
        }
        return 0;
}
