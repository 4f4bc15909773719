/* Fuzz target for src/cli/run-options.c. The input, split on NULs and newlines, is the argument
 * list after "run"; it is parsed on top of fresh defaults, everything is freed afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run-options.h"
#include "fuzz.h"
#include "lib/resolve/env-filter.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        _cleanup_free_ char *buf = malloc(size + 1);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        buf[size] = 0;

        _cleanup_strv_free_ char **argv = NULL;
        if (strv_extend(&argv, "run") < 0)
                return 0;
        size_t start = 0;
        while (start < size && strv_length(argv) < MAX_ARGS) {
                size_t end = start;
                while (end < size && buf[end] != '\n' && buf[end] != 0)
                        end++;
                buf[end] = 0;
                if (strv_extend(&argv, buf + start) < 0)
                        return 0;
                start = end + 1;
        }
        int argc = (int)strv_length(argv);

        struct cordon_settings sa, sb;
        struct run_args a = {.settings = &sa};
        if (cordon_settings_init_defaults(a.settings, "/home/fuzz") < 0) {
                cordon_settings_clear(a.settings);
                return 0;
        }
        char err[512] = "";
        int r = run_args_parse(&a, argc, argv, err, sizeof(err));
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
                FUZZ_CHECK(err[0] != 0);
        } else if (!a.help) {
                FUZZ_CHECK(r == 0);
                FUZZ_CHECK(a.command && a.command > argv && a.command < argv + argc);
                FUZZ_CHECK(a.command[0]);
                /* Everything after "--" or the first operand belongs to the command. */
                for (char **c = argv + 1; c < a.command; c++)
                        FUZZ_CHECK(c[0][0] == '-' || (c > argv + 1 && c[-1][0] == '-'));
                CORDON_LIST_FOREACH (it, &a.settings->sandbox_env) {
                        const char *eq = strchr(it->value, '=');
                        FUZZ_CHECK(eq &&
                                   cordon_env_name_is_valid(it->value, (size_t)(eq - it->value)));
                }
                CORDON_LIST_FOREACH (it, &a.settings->allowed_project_parents) {
                        FUZZ_CHECK(it->value[0] == '/');
                }
                FUZZ_CHECK(cordon_home_access_to_string(a.settings->home_access));
        }
        cordon_settings_clear(a.settings);

        /* The parser runs again in the same process: a second, fixed parse must still work. */
        struct run_args b = {.settings = &sb};
        _cleanup_strv_free_ char **again = NULL;
        if (cordon_settings_init_defaults(b.settings, "/home/fuzz") >= 0 &&
            strv_extend(&again, "run") >= 0 && strv_extend(&again, "-q") >= 0 &&
            strv_extend(&again, "true") >= 0) {
                r = run_args_parse(&b, 3, again, err, sizeof(err));
                FUZZ_CHECK(r == 0 || r == -ENOMEM);
                FUZZ_CHECK(r < 0 || (b.settings->quiet && b.command == again + 2));
        }
        cordon_settings_clear(b.settings);
        return 0;
}
