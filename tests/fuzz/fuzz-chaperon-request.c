/* Fuzz target for chaperon_request_parse() (src/slurm/chaperon-request.c): any bytes as a stub's
 * request, which comes from inside the sandbox. A request it takes has one of Slurm's commands
 * first, at most CORDON_SLURM_MAX_ARGS arguments of at most CORDON_SLURM_MAX_ARG_SIZE bytes, an
 * absolute cwd, and only allowed variables with short values; a refusal hands out nothing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/slurm/slurm-names.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "slurm/chaperon.h"

/* chaperon-request.c's list, restated: the invariant is checked against the documented set,
 * not against the code's own table. */
static const char *const allowed[] = {"LANG",       "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_TIME",
                                      "LC_NUMERIC", "TZ",     "TERM",     "COLUMNS",     NULL};

static bool allowed_entry(const char *e)
{
        const char *eq = strchr(e, '=');
        if (!eq || strlen(eq + 1) > 256)
                return false;
        for (const char *const *n = allowed; *n; n++)
                if (strlen(*n) == (size_t)(eq - e) && strncmp(*n, e, (size_t)(eq - e)) == 0)
                        return true;
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        struct chaperon_request q;
        int r = chaperon_request_parse((const char *)data, size, &q);
        if (r < 0) {
                FUZZ_CHECK(r == -EBADMSG || r == -ENOMEM);
                FUZZ_CHECK(!q.argv && !q.cwd && !q.envp);
                return 0;
        }
        FUZZ_CHECK(r == 0);
        size_t n = strv_length(q.argv);
        FUZZ_CHECK(n >= 1 && n <= CORDON_SLURM_MAX_ARGS);
        FUZZ_CHECK(chaperon_request_command(q.argv[0]) != NULL);
        STRV_FOREACH (a, q.argv)
                FUZZ_CHECK(strlen(*a) <= CORDON_SLURM_MAX_ARG_SIZE && strlen(*a) < size);
        FUZZ_CHECK(q.cwd && q.cwd[0] == '/' && strlen(q.cwd) < size);
        STRV_FOREACH (e, q.envp)
                FUZZ_CHECK(allowed_entry(*e));
        chaperon_request_clear(&q);
        FUZZ_CHECK(!q.argv && !q.cwd && !q.envp);
        return 0;
}
