/* Fuzz target for cordon_chaperon_log_name_parse() (src/lib/slurm/chaperon-log.c): any bytes as
 * a file name of the chaperon's log directory, which the retention may remove when it parses.
 * A name it takes is exactly what cordon_chaperon_log_name_format() writes for its parts, so
 * nothing but the logs' own names can ever be taken for a log. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/slurm/chaperon-log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        char *name = malloc(size + 1);
        if (!name)
                return 0;
        memcpy(name, data, size);
        name[size] = 0;
        char host[CORDON_CHAPERON_LOG_HOST_MAX + 1];
        pid_t pid = 0;
        time_t t = -1;
        int r = cordon_chaperon_log_name_parse(name, host, &pid, &t);
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL);
        } else {
                FUZZ_CHECK(r == 0);
                FUZZ_CHECK(pid > 0 && t >= 0);
                FUZZ_CHECK(!strchr(name, '/'));
                char again[CORDON_CHAPERON_LOG_NAME_MAX + 1];
                FUZZ_CHECK(cordon_chaperon_log_name_format(host, pid, t, again, sizeof(again)) ==
                           0);
                FUZZ_CHECK(strcmp(again, name) == 0);
        }
        free(name);
        return 0;
}
