/* Fuzz target for cordon_settings_set() (src/lib/settings/settings.c and the registry's parsers).
 * The input, split on newlines, is a list of NAME=VALUE assignments applied to fresh defaults, as a
 * configuration file would; every failure must name the variable, and nothing may change on
 * failure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        _cleanup_free_ char *buf = malloc(size + 1);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        buf[size] = 0;

        struct cordon_settings *s = NULL;
        if (cordon_settings_new("/home/fuzz", &s) < 0)
                return 0;
        for (char *line = buf, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                char *eq = strchr(line, '=');
                if (!eq)
                        continue;
                *eq = 0;
                const char *name = line, *value = eq + 1;
                const struct cordon_var *v = cordon_var_find(name);
                ssize_t before =
                    v && v->type == CORDON_VAR_LIST ? cordon_settings_count(s, name) : 0;
                struct cordon_diag diag = {0};
                int r = cordon_settings_set(s, name, value, "fuzz:1", &diag);
                if (!v) {
                        FUZZ_CHECK(r == -ENOENT);
                        continue;
                }
                FUZZ_CHECK(r == 0 || r == -EINVAL || r == -EOPNOTSUPP || r == -ENOMEM);
                if (r == -EINVAL || r == -EOPNOTSUPP) {
                        FUZZ_CHECK(strncmp(diag.message, name, strlen(name)) == 0);
                        if (v->type == CORDON_VAR_LIST)
                                FUZZ_CHECK(cordon_settings_count(s, name) == before);
                }
                char out[4096];
                const char *origin = NULL;
                if (v->type != CORDON_VAR_LIST &&
                    cordon_settings_get(s, name, out, sizeof(out), &origin) == 0) {
                        FUZZ_CHECK(origin);
                        /* What a getter writes parses back. */
                        union cordon_var_value val;
                        FUZZ_CHECK(!*out || !v->parse || v->parse(out, &val) == 0);
                        if (r == 0 && v->offset != SIZE_MAX)
                                FUZZ_CHECK(streq(origin, "fuzz:1"));
                }
        }
        cordon_settings_free(s);
        return 0;
}
