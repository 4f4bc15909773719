/* Fuzz target for chaperon_config_parse() (src/slurm/chaperon-config.c): any bytes as the
 * configuration the supervisor hands the chaperon. A config it takes names a scope, a session,
 * a project, a user and the network mode, and the wrapper's arguments are cordon run's with
 * that project, backend and mode; a refusal says why. Either way the config clears. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "shared/macro.h"
#include "slurm/chaperon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        struct chaperon_config c = {0};
        char why[512] = "";
        int r = chaperon_config_parse((const char *)data, size, &c, why, sizeof(why));
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
                FUZZ_CHECK(why[0] != 0);
        } else {
                FUZZ_CHECK(r == 0);
                FUZZ_CHECK(chaperon_config_scope_name(c.scope) != NULL);
                FUZZ_CHECK(c.session && c.project && c.user && c.net_mode);
                FUZZ_CHECK(c.log_level >= 0 && c.log_level < _CORDON_CHAPERON_LEVEL_MAX);
                FUZZ_CHECK(c.wrap_args);
                static const char *const fixed[] = {"run",       "-q", "--project-dir", NULL,
                                                    "--backend", NULL, "--net",         NULL};
                for (size_t k = 0; k < ELEMENTSOF(fixed); k++) {
                        FUZZ_CHECK(c.wrap_args[k]);
                        if (fixed[k])
                                FUZZ_CHECK(strcmp(c.wrap_args[k], fixed[k]) == 0);
                }
                FUZZ_CHECK(!c.wrap_args[ELEMENTSOF(fixed)]);
                FUZZ_CHECK(strcmp(c.wrap_args[3], c.project) == 0);
                FUZZ_CHECK(strcmp(c.wrap_args[7], c.net_mode) == 0);
                /* Nothing the parser has no business setting. */
                FUZZ_CHECK(!c.cordon && !c.state_dir && !c.log);
        }
        chaperon_config_clear(&c);
        FUZZ_CHECK(!c.session && !c.wrap_args);
        return 0;
}
