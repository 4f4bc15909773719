/* Fuzz target for chaperon_stdio_pattern() (src/slurm/chaperon-stdio.c): any bytes as a
 * --output value a sandbox gives sbatch. A word it makes goes into a shell line the job runs, so
 * it must be one double-quoted word in which nothing but the expansions it means to write can
 * expand: every '"', '$', '`' and '\' of the value is escaped, and every unescaped one belongs
 * to a known expansion. A refusal is -EINVAL. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "shared/macro.h"
#include "slurm/chaperon.h"

/* The expansions the pattern letters stand for, and the pieces of a padded one. */
static const char *const tokens[] = {
    "${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID}}",
    "${SLURM_ARRAY_TASK_ID:-4294967294}",
    "$(( ${SLURM_ARRAY_TASK_ID:-0} % 10 ))",
    "${SLURM_JOB_ID}.batch",
    "${SLURM_JOB_ID}",
    "${SLURMD_NODENAME}",
    "${USER}",
    "${SLURM_JOB_NAME}",
    "$(printf '%0",
    "d' \"",
    "\")",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > 4096)
                return 0;
        char *spec = malloc(size + 1);
        FUZZ_CHECK(spec);
        memcpy(spec, data, size);
        spec[size] = 0;
        char *w = NULL;
        int r = chaperon_stdio_pattern(spec, &w);
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
                FUZZ_CHECK(!w);
        } else {
                size_t n = strlen(w);
                FUZZ_CHECK(n >= 2 && w[0] == '"' && w[n - 1] == '"');
                for (size_t i = 1; i < n - 1;) {
                        size_t t = 0;
                        for (size_t k = 0; !t && k < ELEMENTSOF(tokens); k++)
                                if (strncmp(w + i, tokens[k], strlen(tokens[k])) == 0)
                                        t = strlen(tokens[k]);
                        if (t) {
                                i += t;
                                continue;
                        }
                        if (w[i] == '\\') {
                                FUZZ_CHECK(i + 1 < n - 1 && strchr("\"$`\\", w[i + 1]));
                                i += 2;
                                continue;
                        }
                        FUZZ_CHECK(!strchr("\"$`", w[i]));
                        i++;
                }
        }
        free(w);
        free(spec);
        return 0;
}
