/* Fuzz target for src/lib/slurm/slurm-scope*.c: a Slurm command judged under a SLURM_SCOPE,
 * then scontrol output filtered. Input: the first byte picks the command (low nibble, modulo
 * the commands) and the scope (bits 4-5; bit 6: no job in scope); up to the first 0x01 byte
 * come the arguments, one per line; after it the scontrol output. Checks that every refusal
 * names its rule, that a rewritten command is accepted again and names only jobs in scope, and
 * that the filter keeps only records in scope and is idempotent. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/slurm/slurm-scope.h"
#include "shared/macro.h"
#include "shared/strv.h"

static const uint32_t ids[] = {100, 200, 4294967293u};

static bool listed(uint32_t id)
{
        for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                if (ids[i] == id)
                        return true;
        return false;
}

/* Every --jobs=LIST the rewritten command holds names only jobs in scope. */
static void check_jobs(char **argv, bool narrow, size_t n_ids)
{
        for (char **a = argv + 1; *a && !streq(*a, "--"); a++) {
                const char *v = startswith(*a, "--jobs=");
                if (!v)
                        continue;
                struct cordon_slurm_job_ref *refs = NULL;
                size_t n = 0, bad_len;
                const char *bad;
                int r = cordon_slurm_job_list_parse(v, true, &refs, &n, &bad, &bad_len);
                if (r == -ENOMEM)
                        continue;
                FUZZ_CHECK(r == 0);
                for (size_t i = 0; narrow && i < n; i++)
                        FUZZ_CHECK(n_ids > 0 && listed(refs[i].id));
                free(refs);
        }
}

static void check_filter(const char *out, size_t len, size_t n_ids)
{
        char *f = NULL, *g = NULL;
        size_t fl = 0, gl = 0;
        int r = cordon_slurm_scope_filter_scontrol(out, len, ids, n_ids, &f, &fl);
        if (r == -ENOMEM)
                return;
        FUZZ_CHECK(r == 0 && f && f[fl] == 0 && fl <= len + 64);
        /* a kept record starts with a job in scope */
        for (const char *l = f; l < f + fl;) {
                const char *nl = memchr(l, '\n', (size_t)(f + fl - l));
                const char *next = nl ? nl + 1 : f + fl;
                if (startswith(l, "StepId=") || startswith(l, "JobId=")) {
                        char *e;
                        unsigned long id = strtoul(strchr(l, '=') + 1, &e, 10);
                        size_t ll = (size_t)(next - l);
                        bool base =
                            memmem(l, ll, " ArrayJobId=", 12) || memmem(l, ll, " HetJobId=", 10);
                        FUZZ_CHECK(n_ids > 0 && (base || listed((uint32_t)id)));
                }
                l = next;
        }
        r = cordon_slurm_scope_filter_scontrol(f, fl, ids, n_ids, &g, &gl);
        if (r == 0) {
                FUZZ_CHECK(gl == fl && memcmp(f, g, fl) == 0);
                free(g);
        }
        free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1 || size > FUZZ_MAX_INPUT)
                return 0;
        enum cordon_slurm_query q =
            (enum cordon_slurm_query)((data[0] & 0x0f) % _CORDON_SLURM_QUERY_MAX);
        enum cordon_slurm_scope scope = (enum cordon_slurm_scope)((data[0] >> 4) & 3);
        size_t n_ids = data[0] & 0x40 ? 0 : ELEMENTSOF(ids);
        bool narrow = scope == CORDON_SLURM_SCOPE_SESSION || scope == CORDON_SLURM_SCOPE_PROJECT;
        const char *in = (const char *)data + 1, *end = (const char *)data + size;
        const char *sep = memchr(in, 1, (size_t)(end - in));
        const char *args_end = sep ?: end;
        _cleanup_strv_free_ char **argv = NULL;
        if (strv_extend(&argv, cordon_slurm_query_name(q)) < 0)
                return 0;
        for (const char *p = in; p < args_end;) {
                const char *nl = memchr(p, '\n', (size_t)(args_end - p));
                const char *e = nl ?: args_end;
                _cleanup_free_ char *w = strndup(p, (size_t)(e - p));
                if (!w || strv_extend(&argv, w) < 0)
                        return 0;
                p = e + 1;
        }

        struct cordon_slurm_scope_request req = {
            .command = q,
            .argv = argv,
            .scope = scope,
            .user = "alice",
            .uid = 1000,
            .ids = ids,
            .n_ids = n_ids,
        };
        struct cordon_slurm_scope_result res = {0};
        struct cordon_diag diag = {0};
        const char *rule = NULL;
        int r = cordon_slurm_scope_check(&req, &res, &rule, &diag);
        if (r < 0 && r != -ENOMEM) {
                FUZZ_CHECK(r == -EPERM || r == -EINVAL || r == -E2BIG);
                FUZZ_CHECK(rule && diag.message[0] && strstr(diag.message, rule));
                FUZZ_CHECK(!res.argv);
        }
        if (r == 0) {
                FUZZ_CHECK(res.argv && streq(res.argv[0], argv[0]));
                FUZZ_CHECK(q != CORDON_SLURM_SACCTMGR);
                check_jobs(res.argv, narrow, n_ids);
                if (res.filter == CORDON_SLURM_FILTER_HEADER_ONLY)
                        FUZZ_CHECK(narrow && n_ids == 0 && res.header_lines <= 2);
                if (res.filter == CORDON_SLURM_FILTER_SCONTROL)
                        FUZZ_CHECK(narrow && q == CORDON_SLURM_SCONTROL);
                /* the command as rewritten is accepted as it stands */
                struct cordon_slurm_scope_request again = req;
                struct cordon_slurm_scope_result res2 = {0};
                again.argv = res.argv;
                r = cordon_slurm_scope_check(&again, &res2, &rule, &diag);
                FUZZ_CHECK(r == 0 || r == -ENOMEM || r == -E2BIG);
                if (r == 0)
                        FUZZ_CHECK(res2.filter == res.filter);
                cordon_slurm_scope_result_clear(&res2);
        }
        cordon_slurm_scope_result_clear(&res);
        if (sep)
                check_filter(sep + 1, (size_t)(end - sep - 1), n_ids);
        return 0;
}
